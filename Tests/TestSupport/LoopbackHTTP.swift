import Foundation

/// What a server of the tests answered.
public struct HTTPReply: CustomStringConvertible, Sendable {
  public let status: Int
  public let body: String

  /// The body as a JSON object (nil when it is not one).
  public var json: [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
  }

  /// The string at `key` of the JSON body.
  public subscript(key: String) -> String? { json?[key] as? String }

  public var description: String { "HTTP \(status): \(body.prefix(2_000))" }
}

public enum LoopbackHTTPError: Error, CustomStringConvertible {
  case notLoopback(String)
  case controlCharacter
  case failed(String, ProcessResult)

  public var description: String {
    switch self {
    case .notLoopback(let url): "a test's request goes to 127.0.0.1 only, not \(url)"
    case .controlCharacter: "a control character in a request's URL, header, body or credentials"
    case .failed(let url, let result): "curl could not reach \(url): \(result)"
    }
  }
}

/// HTTP requests of a test to a server on 127.0.0.1, made with curl. Everything but the URL (the
/// body, the headers, the basic credentials: passwords, client secrets, tokens) reaches curl as
/// its configuration on stdin (`--config -`), never in its argv, which every process can read.
public enum LoopbackHTTP {
  /// POSTs `form` as `user` with HTTP basic authentication when given; its Content-Type is
  /// application/x-www-form-urlencoded, exactly (oauthlib refuses a charset parameter on the
  /// device authorization endpoint), unless `headers` name another.
  public static func post(
    _ url: String, form: [String: String], user: (name: String, password: String)? = nil,
    headers: [String] = []
  ) throws -> HTTPReply {
    let typed = headers.contains { $0.lowercased().hasPrefix("content-type:") }
    let type = typed ? [] : ["Content-Type: application/x-www-form-urlencoded"]
    return try send(
      url, method: "POST", body: formEncoded(form), headers: type + headers, user: user)
  }

  /// POSTs `object` as JSON.
  public static func post(_ url: String, json object: [String: Any], headers: [String] = []) throws
    -> HTTPReply
  {
    let body = String(
      decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
      as: UTF8.self)
    return try send(
      url, method: "POST", body: body, headers: ["Content-Type: application/json"] + headers,
      user: nil)
  }

  public static func get(_ url: String, headers: [String] = []) throws -> HTTPReply {
    try send(url, method: "GET", body: nil, headers: headers, user: nil)
  }

  /// `a=1&b=2`, every byte but the unreserved ones (RFC 3986) percent-encoded; keys sorted.
  public static func formEncoded(_ form: [String: String]) -> String {
    form.sorted { $0.key < $1.key }.map { "\(percentEncoded($0.key))=\(percentEncoded($0.value))" }
      .joined(separator: "&")
  }

  private static func percentEncoded(_ text: String) -> String {
    var encoded = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
        encoded.append(Character(UnicodeScalar(byte)))
      default:
        encoded += String(format: "%%%02X", byte)
      }
    }
    return encoded
  }

  private static func send(
    _ url: String, method: String, body: String?, headers: [String],
    user: (name: String, password: String)?
  ) throws -> HTTPReply {
    guard url.hasPrefix("http://127.0.0.1:") else { throw LoopbackHTTPError.notLoopback(url) }
    var configuration = ["url = \(try quoted(url))", "request = \(try quoted(method))"]
    configuration += try headers.map { "header = \(try quoted($0))" }
    if let body { configuration.append("data-binary = \(try quoted(body))") }
    if let user { configuration.append("user = \(try quoted(user.name + ":" + user.password))") }
    let marker = "\n--http-status "
    let result = try runProcess(
      "/usr/bin/curl",
      ["-sS", "--max-time", "20", "--config", "-", "--write-out", marker + "%{http_code}"],
      environment: ["PATH": "/usr/bin:/bin"],
      standardInput: configuration.joined(separator: "\n") + "\n", timeout: 30)
    guard result.status == 0,
      let split = result.standardOutput.range(of: marker, options: .backwards),
      let status = Int(result.standardOutput[split.upperBound...])
    else { throw LoopbackHTTPError.failed(url, result) }
    return HTTPReply(status: status, body: String(result.standardOutput[..<split.lowerBound]))
  }

  /// A value of curl's configuration file: in double quotes, with \ and " escaped. Control
  /// characters, which it would read as escapes or line ends, are refused (a form body is
  /// percent-encoded, a JSON one escaped: neither has any).
  private static func quoted(_ value: String) throws -> String {
    guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
      throw LoopbackHTTPError.controlCharacter
    }
    let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
    return "\"" + escaped.replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }
}
