import AccountsCore
import AccountsSystem
import Glibc

/// `accounts-generate DIR`: writes the committed completion scripts and man pages under DIR
/// (scripts/generate calls it; a test fails when the committed files differ). A build-only
/// program, never installed: the man pages' prose and renderers stay out of the accounts binary.
@main
enum GenerateCommand {
  static func main() {
    let arguments = CommandLine.arguments
    guard arguments.count == 2 else { fail("usage: accounts-generate DIR (the package root; run scripts/generate)") }
    let root = arguments[1]
    guard access("\(root)/Package.swift", F_OK) == 0, access("\(root)/completions", F_OK) == 0 else {
      fail("\(root) is not the accounts source tree: run scripts/generate from it")
    }
    do {
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
        say("wrote \(file.path)")
      }
    } catch let error as FileError {
      fail(error.message)
    } catch {
      fail("\(error)")
    }
  }

  static func say(_ line: String) {
    try? FileDescriptor.standardError.writeAll(Array((line + "\n").utf8))
  }

  static func fail(_ message: String) -> Never {
    say("accounts-generate: \(message)")
    exit(1)
  }
}
