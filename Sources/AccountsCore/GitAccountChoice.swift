import AccountsContract

/// Which saved account git's credential request is for, or why none.
public enum GitAccountChoice: Equatable {
  case account(AccountID)
  /// Not accounts' to answer (git asks its next helper); `why`, when given, is said on stderr.
  case none(why: String?)
}

extension GitCredentialRequest {
  /// The account whose token this request is for, decided from the backends and the index
  /// alone (`book`, read only once a backend names the host: git asks for every host). Not accounts' to answer: no backend names the host, the token would cross a
  /// network in the clear (`GitTransport`), or no account fits.
  ///
  /// The user in the remote's URL (git's `username=`) chooses among the saved accounts on the
  /// backends naming the host, as git and gh read it: the account this directory uses (`here`)
  /// when it is that user there, else that user's account on those backends (when only one has
  /// it); a `here` that fails (a stale ACCOUNTS_ACCOUNT or rule) does not stand in its way.
  /// Without a user, the account this directory uses, when it is on one of those backends.
  public func account(
    backends all: [BackendConfig], book readBook: () throws -> AccountBook,
    here: (AccountBook) throws -> AccountID?
  ) throws -> GitAccountChoice {
    guard let host, let scheme else { return .none(why: nil) }
    let naming = all.filter { backend in
      backend.settings[OwnBackendSetting.gitHost].map { GitHost.matches($0, host) } ?? false
    }
    let backends = naming.filter { GitTransport.allows(scheme, to: host, for: $0) }
    if backends.isEmpty {
      return .none(why: naming.first.map { "no token for \(scheme)://\(host) (backend \($0.name)): \(GitTransport.rule)" })
    }
    let book = try readBook()
    let current: AccountID?
    do {
      current = try here(book)
    } catch where username != nil {
      current = nil
    }
    if let current, backends.contains(where: { $0.name == current.backend }), username.map({ $0 == current.user }) ?? true {
      return .account(current)
    }
    guard let username else { return .none(why: nil) }
    let saved = backends.map { AccountID(user: username, backend: $0.name) }.filter { book[$0] != nil }
    switch saved.count {
    case 1: return .account(saved[0])
    case 0: return .none(why: nil)
    default:
      return .none(
        why: "\(username) is saved on several backends naming \(host) ("
          + saved.map(\.description).joined(separator: ", ") + "); accounts answers for none of them; "
          + "choose one with a directory rule (`accounts rule add DIR USER@BACKEND`)")
    }
  }
}

/// Which transport a token may take to git's remote: https, or plain http to a loopback host of
/// a backend that allows insecure transport for its own logins too. Over http anywhere else it
/// would cross a network in the clear, whatever the backend allows for its test server.
public enum GitTransport {
  public static let rule =
    "a token goes to git over https, or over http only to this machine (localhost, 127.0.0.1, [::1]) "
    + "for a backend with allow_insecure_transport=true"

  public static func allows(_ scheme: String, to host: String, for backend: BackendConfig) -> Bool {
    switch scheme {
    case "https": true
    case "http":
      backend.settings["allow_insecure_transport"] == "true" && HostName.of(authority: host[...]).map(HostName.isLoopback) == true
    default: false
    }
  }
}
