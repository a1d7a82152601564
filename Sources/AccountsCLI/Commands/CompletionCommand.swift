import AccountsContract
import AccountsCore
import AccountsSystem

/// `accounts completion bash|zsh|fish`: print a shell's completion script.
enum CompletionCommand {
  static let spec = CommandSpec(
    "completion",
    summary: "print the shell completion script for bash, zsh or fish",
    discussion: """
      Prints a script that completes commands, options, account and backend names, and the \
      settings of `backend add --adapter A` and `backend set NAME` (KEY= for a value, the names \
      of secret settings after --secret, those NAME has after --unset). Names are read from \
      the index and config only (setting names from the adapter, loaded in a child process \
      for at most 2 seconds), so completing never touches the keyring, and are offered as \
      literal words: the shell never evaluates one (see NAMES in `man accounts`). \
      `make install` installs the scripts where each shell finds them; to load one by hand:
      """,
    arguments: [shell],
    examples: [
      ("source <(accounts completion bash)", "bash, for this shell (add it to ~/.bashrc)"),
      ("accounts completion zsh > ~/.zfunc/_accounts", "zsh, with ~/.zfunc on $fpath"),
      ("accounts completion fish > ~/.config/fish/completions/accounts.fish", "fish"),
    ],
    handler: run)

  static let shell = ArgumentSpec("SHELL", completion: .shell, help: "bash, zsh or fish")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let name = invocation.argument(shell)!
    guard let script = CompletionScripts.script(for: name) else {
      throw CommandError.usage(
        "no completion for shell '\(name)'", fix: "choose one of bash, zsh, fish")
    }
    environment.output.write(script)
  }
}
