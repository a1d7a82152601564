import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc
import SecretMemory

/// Running the user's hooks after `switch`, `login` and `logout` succeeded: the one place that
/// does it, so the three commands only say which event happened to which account.
enum HookArguments {
  static let noHooks = OptionSpec("no-hooks", help: "do not run the hooks (`accounts hooks`) for this command")
}

/// The names a hook finds in its environment.
enum HookVariables {
  static let user = "ACCOUNTS_USER"
  static let backend = "ACCOUNTS_BACKEND"
  static let event = "ACCOUNTS_EVENT"
  /// Set (to the hook's number and event) for every hook's process: an `accounts` command
  /// started under it runs no hooks, so a hook that runs `accounts switch -` cannot start itself
  /// again and again.
  static let guardName = "ACCOUNTS_IN_HOOK"
}

extension Environment {
  /// Runs the hooks for `event` on `id` one after another, unless `--no-hooks` or this command
  /// was started by a hook (ACCOUNTS_IN_HOOK). A hook's output goes to stderr (stdout is the
  /// command's data); a hook that fails or overruns its timeout is reported as a warning and
  /// changes nothing else: the command already succeeded, and its exit status stays. `token` is
  /// asked for only when a hook wants it, and at most once.
  func runHooks(
    after event: HookEvent, for id: AccountID, _ invocation: Invocation, token: () throws -> SecretBytes? = { nil }
  ) {
    guard !invocation.isSet(HookArguments.noHooks), variables[HookVariables.guardName]?.isEmpty ?? true else { return }
    let hooks: [NumberedHook]
    do {
      hooks = try config.load().hooks(after: event, for: id)
    } catch {
      output.warning("no hook was run: \(Self.describe(error))")
      return
    }
    var fetched: SecretBytes??
    for numbered in hooks {
      var secret: SecretBytes?
      if numbered.hook.withToken {
        if fetched == nil {
          do {
            fetched = .some(try token())
          } catch {
            fetched = .some(nil)
            output.warning("the token for hooks could not be read: \(Self.describe(error))")
          }
        }
        secret = fetched ?? nil
        if let value = secret,
          let problem = value.withUnsafeBytes({ SessionExport.problem(SessionExport.tokenVariable, $0) })
        {
          output.warning("hook \(numbered.number) (\(event.rawValue)) was not run: the token \(problem)")
          continue
        }
      }
      run(numbered, event: event, id: id, token: secret)
    }
  }

  private func run(_ numbered: NumberedHook, event: HookEvent, id: AccountID, token: SecretBytes?) {
    let name = "hook \(numbered.number) (\(event.rawValue))"
    let variables = [
      SessionVariables.accountName: id.description,
      HookVariables.user: id.user,
      HookVariables.backend: id.backend,
      HookVariables.event: event.rawValue,
      HookVariables.guardName: "\(numbered.number) \(event.rawValue)",
    ]
    // No secret is inherited either: ACCOUNTS_TOKEN from `env` or `shell` goes only to a hook
    // that asked for the token, and then it is this account's.
    let child: ChildProcess
    do {
      child = try ChildProcess(
        "/bin/sh", arguments: ["sh", "-c", numbered.hook.command],
        environment: .inheritedExcept(
          removing: [SessionVariables.tokenName, SessionVariables.userIDName], adding: variables,
          secret: token.map { (SessionVariables.tokenName, $0) }),
        readErrors: true)
    } catch {
      output.warning("\(name) could not be started: \(error.errno)")
      return
    }
    let deadline = ChildProcess.now() + UInt64(numbered.hook.timeout) * 1_000_000_000
    var ending: ChildProcess.Termination?
    reading: while true {
      switch child.next(until: deadline) {
      case .line(let line):
        try? StandardStreams.error.writeAll(Array((line + "\n").utf8))
      case .lineTooLong:
        // A flood without line breaks: its end is still awaited, the rest of it dropped.
        ending = child.end(until: deadline)
        break reading
      case .timedOut:
        break reading
      case .ended(let termination):
        ending = termination
        break reading
      }
    }
    child.reap()  // kills its whole process group: nothing it started outlives it
    switch ending {
    case nil: output.warning("\(name) did not finish within \(numbered.hook.timeout) s and was stopped")
    case .exited(0): break
    case .exited(let status): output.warning("\(name) exited \(status)")
    case .signaled(let signal): output.warning("\(name) was killed by \(ChildProcess.signalName(signal))")
    }
  }

  /// An error as one line, as the top level would print it (without the fix).
  private static func describe(_ error: Error) -> String {
    (error as? UserFacingError)?.message ?? "\(error)"
  }
}
