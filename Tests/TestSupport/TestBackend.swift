import Foundation

/// The project's test backend server (Tests/Backend/accounts-test-backend) on 127.0.0.1, one
/// per test that needs it: every family of SPEC §5, tokens with expiry, and control endpoints.
/// It stops by itself after `lifetime` seconds, or when this process goes away.
public final class TestBackend: @unchecked Sendable {
  public let url: String
  private let process: SpawnedProcess

  public init(arguments: [String] = [], lifetime: Int = 300) throws {
    process = try SpawnedProcess(
      PackagePaths.root.appendingPathComponent("Tests/Backend/accounts-test-backend").path,
      ["--port", "0", "--lifetime", String(lifetime)] + arguments,
      environment: ProcessInfo.processInfo.environment, standardOutput: .pipe)
    // The first line is the URL; wait for it at most 20 s.
    guard let first = firstLine(of: process, timeout: 20), first.hasPrefix("http://127.0.0.1:") else {
      process.terminate()
      throw TestBackendError.didNotStart
    }
    url = first
  }

  deinit { stop() }

  /// SIGTERM, then SIGKILL after 2 s: a stuck server must not hang the test run.
  public func stop() {
    guard process.isRunning else { return }
    process.terminate()
    for _ in 0..<20 where process.isRunning { usleep(100_000) }
    process.signal(SIGKILL)
    process.waitUntilExit()
  }

  /// Stops the server (SIGSTOP): every request waits, unanswered, until `resume`.
  public func pause() { process.signal(SIGSTOP) }

  /// Lets a paused server go on (SIGCONT).
  public func resume() { process.signal(SIGCONT) }

  /// POSTs a JSON object to a control endpoint (e.g. "expire") and returns the reply's JSON.
  @discardableResult
  public func control(_ endpoint: String, _ body: [String: Any] = [:]) throws -> [String: Any] {
    let data = try JSONSerialization.data(withJSONObject: body)
    let result = try runProcess(
      "/usr/bin/curl",
      ["-sS", "--max-time", "10", "-X", "POST", "-H", "Content-Type: application/json",
       "--data-binary", String(decoding: data, as: UTF8.self), "\(url)/control/\(endpoint)"],
      environment: ["PATH": "/usr/bin:/bin"], timeout: 15)
    return (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [String: Any] ?? [:]
  }

  /// The requests the server saw (without control requests), oldest first.
  public func requests() throws -> [[String: Any]] {
    try read("log")["requests"] as? [[String: Any]] ?? []
  }

  /// Every later request (but control requests) waits this long before it is answered; 0 ends it.
  public func delay(seconds: Double) throws {
    try control("delay", ["seconds": seconds])
  }

  /// The requests (but control requests) being handled now, and the most at once since the last
  /// `resetConcurrency()` (or the start).
  public func concurrency() throws -> (current: Int, max: Int) {
    let reply = try read("concurrency")
    guard let current = reply["current"] as? Int, let most = reply["max"] as? Int else {
      throw TestBackendError.unreadable("concurrency", "\(reply)")
    }
    return (current, most)
  }

  /// The most at once starts again from the requests being handled now.
  public func resetConcurrency() throws {
    try control("concurrency/reset")
  }

  /// GETs a control endpoint ("log", "concurrency") and returns the reply's JSON.
  private func read(_ endpoint: String) throws -> [String: Any] {
    let result = try runProcess(
      "/usr/bin/curl", ["-sS", "--max-time", "10", "\(url)/control/\(endpoint)"],
      environment: ["PATH": "/usr/bin:/bin"], timeout: 15)
    return (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [String: Any] ?? [:]
  }
}

public enum TestBackendError: Error, CustomStringConvertible {
  case didNotStart
  case unreadable(String, String)

  public var description: String {
    switch self {
    case .didNotStart: "the test backend did not print its URL within 20 s"
    case .unreadable(let endpoint, let reply): "the test backend's /control/\(endpoint) answered \(reply)"
    }
  }
}

/// The first line `process` writes on stdout (a server of the tests prints its URL, then
/// nothing), or nil when none comes within `timeout` seconds; what it wrote when it ended first.
func firstLine(of process: SpawnedProcess, timeout: Double) -> String? {
  var bytes: [UInt8] = []
  let deadline = Date().addingTimeInterval(timeout)
  while true {
    let left = deadline.timeIntervalSinceNow
    guard left > 0 else { return nil }
    var entry = pollfd(fd: process.outputDescriptor, events: Int16(POLLIN), revents: 0)
    let ready = poll(&entry, 1, Int32(left * 1000) + 1)
    if ready < 0, errno != EINTR { return nil }
    guard ready > 0 else { continue }
    var byte: UInt8 = 0
    let count = read(process.outputDescriptor, &byte, 1)
    if count < 0, errno == EINTR { continue }
    if count <= 0 || byte == 10 { return String(decoding: bytes, as: UTF8.self) }
    bytes.append(byte)
  }
}
