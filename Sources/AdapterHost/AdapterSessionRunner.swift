import AccountsContract
import AccountsSystem
import AccountsText
import CAccountsAdapter
import Glibc
import SecretMemory

/// The bounds the host puts on every operation.
public struct AdapterLimits: Sendable {
  /// SENDs per operation.
  public var steps = Int(ACC_HOST_STEP_LIMIT)
  /// Bytes of any string an adapter returns, except a CALL's body.
  public var string = Int(ACC_HOST_STRING_LIMIT)
  /// Bytes of a response body, and of a CALL's body.
  public var response = Int(ACC_HOST_RESPONSE_LIMIT)

  public init() {}
}

/// Drives one adapter session: session_new, then step after step, performing each SEND through
/// the transport, until a final result, within the step limit and the overall deadline.
///
/// Runners may work at once on several threads, even with the same adapter: each run has its
/// own session, arenas and transfer; what they share (the adapter's descriptor, the host
/// services, libcurl's global state) is set up once and only read.
public struct AdapterSessionRunner {
  public let adapter: LoadedAdapter
  public var transport: any HTTPTransport
  /// The services lent to the adapter; tests pass a fixed clock.
  public var host: UnsafePointer<acc_host>
  public var limits: AdapterLimits

  public init(
    adapter: LoadedAdapter, transport: any HTTPTransport = CurlTransport(),
    host: UnsafePointer<acc_host> = HostServiceTable.standard, limits: AdapterLimits = AdapterLimits()
  ) {
    self.adapter = adapter
    self.transport = transport
    self.host = host
    self.limits = limits
  }

  private var name: String { adapter.description.name }
  /// The minor ABI version the adapter was built against.
  var minor: UInt32 { adapter.description.abiVersion >> 16 == 1 ? adapter.description.abiVersion & 0xFFFF : 0 }

  /// Seconds a single call into the adapter may always take: longer means it is stuck.
  static let stepGrace = 1.0

  /// Runs `request` with the backend's secret settings; a LOGIN that succeeded carries its token.
  public func run(_ request: AdapterRequest, secretSettings: [String: SecretBytes] = [:]) -> AdapterOutcome {
    let deadline = monotonicSeconds() + request.timeout
    let arena = CArena()
    let config = arena.place(makeConfig(request, secretSettings: secretSettings, arena: arena))
    // Every call into the adapter runs on this thread, given up on at its deadline.
    let calls = CallThread()
    let sessionNew = adapter.sessionNew
    let contained = Contained(
      call: AdapterContainment.prepare(adapter: name, during: Self.during(request.operation.kind)))
    let started = calls.run(until: deadline) {
      AdapterContainment.run(contained.call) { sessionNew(config).map(Session.init) }
    }
    guard case .success(let created) = started else {
      arena.abandon()
      return notAnswering(request.timeout)
    }
    guard let session = created else {
      calls.finish()
      AdapterContainment.release(contained.call)
      return .adapterFailed(message: "adapter \(name) could not start a session (session_new returned NULL)")
    }
    var steps = StepLoop(
      runner: self, operation: request.operation.kind, session: session, contained: contained, calls: calls,
      deadline: deadline, timeout: request.timeout, person: request.person,
      account: "\(request.user)@\(request.backend)")
    let result = steps.run()
    if steps.abandoned {
      arena.abandon()
    } else {
      let sessionFree = adapter.sessionFree
      let freed = calls.run(until: monotonicSeconds() + 2) {
        AdapterContainment.run(contained.call) { sessionFree(session.pointer) }
      }
      calls.finish()
      if case .failure = freed {
        arena.abandon()
      } else {
        AdapterContainment.release(contained.call)
      }
    }
    return result
  }

  /// The end of the message of a crash or exit() inside adapter code (AdapterContainment).
  static func during(_ operation: AdapterOperationKind) -> String {
    switch operation {
    case .login: "during login; nothing was stored"
    case .check: "while checking the session"
    case .logout: "during logout"
    case .call: "during a request"
    case .validate: "while checking settings; nothing was stored"
    case .refresh: "while renewing the session; nothing was stored"
    }
  }

  /// The containment of one run's calls, handed to the threads that make them.
  struct Contained: @unchecked Sendable {
    let call: UnsafeMutablePointer<AdapterContainment.Call>
  }

  func notAnswering(_ timeout: Double) -> AdapterOutcome {
    .adapterFailed(message: "adapter \(name) did not answer within \(DurationText.seconds(timeout)); it may be stuck")
  }

  private func makeConfig(
    _ request: AdapterRequest, secretSettings: [String: SecretBytes], arena: CArena
  ) -> acc_session_config {
    // Only declared settings reach the adapter; secret ones come from the keyring.
    var settings: [(acc_string, acc_string)] = []
    for setting in adapter.description.settings {
      if setting.isSecret, let value = secretSettings[setting.name] {
        settings.append((arena.string(setting.name), arena.string(value)))
      } else if !setting.isSecret, let value = request.settings[setting.name] {
        settings.append((arena.string(setting.name), arena.string(value)))
      }
    }
    let operation: Int32 =
      switch request.operation.kind {
      case .login: ACC_OP_LOGIN
      case .check: ACC_OP_CHECK
      case .logout: ACC_OP_LOGOUT
      case .call: ACC_OP_CALL
      case .validate: ACC_OP_VALIDATE
      case .refresh: ACC_OP_REFRESH
      }
    var call: (method: String, path: String, parameters: [(String, String)]) = ("", "", [])
    if case .call(_, let method, let path, let parameters) = request.operation { call = (method, path, parameters) }
    return acc_session_config(
      size: UInt32(MemoryLayout<acc_session_config>.size), operation: operation,
      settings: arena.pairs(settings), user: arena.string(request.user),
      password: arena.string(request.operation.password), token: arena.string(request.operation.token),
      session_values: arena.pairs(request.sessionValues.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
      method: arena.string(call.method), path: arena.string(call.path),
      parameters: arena.pairs(call.parameters), host: host,
      // A 1.0 adapter cannot know the field: it gets none (its config's size covers it anyway).
      one_time_code: arena.string(adapter.description.abiVersion & 0xFFFF >= 1 ? request.operation.oneTimeCode : nil),
      // Only a 1.3 adapter returns refresh tokens, so only one is handed one back.
      refresh_token: arena.string(minor >= 3 ? request.operation.refreshToken : nil))
  }

  /// The session pointer, handed between threads.
  struct Session: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
  }
}

/// The loop of step calls of one session.
private struct StepLoop {
  let runner: AdapterSessionRunner
  let operation: AdapterOperationKind
  let session: AdapterSessionRunner.Session
  let contained: AdapterSessionRunner.Contained
  let calls: CallThread
  /// Seconds on the monotonic clock; moved to the end of a person's time by a SHOW.
  var deadline: Double
  /// The network timeout: the most one request may take.
  let timeout: Double
  /// Where a SHOW is shown; nil: nobody can see it.
  let person: PersonChannel?
  /// "alice@corp", for what a person is shown.
  let account: String
  /// A call missed the deadline: the session and its memory must be left alone.
  var abandoned = false
  /// A SHOW was performed: polling SENDs are bounded by the person's time, not the step limit.
  var shown = false

  private var name: String { runner.adapter.description.name }

  mutating func run() -> AdapterOutcome {
    let output = UnsafeMutablePointer<acc_step_output>.allocate(capacity: 1)
    let response = UnsafeMutablePointer<acc_response>.allocate(capacity: 1)
    var responseArena = CArena()
    var hasResponse = false
    var sends = 0
    defer {
      if !abandoned {
        output.deallocate()
        response.deallocate()
      }
    }
    while true {
      output.initialize(to: acc_step_output())
      output.pointee.size = UInt32(MemoryLayout<acc_step_output>.size)
      let step = runner.adapter.step
      let session = session
      let given = hasResponse ? UnsafePointer(response) : nil
      let call = Pointers(output: output, response: given)
      // A step is pure computation: it gets at least `stepGrace` even when the network used the
      // operation's time up, so a slow backend is reported as the backend, not as the adapter.
      let stepDeadline = max(deadline, monotonicSeconds() + AdapterSessionRunner.stepGrace)
      let contained = contained
      let stepped = calls.run(until: stepDeadline) {
        AdapterContainment.run(contained.call) { step(session.pointer, call.response, call.output) }
      }
      guard case .success(let result) = stepped else {
        abandoned = true
        responseArena.abandon()
        return runner.notAnswering(timeout)
      }
      let reader = OutputReader(output: output.pointee, limits: runner.limits, adapter: name, minor: runner.minor)
      switch result {
      case ACC_STEP_SHOW where runner.minor >= 3:
        guard operation == .login, !shown else {
          return .adapterFailed(message: "adapter \(name) asked to show a person a message \(shown ? "twice" : "outside LOGIN")")
        }
        guard let person else {
          return .adapterFailed(message: "adapter \(name) asked to show a person a message, and nobody can see one here")
        }
        let message: PersonMessage
        do throws(AdapterFault) {
          message = try reader.personMessage(account: account)
        } catch {
          return .adapterFailed(message: error.message)
        }
        person.show(message)
        shown = true
        deadline = monotonicSeconds() + Double(message.expiresIn)
        hasResponse = false
      case ACC_STEP_SEND:
        guard operation != .validate else {
          return .adapterFailed(message: "adapter \(name) asked for the network while checking settings (VALIDATE must not send)")
        }
        var request: HTTPRequest
        let delay: UInt32
        do throws(AdapterFault) {
          request = try reader.request()
          delay = try reader.delayMilliseconds()
        } catch {
          return .adapterFailed(message: error.message)
        }
        // Polling while a person acts is bounded by their time (at most one SEND a second);
        // every other SEND by the step limit.
        if !(shown && delay >= 1000) { sends += 1 }
        guard sends <= runner.limits.steps else {
          return .adapterFailed(message: "adapter \(name) asked for more than \(runner.limits.steps) requests in one operation; it is looping")
        }
        if delay > 0 {
          let pause = min(Double(delay) / 1000, deadline - monotonicSeconds())
          if pause > 0 { sleep(seconds: pause) }
        }
        // One request may take the network timeout, and never past the deadline.
        let left = min(deadline - monotonicSeconds(), timeout)
        guard left > 0 else { return shown ? personTimedOut() : timedOut() }
        let answer: HTTPResponse
        // The body may hold the password: this is its only copy, wiped once sent.
        defer { request.body.withUnsafeMutableBytes { wipe($0) } }
        do throws(TransportError) {
          answer = try runner.transport.perform(request, timeout: left, responseLimit: runner.limits.response)
        } catch {
          if case .timedOut = error { return timedOut() }
          return .backendError(message: "\(request.method) \(URLText.withoutSecrets(request.url)): \(error.message)")
        }
        responseArena = CArena()
        response.initialize(to: acc_response(
          size: UInt32(MemoryLayout<acc_response>.size), status: answer.status,
          headers: responseArena.pairs(answer.headers.map { ($0.name, $0.value) }),
          body: responseArena.string(answer.body)))
        hasResponse = true
      default:
        do throws(AdapterFault) {
          return try reader.outcome(result)
        } catch {
          return .adapterFailed(message: error.message)
        }
      }
    }
  }

  private func personTimedOut() -> AdapterOutcome {
    .sessionExpired(message: "nobody approved the login in the time the provider gave")
  }

  private func timedOut() -> AdapterOutcome {
    .backendError(message: "the backend did not answer within \(DurationText.seconds(timeout)) (adapter \(name))")
  }

  /// The pointers one step call uses, handed to the worker thread.
  private struct Pointers: @unchecked Sendable {
    let output: UnsafeMutablePointer<acc_step_output>
    let response: UnsafePointer<acc_response>?
  }
}
