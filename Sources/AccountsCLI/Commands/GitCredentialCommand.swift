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
      directory pushes as that rule's account. A user in the remote's URL \
      (https://bob@git.corp.example/..., which git sends as username=) chooses the account \
      instead: that user's saved account on the backend naming the host, whatever the \
      directory would use. An expired token is renewed with the remembered password; there is \
      never a prompt, because git owns the terminal. When no backend names the host, no \
      account fits (none would be used, it is on another backend than the host's, or the \
      URL's user is saved on none of them, or on several: said on stderr), get prints \
      nothing and exits 0, and git asks its next helper. A token goes over https only, or \
      over plain http to this machine (localhost, 127.0.0.1, [::1]) for a backend with \
      allow_insecure_transport=true (a local test server); for any other http remote get \
      says so on stderr and prints nothing. An account whose token is empty or not one line \
      gives git nothing, with exit 1. store does nothing: the token stays in the keyring. \
      erase does nothing unless --erase-logs-out: then, when git erases the account's current \
      token (the server rejected it), the token is deleted and the backend told (the logout \
      hooks run), but the account stays the one in use (it keeps the auto-login slot): git's \
      next request logs it in again with the remembered password, or, without one, \
      `accounts login` does. A request with a line git would not write (no '=', a NUL byte, a \
      carriage return) or \
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
    "erase-logs-out",
    help: "when git erases a rejected token, delete it (the account stays the one in use, for the next login)")

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
      let warnings = try environment.sessionFlow(invocation).logOut(id, because: .tokenRejected)
      for warning in warnings { environment.output.warning("\(warning)") }
      let after = try environment.index.load()
      let renewal =
        after[id]?.remembered == true
        ? "git's next request logs it in again with the remembered password"
        : "`accounts login \(id)` logs it in again for git"
      let inUse = after.autoLogin == id ? "it stays the account in use: " : ""
      environment.output.message("\(id): logged out (git erased its credential); \(inUse)\(renewal)")
      environment.runHooks(after: .logout, for: id, invocation)
    default:
      return  // store, and erase without --erase-logs-out: the keyring already holds the token
    }
  }

  /// The account whose token git's request is for (`GitCredentialRequest.account`), or nil,
  /// saying why on stderr when there is something to say.
  static func account(
    for request: GitCredentialRequest, _ invocation: Invocation, _ environment: Environment
  ) throws -> AccountID? {
    let choice = try request.account(
      backends: try environment.config.load().backends, book: { try environment.index.load() }
    ) { book in
      do {
        return try environment.pickAccount(invocation, in: book).id
      } catch is AccountChoice.NoneNamed {
        return nil
      }
    }
    switch choice {
    case .account(let id): return id
    case .none(let why):
      if let why { environment.output.failure("accounts: git-credential: " + why) }
      return nil
    }
  }
}
