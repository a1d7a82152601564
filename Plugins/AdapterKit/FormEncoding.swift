import AccountsText
import SecretMemory

/// One field of a form body or query string. The value is secret bytes because it may be a
/// password or a proof derived from one.
public struct FormField: Equatable, Sendable {
  public var name: String
  public var value: SecretBytes

  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = SecretBytes(Array(value.utf8))
  }

  public init(_ name: String, secret value: SecretBytes) {
    self.name = name
    self.value = value
  }
}

/// `application/x-www-form-urlencoded`, as the backends read it: UTF-8, every byte but the
/// RFC 3986 unreserved ones (`A-Z a-z 0-9 - . _ ~`) percent-encoded with uppercase hex, a space
/// as `%20` (not `+`, which some backends decode and some do not).
public enum FormEncoding {
  /// The Content-Type header of a form body.
  public static let contentType = Pair("Content-Type", "application/x-www-form-urlencoded")

  /// `name=value&name=value`, in the fields' order, written straight into one secret buffer.
  public static func encode(_ fields: [FormField]) -> SecretBytes {
    var count = max(fields.count - 1, 0) + fields.count
    for field in fields {
      count += escapedCount(field.name) + escapedCount(field.value)
    }
    return SecretBytes(count: count) { buffer in
      var offset = 0
      for (index, field) in fields.enumerated() {
        if index > 0 { write(UInt8(ascii: "&"), to: buffer, at: &offset) }
        escape(field.name, to: buffer, at: &offset)
        write(UInt8(ascii: "="), to: buffer, at: &offset)
        escape(field.value, to: buffer, at: &offset)
      }
    }
  }

  /// `bytes` percent-encoded as in a form, for values that are not secret.
  public static func escape(_ bytes: some ByteSource) -> String {
    String(decoding: escaped(bytes).unprotectedBytes, as: UTF8.self)
  }

  /// `bytes` percent-encoded as in a form, into secret bytes (e.g. a client secret before it
  /// goes into HTTP Basic authentication, RFC 6749 §2.3.1).
  public static func escaped(_ bytes: some ByteSource) -> SecretBytes {
    SecretBytes(count: escapedCount(bytes)) { buffer in
      var offset = 0
      escape(bytes, to: buffer, at: &offset)
    }
  }

  /// Whether `byte` is an RFC 3986 unreserved character.
  public static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "_"), UInt8(ascii: "~"):
      true
    default:
      false
    }
  }

  static func escapedCount(_ bytes: some ByteSource) -> Int {
    bytes.withBytes { source in
      source.reduce(0) { $0 + (isUnreserved($1) ? 1 : 3) }
    }
  }

  private static func escape(
    _ bytes: some ByteSource, to buffer: UnsafeMutableRawBufferPointer, at offset: inout Int
  ) {
    bytes.withBytes { source in
      for byte in source {
        if isUnreserved(byte) {
          write(byte, to: buffer, at: &offset)
        } else {
          write(UInt8(ascii: "%"), to: buffer, at: &offset)
          write(Hex.upperDigits[Int(byte >> 4)], to: buffer, at: &offset)
          write(Hex.upperDigits[Int(byte & 0x0F)], to: buffer, at: &offset)
        }
      }
    }
  }

  private static func write(
    _ byte: UInt8, to buffer: UnsafeMutableRawBufferPointer, at offset: inout Int
  ) {
    buffer[offset] = byte
    offset += 1
  }
}

/// URLs from `base_url` and paths.
public enum URLBuilder {
  /// `base_url` checked (http:// or https://, something after the scheme, no spaces, control
  /// or non-ASCII characters, no query or fragment) and without its trailing slashes.
  public static func checkedBase(_ value: String, setting: String) throws(AdapterError) -> String {
    trimming(
      try checked(value, setting: setting, example: "https://id.example.com/api"),
      trailing: UInt8(ascii: "/"))
  }

  /// `value` checked as `checkedBase` checks it, but kept as it is (an endpoint's trailing
  /// slash may matter to its server); `example` shows a good one in the error.
  public static func checked(_ value: String, setting: String, example: String)
    throws(AdapterError) -> String
  {
    guard isAcceptable(value) else {
      throw AdapterError(
        "setting \(setting) must be an http:// or https:// URL without spaces, query or "
          + "fragment, e.g. \(example), not \(Message.quoted(URLText.withoutSecrets(value)))")
    }
    return value
  }

  /// http:// or https://, something after the scheme but slashes, no spaces, control or
  /// non-ASCII characters, no query or fragment.
  public static func isAcceptable(_ value: String) -> Bool {
    let lowercased = value.lowercased()
    let scheme =
      lowercased.hasPrefix("https://") ? 8 : lowercased.hasPrefix("http://") ? 7 : 0
    let visibleASCII = value.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    return scheme > 0 && visibleASCII
      && trimming(value, trailing: UInt8(ascii: "/")).utf8.count > scheme
      && !value.utf8.contains(UInt8(ascii: "?")) && !value.utf8.contains(UInt8(ascii: "#"))
  }

  /// Whether `url` is plain http://.
  public static func isPlainHTTP(_ url: String) -> Bool {
    url.lowercased().hasPrefix("http://")
  }

  /// `base` without trailing "/", then "/", then `path` without leading "/", with the bytes
  /// that cannot stand in a URL path (spaces, controls, non-ASCII, `#`...) percent-encoded.
  public static func join(_ base: String, _ path: String) -> String {
    let trimmedPath = String(path.drop { $0 == "/" })
    return trimming(base, trailing: UInt8(ascii: "/")) + "/" + escapedPath(trimmedPath)
  }

  /// `url` with `query` appended after "?", or after "&" when it already has a query; `url`
  /// itself when `query` is empty.
  public static func appending(query: String, to url: String) -> String {
    guard !query.isEmpty else { return url }
    return url + (url.utf8.contains(UInt8(ascii: "?")) ? "&" : "?") + query
  }

  /// Keeps unreserved characters, sub-delimiters, ":", "@", "/", "?" and "%" (so a path may be
  /// given already encoded, or carry a fixed query); encodes every other byte.
  static func escapedPath(_ path: String) -> String {
    var result = ""
    for byte in path.utf8 {
      if FormEncoding.isUnreserved(byte) || "!$&'()*+,;=:@/?%".utf8.contains(byte) {
        result.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        result += "%"
        result.unicodeScalars.append(Unicode.Scalar(Hex.upperDigits[Int(byte >> 4)]))
        result.unicodeScalars.append(Unicode.Scalar(Hex.upperDigits[Int(byte & 0x0F)]))
      }
    }
    return result
  }

  /// `url` without its final slashes ("https://id.example/o/" gives "https://id.example/o").
  public static func withoutTrailingSlashes(_ url: String) -> String {
    trimming(url, trailing: UInt8(ascii: "/"))
  }

  private static func trimming(_ text: String, trailing byte: UInt8) -> String {
    var bytes = Array(text.utf8)
    while bytes.last == byte { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
  }
}
