import AccountsContract

/// A backend's settings held against its adapter's declaration (`backend add`, `backend show`).
public struct BackendSettingsCheck: Sendable {
  public let adapter: AdapterDescription
  /// Names the ASCII form of a non-ASCII base_url host in its refusal; nil: the refusal says
  /// only to write one.
  public let hostNames: (any HostNameConversion)?

  public init(adapter: AdapterDescription, hostNames: (any HostNameConversion)?) {
    self.adapter = adapter
    self.hostNames = hostNames
  }

  /// One mismatch between a backend and its adapter, as a user-facing line.
  public enum Problem: Equatable, Sendable, CustomStringConvertible {
    case unknown(name: String, suggestions: [String])
    case secretGivenInClear(name: String)
    case missing(name: String, label: String)
    case missingSecret(name: String, label: String)
    case invalidValue(name: String, reason: String)

    public var description: String {
      switch self {
      case .unknown(let name, let suggestions):
        "adapter has no setting '\(name)'"
          + (suggestions.isEmpty ? "" : "; did you mean \(Suggestions.phrase(suggestions))?")
      case .secretGivenInClear(let name):
        "'\(name)' is a secret setting: it is asked for without echo (or read with --secret-stdin \(name)) and kept in the keyring, never given on the command line"
      case .missing(let name, let label): "setting \(name) is required (\(label))"
      case .missingSecret(let name, let label): "secret setting \(name) is required (\(label))"
      case .invalidValue(let name, let reason): "\(name) \(reason)"
      }
    }
  }

  /// Every problem of `settings` (non-secret, by value) and `secretNames` (kept in the keyring).
  public func problems(settings: [String: String], secretNames: [String]) -> [Problem] {
    var problems: [Problem] = []
    let declared = adapter.settings.map(\.name)
    for name in (Array(settings.keys) + secretNames).sorted() {
      if OwnBackendSetting.all.contains(name), adapter.setting(named: name) == nil {
        if !settings.keys.contains(name) { problems.append(.unknown(name: name, suggestions: [])) }  // never a secret
        continue
      }
      if OwnBackendSetting.secrets.contains(name), adapter.setting(named: name) == nil {
        if settings[name] != nil { problems.append(.secretGivenInClear(name: name)) }  // only ever a secret
        continue
      }
      guard let setting = adapter.setting(named: name) else {
        problems.append(.unknown(name: name, suggestions: Suggestions.closest(to: name, in: declared)))
        continue
      }
      if setting.isSecret, settings[name] != nil { problems.append(.secretGivenInClear(name: name)) }
    }
    if let url = settings["base_url"], let reason = BaseURL.problem(url, hostNames: hostNames) {
      problems.append(.invalidValue(name: "base_url", reason: reason))
    }
    if let host = settings[OwnBackendSetting.gitHost], let reason = GitHost.problem(host) {
      problems.append(.invalidValue(name: OwnBackendSetting.gitHost, reason: reason))
    }
    if let store = settings[OwnBackendSetting.leaseStore], let reason = LeaseStoreAddress.problem(store) {
      problems.append(.invalidValue(name: OwnBackendSetting.leaseStore, reason: reason))
    }
    if let prefix = settings[OwnBackendSetting.leasePrefix], let reason = LeasePrefix.prefixProblem(prefix) {
      problems.append(.invalidValue(name: OwnBackendSetting.leasePrefix, reason: reason))
    }
    for setting in adapter.settings where !setting.isOptional {
      if setting.isSecret, !secretNames.contains(setting.name) {
        problems.append(.missingSecret(name: setting.name, label: setting.label))
      } else if !setting.isSecret, settings[setting.name] == nil {
        problems.append(.missing(name: setting.name, label: setting.label))
      }
    }
    return problems
  }

  /// The secret settings to ask for: every required one, and the optional ones `wanted`.
  public func secretsToAsk(wanted: [String]) -> [AdapterSetting] {
    adapter.settings.filter { $0.isSecret && (!$0.isOptional || wanted.contains($0.name)) }
  }
}

/// Settings that belong to accounts itself rather than to the backend's adapter: every backend
/// may have them whatever its adapter declares (adapters ignore names they do not declare).
public enum OwnBackendSetting {
  /// The host `accounts git-credential` answers git for with this backend's accounts
  /// (`git.corp.example`, or `HOST:PORT`, as git names the host in its credential requests).
  public static let gitHost = "git_host"
  /// Where this backend's accounts are leased: `redis://[USER@]HOST[:PORT][/DB]`,
  /// `unix:///PATH` or `local` (the default). ACCOUNTS_LEASE_STORE naming another store is refused.
  public static let leaseStore = "lease_store"
  /// The Redis key prefix of this backend's leases, `accounts:lease:BACKEND` by default: one
  /// prefix shared by backends of different names (on different machines) is one pool.
  public static let leasePrefix = "lease_prefix"
  /// The Redis password of `lease_store`: a secret setting, kept in the Secret Service.
  public static let leaseStorePassword = "lease_store_password"

  /// accounts' own settings given by value.
  public static let all = [gitHost, leaseStore, leasePrefix]
  /// accounts' own secret settings.
  public static let secrets = [leaseStorePassword]

  /// Whether `name` is one of accounts' own secret settings.
  public static func isOwnSecret(_ name: String) -> Bool { secrets.contains(name) }

  /// What an own secret setting is, for its prompt.
  public static func label(_ name: String) -> String {
    name == leaseStorePassword ? "the lease store's Redis password" : name
  }

  /// What to write instead of `value`, an invalid value of accounts' own setting `name` on
  /// `backend`; nil for any other setting.
  public static func fix(_ name: String, value: String, backend: String) -> String? {
    switch name {
    case leaseStore: LeaseStoreAddress.fix(for: value)
    case leasePrefix:
      "give printable ASCII without spaces, e.g. `accounts backend set \(backend) lease_prefix=accounts:lease:qa`"
    default: nil
    }
  }
}

/// The checks every `git_host` passes: a host as git's credential protocol names it (its
/// `host=` line: a name or an address, `:PORT` when not the scheme's default), nothing more.
public enum GitHost {
  /// Why `host` cannot be a git host, or nil when it can.
  public static func problem(_ host: String) -> String? {
    if host.contains("/") || host.contains("@") {  // "/" also catches a scheme's "://"
      return "must be a host name such as git.corp.example (or HOST:PORT), without a scheme, user or path"
    }
    guard !host.isEmpty, host.utf8.count <= 261,
      host.unicodeScalars.allSatisfy({
        $0.isASCII && (Character($0).isLetter || Character($0).isNumber || ".-_:[]".unicodeScalars.contains($0))
      })
    else { return "must be a host name such as git.corp.example (or HOST:PORT): letters, digits, '.', '-', '_', ':', '[', ']'" }
    return nil
  }

  /// Whether the `host=` git sent names `declared`: host names are case-insensitive.
  public static func matches(_ declared: String, _ requested: String) -> Bool {
    declared.lowercased() == requested.lowercased()
  }
}

/// The checks every `base_url` passes, whatever the adapter: an absolute http(s) URL to a host,
/// without credentials (they would sit in config.json in the clear), with a valid port, and
/// without a query or fragment (adapters append paths to it).
public enum BaseURL {
  /// Why `url` cannot be a base URL, or nil when it can. A non-ASCII host is refused naming its
  /// ASCII form as `hostNames` gives it.
  public static func problem(_ url: String, hostNames: (any HostNameConversion)?) -> String? {
    guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || Names.isUnsafeForTerminal($0) }) else {
      return "must not contain spaces or control characters"
    }
    let lower = url.lowercased()
    let scheme = lower.hasPrefix("https://") ? "https://" : lower.hasPrefix("http://") ? "http://" : nil
    guard let scheme else { return "must start with https:// or http://" }
    let rest = url.dropFirst(scheme.count)
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    if authority.contains("@") {
      return "must not hold a user name or password (USER:PASSWORD@HOST); accounts keeps passwords in the keyring"
    }
    if rest.contains("?") || rest.contains("#") { return "must not have a query (?...) or a fragment (#...)" }
    var host = authority[...]
    var port: Substring?
    if host.hasPrefix("[") {  // [IPv6]:port
      guard let close = host.firstIndex(of: "]") else { return "has an unterminated [IPv6] address" }
      let after = host[host.index(after: close)...]
      host = host[...close]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return "has text after its [IPv6] address" }
        port = after.dropFirst()
      }
    } else if let colon = host.lastIndex(of: ":") {
      port = host[host.index(after: colon)...]
      host = host[..<colon]
    }
    guard host.count > (host.hasPrefix("[") ? 2 : 0) else { return "has no host" }
    if !host.unicodeScalars.allSatisfy(\.isASCII) {
      // curl and the adapters take the host as bytes; a resolver would not find this one.
      let refusal = "has a non-ASCII host '\(host)'"
      switch hostNames?.asciiHost(String(host)) {
      case .success(let ascii):
        return refusal + "; write it in its ASCII (IDNA) form: \(scheme)\(ascii)\(url.dropFirst(scheme.count + host.count))"
      case .failure(.invalid(let why)):
        return refusal + " that is no valid international host name (\(why)); check its spelling"
      case .failure(.unavailable(let why)):
        return refusal + "; write it in its ASCII (IDNA, xn--) form (no suggestion: \(why))"
      case nil:
        return refusal + "; write it in its ASCII (IDNA, xn--) form"
      }
    }
    if !host.hasPrefix("["), host.contains(":") {
      return "has an invalid port '\(Names.printable(String(authority.drop { $0 != ":" }.dropFirst()), limit: 20))' (1 to 65535)"
    }
    if let port {
      guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
        let number = Int(port), (1...65535).contains(number)
      else { return "has an invalid port '\(Names.printable(String(port), limit: 20))' (1 to 65535)" }
    }
    return nil
  }
}
