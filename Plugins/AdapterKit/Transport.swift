import AccountsText

/// Where an adapter may send credentials (a password, a client secret, a token): over https,
/// or over plain http to this machine (localhost, 127.0.0.0/8, [::1]), where nothing crosses a
/// network; anywhere only with the `allow_insecure_transport` setting (a test server).
public struct TransportPolicy: Sendable {
  /// `allow_insecure_transport`.
  public static let settingName = "allow_insecure_transport"

  public let allowsInsecure: Bool

  public init(allowsInsecure: Bool) {
    self.allowsInsecure = allowsInsecure
  }

  /// The policy the backend's `allow_insecure_transport` setting (true or false) asks for.
  public init(_ settings: Settings) throws(AdapterError) {
    allowsInsecure = try settings.flag(Self.settingName)
  }

  /// Whether credentials may go to `url`, an http:// or https:// URL.
  public func permits(_ url: String) -> Bool {
    allowsInsecure || !URLBuilder.isPlainHTTP(url) || Self.isLoopback(url)
  }

  /// The error for `url`, which `permits` refuses; `what` names where it came from, e.g.
  /// "setting token_endpoint".
  public func refusal(_ url: String, what: String) -> AdapterError {
    let host = Self.authority(url).flatMap { URLHost.of(authority: Substring($0)) } ?? "?"
    return AdapterError(
      "\(what) is plain http:// to \(Message.quoted(host)), which is not this machine; use "
        + "https://, or set \(Self.settingName)=true for a test server")
  }

  /// Whether plain http to `url` stays on this machine. An authority with user info or a
  /// backslash is not taken for loopback: URL parsers disagree on where its host is.
  static func isLoopback(_ url: String) -> Bool {
    guard let authority = authority(url),
      !authority.contains("@"), !authority.contains("\\"),
      let host = URLHost.of(authority: Substring(authority))
    else { return false }
    return URLHost.isLoopback(host)
  }

  /// What follows `scheme://` up to the path.
  private static func authority(_ url: String) -> String? {
    guard let colon = url.firstIndex(of: ":") else { return nil }
    let rest = url[url.index(after: colon)...]
    guard rest.hasPrefix("//") else { return nil }
    return String(rest.dropFirst(2).prefix { $0 != "/" })
  }
}
