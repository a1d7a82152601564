import Foundation

/// A private `redis-server` (Debian redis-server) for the shared lease store's tests: on a unix
/// socket in `directory` and on a free port of 127.0.0.1, keeping its keys as a lease store
/// should (`appendonly yes`, in `directory`; no snapshots), optionally with `requirepass`. Stopped by its pid (`stop`, or when this object goes away).
public final class RedisServer: @unchecked Sendable {
  public let socketPath: String
  public let port: Int
  public let password: String?
  private let process: SpawnedProcess

  public init(directory: String, password: String? = nil) throws {
    socketPath = directory + "/redis-\(UUID().uuidString.prefix(8)).sock"
    self.password = password
    var lastError: Error = RedisServerError.didNotStart("no attempt")
    for _ in 0..<20 {
      let port = Int.random(in: 20_000..<60_000)
      var arguments = [
        "--port", String(port), "--bind", "127.0.0.1", "--unixsocket", socketPath, "--unixsocketperm", "700",
        "--save", "", "--appendonly", "yes", "--daemonize", "no", "--dir", directory, "--loglevel", "warning",
      ]
      if let password { arguments += ["--requirepass", password] }
      let process = try SpawnedProcess(
        "/usr/bin/redis-server", arguments, environment: ProcessInfo.processInfo.environment, standardError: .null)
      // Ready once the socket answers PING (10 s at most); a taken port ends the process.
      var ready = false
      for _ in 0..<200 where process.isRunning {
        if FileManager.default.fileExists(atPath: socketPath), Self.ping(socketPath, password) {
          ready = true
          break
        }
        usleep(50_000)
      }
      if ready, process.isRunning {
        self.port = port
        self.process = process
        return
      }
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
      lastError = RedisServerError.didNotStart("port \(port)")
    }
    throw lastError
  }

  deinit { stop() }

  /// `redis://127.0.0.1:PORT` (with `/DB` when given)
  public func tcpURL(database: Int = 0) -> String {
    "redis://127.0.0.1:\(port)" + (database == 0 ? "" : "/\(database)")
  }

  /// `unix:///…/redis-….sock`
  public var socketURL: String { "unix://" + socketPath }

  public var isRunning: Bool { process.isRunning }

  /// The server's process (its command line holds --requirepass).
  public var pid: Int32 { process.processIdentifier }

  /// SIGTERM, then SIGKILL after 2 s.
  public func stop() {
    guard process.isRunning else { return }
    process.terminate()
    for _ in 0..<20 where process.isRunning { usleep(100_000) }
    process.signal(SIGKILL)
    process.waitUntilExit()
  }

  /// `redis-cli` over the socket (the password through REDISCLI_AUTH, never argv); its stdout.
  @discardableResult
  public func cli(_ arguments: [String]) throws -> String {
    try Self.cli(socketPath, password, arguments)
  }

  private static func ping(_ socket: String, _ password: String?) -> Bool {
    (try? cli(socket, password, ["PING"]))?.contains("PONG") == true
  }

  private static func cli(_ socket: String, _ password: String?, _ arguments: [String]) throws -> String {
    var environment = ["PATH": "/usr/bin:/bin"]
    if let password { environment["REDISCLI_AUTH"] = password }
    let result = try runProcess("/usr/bin/redis-cli", ["-s", socket] + arguments, environment: environment, timeout: 10)
    guard result.status == 0 else { throw RedisServerError.cliFailed(arguments.joined(separator: " "), result.standardError) }
    return result.standardOutput
  }
}

public enum RedisServerError: Error {
  case didNotStart(String)
  case cliFailed(String, String)
}
