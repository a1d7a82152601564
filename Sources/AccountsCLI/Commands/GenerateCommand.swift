import AccountsCore
import AccountsSystem
import Glibc

/// `accounts __generate DIR`: writes the committed completion scripts and man pages under DIR
/// (scripts/generate calls it; a test fails when the committed files differ).
enum GenerateCommand {
  static let directory = ArgumentSpec("DIR", help: "the package root")

  static let spec = CommandSpec(
    "__generate",
    summary: "write completions/ and man/ from the command table",
    arguments: [directory], hidden: true,
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let root = invocation.argument(directory)!
    guard access("\(root)/Package.swift", F_OK) == 0, access("\(root)/completions", F_OK) == 0 else {
      throw CommandError.usage("\(root) is not the accounts source tree", fix: "run scripts/generate from it")
    }
    for file in try GeneratedFiles.all(root: root) {
      let path = "\(root)/\(file.path)"
      // Shipped files, not private data: 0644, written in place, never through a link.
      do {
        let descriptor = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o644)
        defer { descriptor.close() }
        try descriptor.writeAll(Array(file.contents.utf8))
      } catch {
        throw FileError.unwritable(path: path, errno: error.code)
      }
      environment.output.message("wrote \(file.path)")
    }
  }
}
