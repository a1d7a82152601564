import AccountsContract
import AccountsSystem
import AccountsText
import CAccountsAdapter
import SecretMemory

/// An adapter broke the ABI: a malformed request or output. Exit 9, naming the adapter.
struct AdapterFault: Error {
  var message: String
}

/// Reads what a step wrote into `acc_step_output`, trusting nothing: every string is bounded
/// and checked, every request field validated before it reaches libcurl.
struct OutputReader {
  let output: acc_step_output
  let limits: AdapterLimits
  let adapter: String
  /// The minor ABI version the adapter was built against: fields it cannot know are not read.
  var minor: UInt32 = 0

  static let maxHeaders = 64
  static let maxSessionValues = 32

  func request() throws(AdapterFault) -> HTTPRequest {
    let method = try text(output.request.method, "request method", limit: 16)
    guard !method.isEmpty, method.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) else {
      throw fault("sent a request with method '\(Names.printable(method))'; use an uppercase HTTP method")
    }
    let url = try text(output.request.url, "request URL", limit: limits.string)
    guard url.hasPrefix("http://") || url.hasPrefix("https://"),
      url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
    else {
      throw fault("sent a request to '\(Names.printable(URLText.withoutSecrets(url)))', which is not an absolute http(s) URL without spaces")
    }
    let headers = try pairs(output.request.headers, "request headers", limit: Self.maxHeaders)
    for header in headers {
      guard !header.0.isEmpty, header.0.utf8.allSatisfy(Self.isTokenByte) else {
        throw fault("sent a header named '\(Names.printable(header.0))', which is not a valid header name")
      }
      guard !header.1.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
        throw fault("sent header \(header.0) with a line break in its value")
      }
    }
    let body = try bytes(output.request.body, "request body", limit: limits.string)
    return HTTPRequest(method: method, url: url, headers: headers.map { ($0.0, $0.1) }, body: body)
  }

  /// The outcome of a final result code; a successful LOGIN's carries the token.
  func outcome(_ result: Int32) throws(AdapterFault) -> AdapterOutcome {
    let message = Names.printable(try text(output.message, "message", limit: limits.string), limit: 400)
    switch result {
    case ACC_STEP_OK:
      let token = try secretToken(output.token, "token")
      let refreshToken = minor >= 3 ? try secretToken(output.refresh_token, "refresh token") : nil
      var values: [String: String] = [:]
      for (name, value) in try pairs(output.session_values, "session values", limit: Self.maxSessionValues) {
        guard !name.isEmpty, name.count <= 64, name.utf8.allSatisfy(Self.isValueNameByte) else {
          throw fault("returned a session value named '\(Names.printable(name))'; names are [A-Za-z0-9_]")
        }
        guard value.utf8.count <= 1024, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
          throw fault("returned session value \(name) longer than 1024 bytes or with control characters")
        }
        values[name] = value
      }
      var body: String?
      if output.body.length > 0 {
        body = String(decoding: try bytes(output.body, "body", limit: limits.response), as: UTF8.self)
      }
      return .ok(AdapterSuccess(
        token: token, expiresIn: max(0, output.expires_in), sessionValues: values, body: body, message: message,
        refreshToken: refreshToken))
    case ACC_STEP_WRONG_PASSWORD:
      return .wrongPassword(message: message.isEmpty ? "the backend rejected the user name or password" : message)
    case ACC_STEP_SESSION_EXPIRED:
      return .sessionExpired(message: message.isEmpty ? "the session expired" : message)
    case ACC_STEP_KICKED:
      return .kicked(message: message.isEmpty ? "signed in elsewhere" : message)
    case ACC_STEP_UPGRADE_REQUIRED:
      let link = Names.printable(try text(output.link, "link", limit: 2048), limit: 2048)
      return .upgradeRequired(message: message.isEmpty ? "the backend requires a newer client" : message, link: link)
    case ACC_STEP_ERROR:
      return .backendError(message: message.isEmpty ? "adapter \(adapter) failed without saying why" : message)
    default:
      throw fault("returned the unknown result code \(result)")
    }
  }

  /// A token or refresh token: printable ASCII without spaces, or nil when empty.
  private func secretToken(_ string: acc_string, _ what: String) throws(AdapterFault) -> SecretBytes? {
    guard string.length > 0 else { return nil }
    var tokenBytes = try bytes(string, what, limit: limits.string)
    guard tokenBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      tokenBytes.withUnsafeMutableBytes { wipe($0) }
      throw fault("returned a \(what) with spaces, control characters or non-ASCII bytes")
    }
    return SecretBytes(consuming: &tokenBytes)
  }

  /// What a SHOW asks the host to show a person (ABI 1.3): printable text only, bounded.
  func personMessage(account: String) throws(AdapterFault) -> PersonMessage {
    let text = Names.printable(try self.text(output.message, "message", limit: limits.string), limit: 400)
    let link = try self.text(output.link, "link", limit: 2048)
    guard !text.isEmpty else { throw fault("asked to show a person an empty message") }
    guard link.isEmpty || (link.hasPrefix("https://") || link.hasPrefix("http://")) && link.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw fault("asked to show a person the link '\(Names.printable(link, limit: 200))', which is not an http(s) URL")
    }
    guard (1...Self.longestPersonWait).contains(output.expires_in) else {
      throw fault("asked a person to act within \(output.expires_in) s; give 1 to \(Self.longestPersonWait)")
    }
    return PersonMessage(account: account, text: text, link: link, expiresIn: output.expires_in)
  }

  /// The most seconds a person may be given (ACC_STEP_SHOW).
  static let longestPersonWait: Int64 = 3600
  /// The longest pause before a SEND (delay_ms).
  static let longestDelay: UInt32 = 60_000

  /// Milliseconds to wait before a SEND (ABI 1.3's delay_ms); 0 for older adapters.
  func delayMilliseconds() throws(AdapterFault) -> UInt32 {
    guard minor >= 3 else { return 0 }
    guard output.delay_ms <= Self.longestDelay else {
      throw fault("asked to wait \(output.delay_ms) ms before a request; at most \(Self.longestDelay)")
    }
    return output.delay_ms
  }

  private func fault(_ text: String) -> AdapterFault {
    AdapterFault(message: "adapter \(adapter) \(text)")
  }

  private func bytes(_ string: acc_string, _ what: String, limit: Int) throws(AdapterFault) -> [UInt8] {
    switch AdapterText.bytes(string, limit: limit) {
    case .success(let buffer): return Array(buffer)
    case .failure(let problem): throw fault("returned a \(what) that is \(problem)")
    }
  }

  private func text(_ string: acc_string, _ what: String, limit: Int) throws(AdapterFault) -> String {
    switch AdapterText.read(string, limit: limit) {
    case .success(let text): return text
    case .failure(let problem): throw fault("returned a \(what) that is \(problem)")
    }
  }

  private func pairs(_ list: acc_pairs, _ what: String, limit: Int) throws(AdapterFault) -> [(String, String)] {
    guard list.count > 0 else { return [] }
    guard list.count <= limit else { throw fault("returned \(list.count) \(what) (at most \(limit))") }
    guard let items = list.items else { throw fault("returned \(what) with a NULL list") }
    var result: [(String, String)] = []
    for index in 0..<list.count {
      result.append((
        try text(items[index].name, "name in \(what)", limit: 256),
        try text(items[index].value, "value in \(what)", limit: limits.string)))
    }
    return result
  }

  /// RFC 9110 token characters.
  static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }

  static func isValueNameByte(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
  }
}
