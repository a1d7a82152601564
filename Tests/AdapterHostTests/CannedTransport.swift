import Synchronization

@testable import AdapterHost

/// Answers every request with the same reply and remembers what was asked.
final class CannedTransport: HTTPTransport, @unchecked Sendable {
  let reply: HTTPResponse
  private let seen = Mutex<[HTTPRequest]>([])

  init(status: Int32 = 200, body: String = "{}") {
    reply = HTTPResponse(status: status, headers: [], body: Array(body.utf8))
  }

  var requests: [HTTPRequest] { seen.withLock { $0 } }

  func perform(_ request: HTTPRequest, timeout: Double, responseLimit: Int) throws(TransportError) -> HTTPResponse {
    seen.withLock { $0.append(request) }
    return reply
  }
}
