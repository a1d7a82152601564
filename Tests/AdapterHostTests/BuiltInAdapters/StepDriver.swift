import AccountsSystem
import CAccountsAdapter
import Foundation
import SecretMemory
import Testing
import TestSupport

@testable import AdapterHost

/// The clock the step driver's host lends, per test (a task-local value, so tests running at
/// once each keep their own): 2017-12-09 13:39:39 UTC unless a test sets it.
enum StepClock {
  @TaskLocal static var now: Int64 = 1_512_826_779
}

/// A host whose clock is `StepClock.now`; no randomness, digests or logs (oauth2 uses none).
nonisolated(unsafe) let steppedHost: UnsafePointer<acc_host> = {
  let host = UnsafeMutablePointer<acc_host>.allocate(capacity: 1)
  host.initialize(to: acc_host(
    size: UInt32(MemoryLayout<acc_host>.size), now: { StepClock.now }, local_utc_offset: { _ in 0 },
    random_bytes: nil, digest: nil, hmac: nil, log: { _, _ in }))
  return UnsafePointer(host)
}()

/// One step's result as the adapter wrote it into acc_step_output.
enum Step: Equatable, CustomStringConvertible {
  case send(Sent)
  case ok(Done)
  case show(message: String, link: String, expiresIn: Int64)
  case wrongPassword(String)
  case sessionExpired(String)
  case error(String)
  case other(code: Int32, message: String)

  var description: String {
    switch self {
    case .send(let sent): "SEND \(sent.method) \(sent.url) \(sent.headers) \(sent.body) after \(sent.delay) ms"
    case .ok(let done): "OK \(done)"
    case .show(let message, let link, let expiresIn): "SHOW \(message) \(link) \(expiresIn)"
    case .wrongPassword(let message): "WRONG_PASSWORD \(message)"
    case .sessionExpired(let message): "SESSION_EXPIRED \(message)"
    case .error(let message): "ERROR \(message)"
    case .other(let code, let message): "code \(code) \(message)"
    }
  }

  /// The request of a SEND, or nil.
  var sent: Sent? {
    if case .send(let sent) = self { return sent }
    return nil
  }
}

/// A request the adapter asked the host to send.
struct Sent: Equatable {
  var method: String
  var url: String
  var headers: [String: String]
  var body: String
  var delay: UInt32

  /// The form body's fields, decoded, in order.
  var form: [String] {
    body.split(separator: "&").map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "?" }
  }

  /// The id and secret of its HTTP Basic authorization, each form-decoded, or nil.
  var basic: (id: String, secret: String)? {
    guard let value = headers["Authorization"], value.hasPrefix("Basic "),
      let data = Data(base64Encoded: String(value.dropFirst(6))), let pair = String(data: data, encoding: .utf8),
      let colon = pair.firstIndex(of: ":")
    else { return nil }
    return (String(pair[..<colon]).removingPercentEncoding ?? "?", String(pair[pair.index(after: colon)...]).removingPercentEncoding ?? "?")
  }
}

/// What an OK carried.
struct Done: Equatable {
  var token = ""
  var expiresIn: Int64 = 0
  var sessionValues: [String: String] = [:]
  var refreshToken = ""
  var body = ""
  var message = ""
}

/// Drives a built-in adapter's .so the way the host does, one step at a time, with the answers
/// a test gives: every operation and result of ABI 1.3 (REFRESH, SHOW, delays), with any
/// response, and a look at each request.
final class StepDriver {
  struct Operation {
    var code: Int32
    var user = "alice"
    var password = ""
    var token = ""
    var refreshToken = ""
    var sessionValues: [String: String] = [:]
    var method = ""
    var path = ""
    var parameters: [(String, String)] = []

    static func login(user: String = "alice", password: String = "pw 1&2") -> Operation {
      Operation(code: ACC_OP_LOGIN, user: user, password: password)
    }
    static func refresh(_ refreshToken: String, sessionValues: [String: String] = [:]) -> Operation {
      Operation(code: ACC_OP_REFRESH, refreshToken: refreshToken, sessionValues: sessionValues)
    }
    static func check(token: String = "at-1", sessionValues: [String: String] = [:]) -> Operation {
      Operation(code: ACC_OP_CHECK, token: token, sessionValues: sessionValues)
    }
    static func logout(token: String = "at-1", refreshToken: String = "", sessionValues: [String: String] = [:])
      -> Operation
    {
      Operation(code: ACC_OP_LOGOUT, token: token, refreshToken: refreshToken, sessionValues: sessionValues)
    }
    static func call(_ method: String, _ path: String, _ parameters: [(String, String)] = [], token: String = "at-1")
      -> Operation
    {
      Operation(code: ACC_OP_CALL, token: token, method: method, path: path, parameters: parameters)
    }
    static let validate = Operation(code: ACC_OP_VALIDATE, user: "")
  }

  let adapter: LoadedAdapter
  private let arena = CArena()
  private var responseArena = CArena()
  private let session: UnsafeMutableRawPointer?
  private let output = UnsafeMutablePointer<acc_step_output>.allocate(capacity: 1)
  private let response = UnsafeMutablePointer<acc_response>.allocate(capacity: 1)

  static func load(_ name: String) throws -> LoadedAdapter {
    try AdapterLoader.load(PackagePaths.products.appendingPathComponent("lib\(name).so").path, name: name).get()
  }

  /// A session of `operation` with `settings` (secret ones too, as the host hands them over).
  init(_ operation: Operation, settings: [String: String], adapter name: String = "oauth2") throws {
    let adapter = try Self.load(name)
    self.adapter = adapter
    let arena = arena
    let config = acc_session_config(
      size: UInt32(MemoryLayout<acc_session_config>.size), operation: operation.code,
      settings: arena.pairs(settings.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
      user: arena.string(operation.user), password: arena.string(operation.password),
      token: arena.string(operation.token),
      session_values: arena.pairs(operation.sessionValues.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
      method: arena.string(operation.method), path: arena.string(operation.path),
      parameters: arena.pairs(operation.parameters), host: steppedHost, one_time_code: arena.string(""),
      refresh_token: arena.string(operation.refreshToken))
    session = withUnsafePointer(to: config) { adapter.sessionNew($0) }
  }

  deinit {
    adapter.sessionFree(session)
    output.deallocate()
    response.deallocate()
  }

  /// The first step.
  func start() -> Step { step(nil) }

  /// The driver after its first step, for a test of what comes of the answer to it.
  func started() -> StepDriver {
    _ = start()
    return self
  }

  /// The step after a SHOW: no response.
  func afterShowing() -> Step { step(nil) }

  /// The next step, given the answer to the last SEND.
  func answer(_ status: Int32, _ body: String = "", headers: [String: String] = [:]) -> Step {
    responseArena = CArena()
    response.initialize(to: acc_response(
      size: UInt32(MemoryLayout<acc_response>.size), status: status,
      headers: responseArena.pairs(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
      body: responseArena.string(body)))
    return step(UnsafePointer(response))
  }

  /// A JSON answer, status 200 unless given.
  func json(_ body: String, status: Int32 = 200) -> Step {
    answer(status, body, headers: ["content-type": "application/json"])
  }

  private func step(_ given: UnsafePointer<acc_response>?) -> Step {
    output.initialize(to: acc_step_output())
    output.pointee.size = UInt32(MemoryLayout<acc_step_output>.size)
    let code = adapter.step(session, given, output)
    let out = output.pointee
    let message = Self.text(out.message)
    switch code {
    case ACC_STEP_SEND:
      let request = out.request
      var headers: [String: String] = [:]
      for pair in Self.pairs(request.headers) { headers[pair.0] = pair.1 }
      return .send(
        Sent(
          method: Self.text(request.method), url: Self.text(request.url), headers: headers,
          body: Self.text(request.body), delay: out.delay_ms))
    case ACC_STEP_OK:
      return .ok(
        Done(
          token: Self.text(out.token), expiresIn: out.expires_in,
          sessionValues: Dictionary(Self.pairs(out.session_values), uniquingKeysWith: { $1 }),
          refreshToken: Self.text(out.refresh_token), body: Self.text(out.body), message: message))
    case ACC_STEP_SHOW: return .show(message: message, link: Self.text(out.link), expiresIn: out.expires_in)
    case ACC_STEP_WRONG_PASSWORD: return .wrongPassword(message)
    case ACC_STEP_SESSION_EXPIRED: return .sessionExpired(message)
    case ACC_STEP_ERROR: return .error(message)
    default: return .other(code: code, message: message)
    }
  }

  private static func text(_ string: acc_string) -> String {
    guard let bytes = string.bytes, string.length > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: bytes, count: string.length), as: UTF8.self)
  }

  private static func pairs(_ pairs: acc_pairs) -> [(String, String)] {
    guard let items = pairs.items else { return [] }
    return (0..<pairs.count).map { (text(items[$0].name), text(items[$0].value)) }
  }
}
