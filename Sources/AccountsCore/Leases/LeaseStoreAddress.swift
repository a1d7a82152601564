import AccountsContract
import AccountsSystem

/// Where leases are kept: this machine (the default) or a shared Redis, as written in
/// ACCOUNTS_LEASE_STORE or a backend's `lease_store` setting.
///
/// `redis://[USER@]HOST[:PORT][/DB]` or `unix:///PATH` (a Redis unix socket); `local` names this
/// machine's store. A Redis password is never part of the address: it is the backend's secret
/// setting `lease_store_password`, kept in the Secret Service.
public enum LeaseStoreAddress: Equatable, Sendable, CustomStringConvertible {
  case local
  case redis(RedisAddress)

  /// The address in `text`, or a usage error that says what to write instead.
  public static func parse(_ text: String) throws(CommandError) -> LeaseStoreAddress {
    if text == "local" { return .local }
    if let problem = problem(text) {
      throw .usage("lease store '\(shown(text))' \(problem)", fix: fix(for: text))
    }
    return .redis(RedisAddress.parse(text)!)
  }

  /// Why `text` is not a lease store address, or nil when it is one (for `backend set`).
  public static func problem(_ text: String) -> String? {
    if text == "local" { return nil }
    let lower = text.lowercased()
    if lower.hasPrefix("rediss://") {
      return "uses TLS, which the hiredis of Debian stable cannot speak"
    }
    guard lower.hasPrefix("redis://") || lower.hasPrefix("unix://") else {
      return "is not redis://[USER@]HOST[:PORT][/DB], unix:///PATH or local"
    }
    // Before the rest: "redis://ci:pa/ss@host" is a password, not a bad port.
    if RedisAddress.hasPassword(text) { return "holds a password, which is never written in the address" }
    return RedisAddress.problem(text)
  }

  /// `text` as an error shows it: printable, cut, and a password written in it (USER:PASSWORD@)
  /// replaced by `***`, however malformed the rest.
  public static func shown(_ text: String) -> String {
    guard let userInfo = RedisAddress.passwordUserInfo(text) else { return Names.printable(text, limit: 60) }
    let redacted = text[..<userInfo.lowerBound] + "***" + text[userInfo.upperBound...]
    return Names.printable(String(redacted), limit: 60)
  }

  /// What to write instead of `text`, which `problem` refused.
  public static func fix(for text: String) -> String {
    let lower = text.lowercased()
    if lower.hasPrefix("rediss://") {
      return "reach Redis through a TLS tunnel (stunnel, spiped, ssh -L) and give redis://127.0.0.1:PORT"
    }
    if RedisAddress.hasPassword(text) {
      return "drop the password from the address and keep it in the keyring: "
        + "`accounts backend set NAME --secret-stdin lease_store_password`"
    }
    return "e.g. redis://ci-redis:6379/2, redis://USER@HOST:PORT/DB or unix:///run/redis/redis.sock"
  }

  public var description: String {
    switch self {
    case .local: "local"
    case .redis(let address): address.description
    }
  }
}

/// A Redis server: TCP host and port, or a unix socket; the database; an ACL user.
public struct RedisAddress: Hashable, Sendable, CustomStringConvertible {
  public enum Endpoint: Hashable, Sendable {
    case tcp(host: String, port: Int)
    case unixSocket(path: String)
  }

  public var endpoint: Endpoint
  public var database: Int
  /// The ACL user (Redis 6 and later) the password belongs to; nil for the default user.
  public var user: String?

  public init(endpoint: Endpoint, database: Int = 0, user: String? = nil) {
    self.endpoint = endpoint
    self.database = database
    self.user = user
  }

  public static let defaultPort = 6379

  /// The address as users write it, with nothing secret in it (there never is).
  public var description: String {
    switch endpoint {
    case .tcp(let host, let port):
      let shownHost = host.contains(":") ? "[\(host)]" : host
      return "redis://\(user.map { $0 + "@" } ?? "")\(shownHost):\(port)" + (database == 0 ? "" : "/\(database)")
    case .unixSocket(let path):
      return "unix://\(path)" + (database == 0 ? "" : "?db=\(database)")
    }
  }

  static func hasPassword(_ text: String) -> Bool { passwordUserInfo(text) != nil }

  /// Where `text` holds USER:PASSWORD before an `@`: everything after the scheme up to its last
  /// `@`, since a password may hold `/`, `?`, `#` or `@` (a unix socket's path after `://` is
  /// no user information). Nil when there is no `:` in it.
  static func passwordUserInfo(_ text: String) -> Range<String.Index>? {
    var start = text.startIndex
    if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") { start = text.index(colon, offsetBy: 3) }
    guard !text[start...].hasPrefix("/"), let at = text[start...].lastIndex(of: "@"), text[start..<at].contains(":")
    else { return nil }
    return start..<at
  }

  static func problem(_ text: String) -> String? { parseOrProblem(text).problem }

  static func parse(_ text: String) -> RedisAddress? { parseOrProblem(text).address }

  private static func parseOrProblem(_ text: String) -> (address: RedisAddress?, problem: String?) {
    func fail(_ problem: String) -> (RedisAddress?, String?) { (nil, problem) }
    guard text.utf8.count <= 1024, text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
      return fail("must be printable ASCII without spaces, at most 1024 characters")
    }
    let lower = text.lowercased()
    if lower.hasPrefix("unix://") {
      var rest = Substring(text.dropFirst("unix://".count))
      var database = 0
      if let question = rest.firstIndex(of: "?") {
        let query = rest[rest.index(after: question)...]
        guard query.hasPrefix("db="), let number = Int(query.dropFirst(3)), (0...100_000).contains(number),
          query.dropFirst(3).allSatisfy(\.isNumber)
        else { return fail("may end only in ?db=N") }
        database = number
        rest = rest[..<question]
      }
      guard rest.hasPrefix("/"), rest.count > 1, rest.utf8.count < 108 else {
        return fail("must name the socket's absolute path (unix:///run/redis/redis.sock), shorter than 108 bytes")
      }
      return (RedisAddress(endpoint: .unixSocket(path: String(rest)), database: database), nil)
    }
    var rest = Substring(text.dropFirst("redis://".count))
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
    var authority = rest[..<authorityEnd]
    rest = rest[authorityEnd...]
    var user: String?
    if let at = authority.lastIndex(of: "@") {
      let userPart = authority[..<at]
      if userPart.contains(":") { return fail("holds a password, which is never written in the address") }
      guard !userPart.isEmpty, userPart.utf8.count <= 128,
        userPart.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) })
      else { return fail("has a user name other than letters, digits, '-', '_' and '.'") }
      user = String(userPart)
      authority = authority[authority.index(after: at)...]
    }
    var host = authority
    var portText: Substring?
    if host.hasPrefix("[") {
      guard let close = host.firstIndex(of: "]") else { return fail("has an unterminated [IPv6] address") }
      let after = host[host.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return fail("has text after its [IPv6] address") }
        portText = after.dropFirst()
      }
      host = host[host.index(after: host.startIndex)..<close]
      guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
        return fail("has an invalid IPv6 address")
      }
    } else {
      if let colon = host.lastIndex(of: ":") {
        portText = host[host.index(after: colon)...]
        host = host[..<colon]
      }
      guard !host.isEmpty, host.utf8.count <= 253,
        host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
      else { return fail("has no host, or a host other than a name or an address") }
    }
    var port = defaultPort
    if let portText {
      guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isNumber), let number = Int(portText),
        (1...65535).contains(number)
      else { return fail("has an invalid port (1 to 65535)") }
      port = number
    }
    var database = 0
    if !rest.isEmpty {
      guard rest.hasPrefix("/") else { return fail("may have only /DB after the host") }
      let number = rest.dropFirst()
      if !number.isEmpty {
        guard number.count <= 6, number.allSatisfy(\.isNumber), let value = Int(number) else {
          return fail("has a database other than a number (/0, /2, ...)")
        }
        database = value
      }
    }
    return (RedisAddress(endpoint: .tcp(host: String(host), port: port), database: database, user: user), nil)
  }
}

/// The key prefix of a backend's accounts in a shared lease store (its `lease_prefix` setting):
/// backends that share one name one pool.
public enum LeasePrefix {
  /// `accounts:lease:BACKEND`
  public static func defaultPrefix(backend: String) -> String { "accounts:lease:" + backend }

  /// Why `prefix` cannot be a `lease_prefix`, or nil when it can.
  public static func prefixProblem(_ prefix: String) -> String? {
    guard (1...200).contains(prefix.utf8.count), prefix.utf8.allSatisfy({ (0x21..<0x7F).contains($0) }) else {
      return "must be 1 to 200 printable ASCII characters without spaces"
    }
    return nil
  }
}
