/// The host of a URL's authority, and whether it is this machine's. The host decides where a
/// token may go over plain http (git's remotes) and the built-in adapters where a password or
/// a token may (their endpoints): one rule for both, so it lives here.
public enum URLHost {
  /// The host of an authority, `HOST`, `HOST:PORT`, `[IPv6]:PORT` or `USER@HOST...` (as in a URL
  /// and git's `host=`), in lower case without a final dot; nil when it names none.
  public static func of(authority: Substring) -> String? {
    var host = authority[(authority.lastIndex(of: "@").map(authority.index(after:)) ?? authority.startIndex)...]
    if host.hasPrefix("[") {
      guard let close = host.firstIndex(of: "]") else { return nil }
      host = host[...close]
    } else if let colon = host.firstIndex(of: ":") {
      host = host[..<colon]
    }
    if host.hasSuffix(".") { host = host.dropLast() }
    return host.isEmpty || host == "[]" ? nil : host.lowercased()
  }

  /// Whether `host` (as `of` gives it) is this machine's: `localhost`, 127.0.0.0/8 or `[::1]`.
  /// What goes there never crosses a network, so a token may go over plain http.
  public static func isLoopback(_ host: String) -> Bool {
    if host == "localhost" || host == "[::1]" { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "127"
      && parts.allSatisfy { $0.count <= 3 && !$0.isEmpty && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
  }
}
