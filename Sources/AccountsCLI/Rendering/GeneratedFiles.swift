import AccountsCore
import Glibc

/// The files generated from the command table and committed: `accounts __generate DIR` writes
/// them (scripts/generate), and a test fails when the committed copies differ.
enum GeneratedFiles {
  /// The C adapter the adapter manual embeds; the tests compile and run the same file.
  static let examplePath = "Tests/Fixtures/adapters/example.c"

  /// The files, for the package at `root` (the adapter manual embeds a file from it).
  static func all(root: String) throws -> [(path: String, contents: String)] {
    let example = try readText("\(root)/\(examplePath)")
    return [
      ("completions/accounts.bash", CompletionScripts.script(for: "bash")!),
      ("completions/_accounts", CompletionScripts.script(for: "zsh")!),
      ("completions/accounts.fish", CompletionScripts.script(for: "fish")!),
      ("man/accounts.1", ManRenderer.accounts1(CommandTable.all)),
      ("man/accounts-adapter.7", AdapterManual.roff(example: example, version: AccountsCommandLine.version)),
    ]
  }

  private static func readText(_ path: String) throws(FileError) -> String {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw FileError.unreadable(path: path, errno: errno) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
