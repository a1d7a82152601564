/// The files generated from the command table and committed: `accounts __generate DIR` writes
/// them (scripts/generate), and a test fails when the committed copies differ.
enum GeneratedFiles {
  static var all: [(path: String, contents: String)] {
    [
      ("completions/accounts.bash", CompletionScripts.script(for: "bash")!),
      ("completions/_accounts", CompletionScripts.script(for: "zsh")!),
      ("completions/accounts.fish", CompletionScripts.script(for: "fish")!),
      ("man/accounts.1", ManRenderer.accounts1(CommandTable.all)),
    ]
  }
}
