import AccountsContract
import CCurl
import Glibc

/// An HTTP request an adapter asked for.
public struct HTTPRequest: Sendable {
  public var method: String
  public var url: String
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]

  public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
  }
}

/// What came back.
public struct HTTPResponse: Sendable {
  public var status: Int32
  /// Names lowercased.
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]
}

public enum TransportError: Error, Equatable {
  case timedOut(seconds: Double)
  case tooLarge(limit: Int)
  case unsupportedProtocol(scheme: String)
  case failed(String)

  public var message: String {
    switch self {
    case .timedOut(let seconds): "no answer within \(DurationText.seconds(seconds))"
    case .tooLarge(let limit):
      limit >= 1 << 20 && limit % (1 << 20) == 0
        ? "the reply is larger than \(limit >> 20) MiB" : "the reply is larger than \(limit) bytes"
    case .unsupportedProtocol(let scheme): "accounts speaks only http and https, not \(scheme)"
    case .failed(let detail): detail
    }
  }
}

/// Performs the adapters' HTTP requests; tests substitute their own.
public protocol HTTPTransport: Sendable {
  func perform(_ request: HTTPRequest, timeout: Double, responseLimit: Int) throws(TransportError) -> HTTPResponse
}

/// HTTP through libcurl (loaded on the first request): http and https only, no redirects followed, no cookie engine, no
/// signals, a deadline for the whole transfer and a cap on the body. Transfers on several
/// threads at once each have their own easy handle, headers, error buffer and sink.
public struct CurlTransport: HTTPTransport {
  public init() {}

  /// Starts loading libcurl on a thread of its own, to overlap with the caller's other work;
  /// the first `perform` waits for it.
  public static func loadInBackground() { accounts_curl_load_in_background() }

  /// Proxies from the environment apply, but never to loopback: a backend on 127.0.0.1 (the
  /// test backend, an SSH tunnel) is reached directly.
  static let noProxy: String = {
    var hosts: [String] = []
    if let configured = getenv("no_proxy") ?? getenv("NO_PROXY"), configured.pointee != 0 {
      hosts.append(String(cString: configured))
    }
    return (hosts + ["localhost", "127.0.0.1", "::1"]).joined(separator: ",")
  }()

  /// An empty body still needs a valid pointer, or curl reads the fields from stdin.
  nonisolated(unsafe) private static let emptyBody: UnsafeMutableRawPointer = {
    let byte = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    byte.storeBytes(of: 0, as: UInt8.self)
    return byte
  }()

  public func perform(_ request: HTTPRequest, timeout: Double, responseLimit: Int) throws(TransportError) -> HTTPResponse {
    if let problem = accounts_curl_load() { throw .failed("cannot load libcurl: \(String(cString: problem))") }
    guard let curl = accounts_curl_easy_init() else { throw .failed("cannot start libcurl") }
    defer { accounts_curl_easy_cleanup(curl) }
    let sink = ResponseSink(limit: responseLimit)
    let context = Unmanaged.passUnretained(sink).toOpaque()
    var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    var headerList: UnsafeMutablePointer<curl_slist>?
    defer { accounts_curl_slist_free_all(headerList) }
    for header in request.headers + [("Expect", "")] {
      headerList = accounts_curl_slist_append(headerList, "\(header.0): \(header.1)")
    }
    let milliseconds = max(1, Int((timeout * 1000).rounded(.up)))
    // curl reads the caller's body in place: no copy of a password is made here.

    let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
      request.body.withUnsafeBytes { bodyBytes in
        var setup = [
          accounts_curl_set_string(curl, CURLOPT_URL, request.url),
          accounts_curl_set_pointer(curl, CURLOPT_ERRORBUFFER, errors.baseAddress),
          accounts_curl_set_long(curl, CURLOPT_NOSIGNAL, 1),
          accounts_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 0),
          accounts_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https"),
          // No redirect is followed; were one ever, it could not lead to file:// either.
          accounts_curl_set_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"),
          accounts_curl_set_long(curl, CURLOPT_TIMEOUT_MS, milliseconds),
          accounts_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, min(milliseconds, 10_000)),
          accounts_curl_set_string(curl, CURLOPT_USERAGENT, "accounts"),
          accounts_curl_set_string(curl, CURLOPT_NOPROXY, Self.noProxy),
          accounts_curl_set_pointer(curl, CURLOPT_HTTPHEADER, headerList),
          accounts_curl_set_data_callback(curl, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            ResponseSink.from(context).take(data, size * count, header: false)
          }),
          accounts_curl_set_pointer(curl, CURLOPT_WRITEDATA, context),
          accounts_curl_set_data_callback(curl, CURLOPT_HEADERFUNCTION, { data, size, count, context in
            ResponseSink.from(context).take(data, size * count, header: true)
          }),
          accounts_curl_set_pointer(curl, CURLOPT_HEADERDATA, context),
        ]
        switch request.method {
        case "GET": setup.append(accounts_curl_set_long(curl, CURLOPT_HTTPGET, 1))
        case "HEAD": setup.append(accounts_curl_set_long(curl, CURLOPT_NOBODY, 1))
        default:
          if request.method != "POST" {
            setup.append(accounts_curl_set_string(curl, CURLOPT_CUSTOMREQUEST, request.method))
          }
          setup.append(accounts_curl_set_size(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bodyBytes.count)))
          setup.append(accounts_curl_set_pointer(
            curl, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bodyBytes.baseAddress) ?? Self.emptyBody))
        }
        if let failed = setup.first(where: { $0 != CURLE_OK }) { return failed }
        return accounts_curl_easy_perform(curl)
      }
    }
    switch code {
    case CURLE_OK: break
    case CURLE_WRITE_ERROR where sink.exceeded: throw .tooLarge(limit: responseLimit)
    case CURLE_OPERATION_TIMEDOUT: throw .timedOut(seconds: timeout)
    case CURLE_UNSUPPORTED_PROTOCOL:
      throw .unsupportedProtocol(scheme: String(request.url.prefix { $0 != ":" }.prefix(16)))
    default:
      let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      throw .failed(detail.isEmpty ? String(cString: accounts_curl_easy_strerror(code)) : detail)
    }
    var status = 0
    _ = accounts_curl_response_code(curl, &status)
    return HTTPResponse(status: Int32(truncatingIfNeeded: status), headers: sink.headers, body: sink.body)
  }
}

/// Collects one response: the body up to its limit, and the headers of the final response.
private final class ResponseSink {
  let limit: Int
  var body: [UInt8] = []
  var headers: [(name: String, value: String)] = []
  var exceeded = false

  init(limit: Int) { self.limit = limit }

  static func from(_ context: UnsafeMutableRawPointer?) -> ResponseSink {
    Unmanaged<ResponseSink>.fromOpaque(context!).takeUnretainedValue()
  }

  /// Returns the count taken; anything else makes curl stop with CURLE_WRITE_ERROR.
  func take(_ data: UnsafeMutablePointer<CChar>?, _ count: Int, header: Bool) -> Int {
    guard let data, count > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    if header {
      let line = String(decoding: bytes, as: UTF8.self)
      if line.hasPrefix("HTTP/") {
        headers = []  // a new response (after 100 Continue): only the last one's headers count
      } else if let colon = line.firstIndex(of: ":"), headers.count < 200 {
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters()
        headers.append((name, value))
      }
      return count
    }
    guard body.count + count <= limit else {
      exceeded = true
      return 0
    }
    body.append(contentsOf: bytes)
    return count
  }
}

extension Substring {
  /// Without leading and trailing spaces, tabs, CR and LF.
  func trimmingCharacters() -> String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
    guard let first = firstIndex(where: { !blank($0) }) else { return "" }
    let last = lastIndex(where: { !blank($0) })!
    return String(self[first...last])
  }
}
