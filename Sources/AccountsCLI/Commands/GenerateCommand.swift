import AccountsCore
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
    for file in try GeneratedFiles.all(root: root) {
      let path = "\(root)/\(file.path)"
      // Shipped files, not private data: 0644, written in place.
      let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard descriptor >= 0 else { throw FileError.unwritable(path: path, errno: errno) }
      writeAll(descriptor, Array(file.contents.utf8))
      close(descriptor)
      environment.output.message("wrote \(file.path)")
    }
  }
}
