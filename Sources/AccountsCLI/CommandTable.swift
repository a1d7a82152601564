/// Every command, in the order `--help` and the man page list them. Each command's spelling,
/// options and help are written once, in its own file; the parser, `--help`, the completion
/// scripts and the man page all read this list.
package enum CommandTable {
  package static let all: [CommandSpec] = [
    ListCommand.spec,
    AddCommand.spec,
    RemoveCommand.spec,
    PasswordCommand.spec,
    PasswdCommand.spec,
    OTPCommands.spec,
    TagCommand.spec,
    UntagCommand.spec,
    ImportCommand.spec,
    ExportCommand.spec,
    CurrentCommand.spec,
    LoginCommand.spec,
    SwitchCommand.spec,
    LogoutCommand.spec,
    TokenCommand.spec,
    ExecCommand.spec,
    LeaseCommand.spec,
    ReleaseCommand.spec,
    LeasesCommand.spec,
    EnvCommand.spec,
    ShellCommand.spec,
    HookCommands.spec,
    HooksCommand.spec,
    RequestCommand.spec,
    StatusCommand.spec,
    WhichCommand.spec,
    RulesCommand.spec,
    RuleCommands.spec,
    PromptCommand.spec,
    GitCredentialCommand.spec,
    ClearCommand.spec,
    BackendCommands.spec,
    AdaptersCommand.spec,
    DoctorCommand.spec,
    LockCommand.spec,
    CompletionCommand.spec,
    HelpCommand.spec,
    CompleteCommand.spec,
    ProbeAdaptersCommand.spec,
    LeaseKeeperCommand.spec,
    TokenRefresherCommand.spec,
  ]

  /// Every runnable command with its path, groups expanded, hidden ones included.
  package static var paths: [CommandPath] {
    all.flatMap { command in
      command.isGroup
        ? command.subcommands.map { CommandPath(groups: [command], command: $0) }
        : [CommandPath(groups: [], command: command)]
    }
  }
}
