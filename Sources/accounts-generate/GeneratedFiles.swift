import AccountsCLI
import AccountsCore
import AccountsSystem
import Glibc

/// The files generated from the command table and committed: `accounts-generate DIR` writes
/// them (scripts/generate), and a test fails when the committed copies differ.
enum GeneratedFiles {
  /// The C adapter the adapter manual embeds; the tests compile and run the same file.
  static let examplePath = "Tests/Fixtures/adapters/example.c"

  /// The files, for the package at `root` (the adapter manual embeds a file from it).
  static func all(root: String) throws -> [(path: String, contents: String)] {
    let path = "\(root)/\(examplePath)"
    let example: [UInt8]
    do {
      let descriptor = try FileDescriptor.open(path, O_RDONLY)
      defer { descriptor.close() }
      example = try descriptor.readAll(limit: 1 << 20) ?? []
    } catch {
      throw FileError.unreadable(path: path, errno: error.code)
    }
    return [
      ("completions/accounts.bash", CompletionScripts.script(for: "bash")!),
      ("completions/_accounts", CompletionScripts.script(for: "zsh")!),
      ("completions/accounts.fish", CompletionScripts.script(for: "fish")!),
      ("man/accounts.1", ManRenderer.accounts1(CommandTable.all)),
      ("man/accounts-adapter.7", AdapterManual.roff(example: String(decoding: example, as: UTF8.self))),
      ("man/accounts-config.5", ConfigManual.roff()),
    ]
  }
}
