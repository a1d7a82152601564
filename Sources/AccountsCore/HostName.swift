import AccountsText

/// Host names as URLs and git write them, compared the way hosts are: without case and without
/// a final dot.
public enum HostName {
  /// The host of an authority, `HOST`, `HOST:PORT`, `[IPv6]:PORT` or `USER@HOST...` (as in a URL
  /// and git's `host=`), in lower case without a final dot; nil when it names none
  /// (`URLHost`, the rule the adapters share).
  public static func of(authority: Substring) -> String? {
    URLHost.of(authority: authority)
  }

  /// The host a browser would send `url` to, read as the WHATWG URL standard reads an http(s)
  /// URL: `[SCHEME:]//[USER@]HOST[:PORT][/...]`, where `\` ends the authority as `/` does and
  /// any number of slashes (either way) may follow the scheme. Also `//HOST/...` (a
  /// protocol-relative URL) and `HOST[:PORT][/...]`, as people write a site into a password
  /// manager. Nil for any other scheme (`mailto:bob@corp.example`, `androidapp://...`: no site
  /// to route by) and for a URL without a host.
  public static func of(url: String) -> String? {
    let rest = url.drop { $0 == " " || $0 == "\t" }
    var authority = rest[...]
    let scheme = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    if scheme.first?.isLetter == true, rest[scheme.endIndex...].hasPrefix(":") {
      let afterColon = rest[scheme.endIndex...].dropFirst()
      let lower = scheme.lowercased()
      if lower == "http" || lower == "https" {
        authority = afterColon
      } else if !isPort(afterColon.prefix { !authorityEnds.contains($0) }) {
        return nil  // another scheme; `corp.example:8443/x` is a host and its port
      }
    }
    authority = authority.drop { $0 == "/" || $0 == "\\" }
    return of(authority: authority.prefix { !authorityEnds.contains($0) })
  }

  /// What ends a URL's authority (a special scheme's: `\` as `/`), and the blanks a password
  /// manager's field may have after it.
  private static let authorityEnds: Set<Character> = ["/", "\\", "?", "#", " ", "\t"]

  private static func isPort(_ text: Substring) -> Bool {
    !text.isEmpty && text.count <= 5 && text.allSatisfy { $0.isASCII && $0.isNumber }
  }

  /// Whether `host` (as `of` gives it) is this machine's: `localhost`, 127.0.0.0/8 or `[::1]`.
  /// What goes there never crosses a network, so a token may go over plain http.
  public static func isLoopback(_ host: String) -> Bool {
    URLHost.isLoopback(host)
  }
}
