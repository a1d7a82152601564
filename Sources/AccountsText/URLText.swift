/// URLs in messages: no user info and no query string or fragment, which may carry a password
/// (a GET login puts it in the query, and a redirect may repeat it). The host and the built-in
/// adapters both print URLs, so the rule lives here, in a module both can use.
public enum URLText {
  /// `url` without `user:password@`, `?query` and `#fragment`.
  public static func withoutSecrets(_ url: String) -> String {
    var text = Substring(url)
    if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<query] }
    if let schemeEnd = end(of: "://", in: text) {
      let rest = text[schemeEnd...]
      let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
      if let at = rest[..<hostEnd].lastIndex(of: "@") {
        text = text[..<schemeEnd] + rest[rest.index(after: at)...]
      }
    }
    return String(text)
  }

  /// Where the first `marker` in `text` ends (no regex module: see Package.swift).
  private static func end(of marker: String, in text: Substring) -> Substring.Index? {
    var start = text.startIndex
    while start < text.endIndex {
      if text[start...].hasPrefix(marker) { return text.index(start, offsetBy: marker.count) }
      start = text.index(after: start)
    }
    return nil
  }
}
