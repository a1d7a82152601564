import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem

/// `accounts git-credential get|store|erase`: git's credential helper (gitcredentials(7)), so
/// that git sends the session token of the account this directory uses.
enum GitCredentialCommand {
  static let spec = CommandSpec(
    "git-credential",
    summary: "git's credential helper: the token of the account this directory uses",
    discussion: """
      git runs this with get, store or erase and a request on stdin (`man git-credential`). \
      git turns the helper `accounts` into the program git-credential-accounts (gitcredentials(7)), \
      which is installed beside accounts as a link to it and is `accounts git-credential`; \
      `!accounts git-credential` is the same helper where that link is not on PATH. \
      For a host that a backend names with its git_host setting (`accounts backend set corp \
      git_host=git.corp.example`; the host as git names it, with :PORT when not the default), \
      get prints username= and password= lines: the user name and the session token of the \
      account a command would use in git's working directory (ACCOUNTS_ACCOUNT, else the \
      longest directory rule, else the auto-login slot), so a repository under a rule's \
      directory pushes as that rule's account. An expired token is renewed with the \
      remembered password; there is never a prompt, because git owns the terminal. When no \
      backend names the host, no account would be used, that account is on another backend \
      than the host's, or git's request names another user, get prints nothing and exits 0, \
      and git asks its next helper. store does nothing: the token stays in the keyring. erase \
      does nothing unless --erase-logs-out, which logs that account out (the logout hooks run). \
      A request with a line git would not write (no '=', a NUL byte, a carriage return) or \
      longer than 64 KiB is refused.
      """,
    arguments: [action], options: [eraseLogsOut, SessionArguments.timeout],
    examples: [
      ("git config --global credential.https://git.corp.example.helper accounts",
       "git asks accounts for git.corp.example"),
      ("git config --global credential.https://git.corp.example.helper '!accounts git-credential'",
       "the same, without git-credential-accounts on PATH"),
      ("printf 'protocol=https\\nhost=git.corp.example\\n\\n' | accounts git-credential get", "what git would be told here"),
    ],
    secretInput: .credential,
    handler: run)

  /// The program git runs for the helper `accounts` (gitcredentials(7)): a link to accounts.
  static let program = "git-credential-accounts"
  /// What git asks a helper to do (git-credential(1)).
  static let actions = ["get", "store", "erase"]
  static let action = ArgumentSpec(
    "ACTION", completion: .credentialAction, help: "get, store or erase, as git calls it; any other action is ignored")
  static let eraseLogsOut = OptionSpec(
    "erase-logs-out", help: "when git erases a rejected credential, log that account out")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let verb = invocation.argument(action)!
    // git-credential(1): a helper ignores an action it does not know (git may add some).
    guard actions.contains(verb) else { return }
    let request = try GitCredentialRequest.read(from: .standardInput)
    switch verb {
    case "get":
      guard let id = try account(for: request, invocation, environment) else { return }
      let session = try environment.sessionFlow(invocation).session(for: id, prove: false, password: .rememberedOnly)
      let fitsALine = session.token.withUnsafeBytes { !$0.contains(0) && !$0.contains(10) && !$0.contains(13) }
      guard fitsALine, !session.token.isEmpty else {
        throw CommandError(.failure, "git-credential: the token of \(id) cannot be given to git: it is empty or not one line")
      }
      environment.output.writeSecret { buffer in
        buffer += Array("username=\(id.user)\npassword=".utf8)
        session.token.withUnsafeBytes { buffer.append(contentsOf: $0) }
        buffer.append(10)
      }
    case "erase" where invocation.isSet(eraseLogsOut):
      guard let id = try account(for: request, invocation, environment) else { return }
      // Only the session git was given and found rejected: a stale credential (an older
      // session's token, another helper's password) must not end the one that works.
      let book = try environment.index.load()
      guard let rejected = request.password, book[id]?.token != nil,
        let current = try environment.ledger.claimedSecret(SecretKey(id, .token), recorded: book.secretService),
        current == rejected
      else { return }
      let warnings = try environment.sessionFlow(invocation).logOut(id)
      for warning in warnings { environment.output.warning("\(warning)") }
      environment.output.message("\(id): logged out (git erased its credential)")
      environment.runHooks(after: .logout, for: id, invocation)
    default:
      return  // store, and erase without --erase-logs-out: the keyring already holds the token
    }
  }

  /// The account whose token git's request is for, or nil when the request is not accounts'
  /// to answer: no backend names its host, no account would be used here, or the account that
  /// would be used is not on a backend naming that host or is not the user git asks for.
  static func account(
    for request: GitCredentialRequest, _ invocation: Invocation, _ environment: Environment
  ) throws -> AccountID? {
    guard let host = request.host, let scheme = request.scheme else { return nil }
    // A token goes to git only over https, or over http where the backend allows insecure
    // transport for its own logins too.
    let backends = try environment.config.load().backends.filter { backend in
      (scheme == "https" || (scheme == "http" && backend.settings["allow_insecure_transport"] == "true"))
        && (backend.settings[OwnBackendSetting.gitHost].map { GitHost.matches($0, host) } ?? false)
    }
    guard !backends.isEmpty else { return nil }
    let choice: AccountChoice
    do {
      choice = try environment.pickAccount(invocation, in: try environment.index.load())
    } catch is AccountChoice.NoneNamed {
      return nil
    }
    guard backends.contains(where: { $0.name == choice.id.backend }) else { return nil }
    if let username = request.username, username != choice.id.user { return nil }
    return choice.id
  }
}
