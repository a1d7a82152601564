import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsSystem

/// `accounts hook add|remove` and `accounts hooks`: commands run after `switch`, `login` and
/// `logout`, kept in the user's own config.json only.
enum HookCommands {
  static let spec = CommandSpec(
    group: "hook",
    summary: "add or remove a command run after switch, login or logout",
    discussion: """
      A hook is a command from your own config.json that runs after `switch`, `login` or \
      `logout` succeeds: the global hooks first, then those for the account's backend, then \
      those for the account, each in the order added. Nothing inside a directory or repository \
      can add or run one. `accounts hooks` lists them with their numbers. A hook runs with \
      ACCOUNTS_IN_HOOK set, and an `accounts` command started under it (`accounts switch -` in \
      a switch hook) does its job but runs no hooks, so a hook cannot start itself again.
      """,
    subcommands: [HookAddCommand.spec, HookRemoveCommand.spec])

  /// "every account", "backend corp", "account alice@corp"
  static func scopeText(_ scope: Hook.Scope) -> String {
    switch scope {
    case .every: "every account"
    case .backend(let name): "backend \(name)"
    case .account(let id): "account \(id)"
    }
  }

  /// The `--json` object of a hook.
  static func json(_ numbered: NumberedHook) -> JSONValue {
    let hook = numbered.hook
    var backend = JSONValue.null
    var account = JSONValue.null
    switch hook.scope {
    case .every: break
    case .backend(let name): backend = .string(name)
    case .account(let id): account = .string(id.description)
    }
    return .object([
      "number": .number(JSONNumber(numbered.number)),
      "event": .string(hook.event.rawValue),
      "command": .string(hook.command),
      "backend": backend,
      "account": account,
      "with_token": .bool(hook.withToken),
      "timeout": .number(JSONNumber(hook.timeout)),
    ])
  }
}

enum HookAddCommand {
  static let spec = CommandSpec(
    "add",
    summary: "run a command after switch, login or logout",
    discussion: """
      Adds a hook for EVENT (switch, login or logout), for every account, for the backend \
      --backend names, or for the account --account names. It runs as `/bin/sh -c CMD` after \
      the command succeeded, with ACCOUNTS_ACCOUNT (USER@BACKEND), ACCOUNTS_USER, \
      ACCOUNTS_BACKEND and ACCOUNTS_EVENT in its environment and no secret: ACCOUNTS_TOKEN only \
      with --with-token, for switch and login (a logout has no session left to give). Its \
      output goes to stderr, its stdin is /dev/null. After --timeout seconds (default \
      \(Hook.defaultTimeout)) it is stopped, with everything it started in its process group; \
      what it leaves running when it ends is stopped too. A hook that fails or is stopped is \
      reported as a warning and undoes nothing: the command's exit status stays 0. \
      `--no-hooks` on switch, login or logout skips the hooks. ACCOUNTS_IN_HOOK (the hook's \
      number and event) is set for it too: an `accounts` command the hook runs runs no hooks \
      itself.
      """,
    arguments: [event, command], options: [account, withToken, timeout],
    examples: [
      (
        "accounts hook add switch 'git config --global user.email \"$ACCOUNTS_USER@corp.example\"' --backend corp",
        "set git's e-mail address when switching to a corp account"
      ),
      ("accounts hook add login 'notify-send \"logged in as $ACCOUNTS_ACCOUNT\"'", "say so after every login"),
    ],
    handler: run)

  static let event = ArgumentSpec("EVENT", completion: .hookEvent, help: "switch, login or logout")
  static let command = ArgumentSpec("CMD", help: "the command, run with /bin/sh -c")
  static let account = OptionSpec(
    "account", value: "USER", completion: .account, help: "run it only for this account (else --backend, else every account)")
  static let withToken = OptionSpec(
    "with-token", help: "give the hook the session token as ACCOUNTS_TOKEN (switch and login only)")
  static let timeout = OptionSpec(
    "timeout", value: "SECONDS", kind: .number(1...Hook.timeoutLimit, example: "--timeout 30"),
    help: "stop the hook after SECONDS (default \(Hook.defaultTimeout))")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let eventName = invocation.argument(event)!
    guard let event = HookEvent(rawValue: eventName) else {
      throw CommandError.usage(
        "'\(Names.printable(eventName))' is not a hook event",
        fix: "choose one of \(HookEvent.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    let text = invocation.argument(command)!
    guard !text.allSatisfy(\.isWhitespace) else { throw CommandError.usage("the hook's command is empty", fix: "give CMD") }
    if event == .logout, invocation.isSet(withToken) {
      throw CommandError.usage(
        "a logout hook gets no token: the session has ended when it runs",
        fix: "leave out --with-token, or use a login or switch hook")
    }
    let seconds = timeout(invocation)
    let scope = try scope(invocation, environment)
    let hook = Hook(event: event, command: text, scope: scope, withToken: invocation.isSet(withToken), timeout: seconds)
    let number = try environment.config.update { configuration in
      configuration.hooks.append(hook)
      return configuration.hooks.count
    }
    environment.output.message("added hook \(number): after \(event.rawValue), for \(HookCommands.scopeText(scope))")
  }

  /// The global `--backend` (a configured backend) or `--account` (a saved account), not both.
  static func scope(_ invocation: Invocation, _ environment: Environment) throws -> Hook.Scope {
    let accountName = invocation.value(account)
    switch (invocation.backend, accountName) {
    case (nil, nil):
      return .every
    case (let backend?, nil):
      return .backend(try environment.config.load().backend(named: backend).name)
    case (nil, let name?):
      return .account(try environment.resolveAccount(name, invocation, in: try environment.index.load()))
    case (_?, _?):
      throw CommandError.usage(
        "a hook is for a backend or for an account, not both", fix: "give --backend B or --account USER")
    }
  }

  static func timeout(_ invocation: Invocation) -> Int { invocation.number(timeout) ?? Hook.defaultTimeout }
}

enum HookRemoveCommand {
  static let spec = CommandSpec(
    "remove", aliases: ["rm"],
    summary: "remove a hook by its number",
    discussion: "Removes hook N as `accounts hooks` numbers it; the hooks after it move up one.",
    arguments: [number],
    examples: [("accounts hook remove 2", "remove the second hook")],
    handler: run)

  static let number = ArgumentSpec("N", help: "the hook's number in `accounts hooks`")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let text = invocation.argument(number)!
    let removed = try environment.config.update { configuration throws(CommandError) in
      guard let n = Int(text), configuration.hooks.indices.contains(n - 1) else {
        throw .usage(
          "there is no hook '\(Names.printable(text))'"
            + (configuration.hooks.isEmpty ? " (there are no hooks)" : " (the hooks are 1 to \(configuration.hooks.count))"),
          fix: "see the hooks and their numbers with `accounts hooks`")
      }
      return configuration.hooks.remove(at: n - 1)
    }
    environment.output.message(
      "removed hook \(text): after \(removed.event.rawValue), for \(HookCommands.scopeText(removed.scope)): \(removed.command)")
  }
}

enum HooksCommand {
  static let spec = CommandSpec(
    "hooks",
    summary: "list the hooks, numbered",
    discussion: """
      Every hook in the order added, with the number `accounts hook remove N` takes: its event, \
      which accounts it is for, whether it gets the token, its timeout and its command. \
      --json: an array of objects with keys number, event, command, backend, account (null \
      when the hook is not for one), with_token and timeout.
      """,
    examples: [("accounts hooks", "what runs after switch, login and logout")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let hooks = try environment.config.load().numberedHooks
    if invocation.json {
      environment.output.writeJSON(.array(hooks.map(HookCommands.json)))
      return
    }
    guard !hooks.isEmpty else {
      environment.output.message("no hooks yet; add one with `accounts hook add EVENT CMD`")
      return
    }
    var rows = [["N", "EVENT", "FOR", "TOKEN", "TIMEOUT", "COMMAND"]]
    for numbered in hooks {
      let hook = numbered.hook
      rows.append([
        String(numbered.number), hook.event.rawValue, HookCommands.scopeText(hook.scope), hook.withToken ? "yes" : "-",
        "\(hook.timeout)s", hook.command,
      ])
    }
    environment.output.write(TextTable.render(rows))
  }
}
