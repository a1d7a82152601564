import CAccountsAdapter

/// What the host's `void *session` points to: the adapter's copy of the configuration, the
/// step machine's state, and the arena behind the last step's output.
///
/// The step machine guards the order of calls itself: the first step starts the session, a
/// later step without a response or a step after a final result is an ERROR, never a trap.
final class SessionBox {
  private enum State {
    /// session_new copied the configuration (or found it unusable); no step yet.
    case new(Result<SessionConfiguration, AdapterError>)
    /// The last step sent a request; the next one gets its response.
    case running(any AdapterSession)
    /// The last step was a SHOW; the next one comes without a response.
    case showing(any AdapterSession)
    /// A final result was returned: nothing may follow but session_free.
    case finished
  }

  private let adapter: any Adapter.Type
  private let host: CHost
  private var state: State
  /// The operation, once the first step has read the configuration.
  private var operation: Operation?
  private var hasShown = false
  private let arena = OutputArena()

  /// Copies everything the session keeps out of the borrowed `config`.
  init(adapter: any Adapter.Type, config: UnsafePointer<acc_session_config>?) {
    self.adapter = adapter
    guard let config else {
      host = CHost(nil)
      state = .new(.failure(AdapterError("the host started a session without a configuration")))
      return
    }
    let view = SizedStruct(config)
    host = CHost(view.field(\.host) ?? nil)
    state = .new(Self.configuration(view, definitions: adapter.settings))
  }

  /// One step: releases the last step's output, advances the machine, writes the result.
  /// `hostShows`: whether the host knows ACC_STEP_SHOW (ABI 1.3); to one that does not, a
  /// SHOW is an ERROR, since it would take the unknown code for a broken adapter.
  func step(_ response: UnsafePointer<acc_response>?, into out: StepOutputWriter, hostShows: Bool)
    -> Int32
  {
    arena.release()
    var result = advance(response)
    if case .show = result, !hostShows {
      result = .error(Self.showNeedsNewerHost)
    }
    if result.isFinal { state = .finished }
    return ResultWriter(arena: arena, out: out).write(result)
  }

  static let showNeedsNewerHost =
    "this adapter needs accounts with adapter ABI 1.3 for the device flow"

  private func advance(_ response: UnsafePointer<acc_response>?) -> StepResult {
    do {
      switch state {
      case .new(let configuration):
        let configuration = try configuration.get()
        let session = try adapter.makeSession(for: configuration, host: host)
        // VALIDATE is the settings check alone, which makeSession has just run.
        if configuration.operation == .validate { return .ok }
        operation = configuration.operation
        return try next(session) { () throws(AdapterError) in
          try session.start()
        }
      case .running(let session):
        guard let response else {
          return .error("the host called step without the response to the last request")
        }
        let reply = try Self.response(SizedStruct(response))
        return try next(session) { () throws(AdapterError) in
          try session.resume(with: reply)
        }
      case .showing(let session):
        guard response == nil else {
          return .error("the host called step with a response after a SHOW, which sends nothing")
        }
        return try next(session) { () throws(AdapterError) in
          try session.resumeAfterShowing()
        }
      case .finished:
        return .error("the host called step after the session's final result")
      }
    } catch {
      return .error(error.message)
    }
  }

  /// The session's next result, and the state it leaves it in. A SHOW comes at most once per
  /// session, and only in LOGIN (the header's rule): anything else is the adapter's mistake.
  private func next(
    _ session: any AdapterSession, _ body: () throws(AdapterError) -> StepResult
  ) throws(AdapterError) -> StepResult {
    let result = try body()
    if case .show = result {
      guard operation == .login, !hasShown else {
        return .error("the adapter asked to show a person a message twice, or outside LOGIN")
      }
      hasShown = true
      state = .showing(session)
    } else {
      state = .running(session)
    }
    return result
  }

  private static func configuration(
    _ config: SizedStruct<acc_session_config>, definitions: [SettingDefinition]
  ) -> Result<SessionConfiguration, AdapterError> {
    guard let rawOperation = config.field(\.operation) else {
      return .failure(AdapterError("the host's session configuration is too short"))
    }
    guard let operation = Operation(rawValue: rawOperation) else {
      return .failure(AdapterError("unknown operation \(rawOperation)"))
    }
    let rawSettings = (config.field(\.settings)?.borrowedItems).map { items in
      items.map { (name: $0.name.text, value: $0.value.secret) }
    }
    return .success(
      SessionConfiguration(
        operation: operation,
        settings: Settings(definitions: definitions, raw: rawSettings ?? []),
        user: config.field(\.user)?.text ?? "",
        password: config.field(\.password)?.secret ?? .empty,
        token: config.field(\.token)?.text ?? "",
        sessionValues: config.field(\.session_values)?.pairs ?? [],
        method: config.field(\.method)?.text ?? "",
        path: config.field(\.path)?.text ?? "",
        parameters: config.field(\.parameters)?.pairs ?? [],
        // Only as far as the host's size covers it: a 1.0 host's configuration ends before it.
        oneTimeCode: config.field(\.one_time_code)?.secret ?? .empty,
        // Likewise for a host older than 1.3.
        refreshToken: config.field(\.refresh_token)?.secret ?? .empty))
  }

  private static func response(_ response: SizedStruct<acc_response>) throws(AdapterError)
    -> Response
  {
    guard let status = response.field(\.status) else {
      throw AdapterError("the host's response is too short to hold a status")
    }
    return Response(
      status: status,
      headers: response.field(\.headers)?.pairs ?? [],
      body: response.field(\.body).map { Array($0.borrowedBytes) } ?? [])
  }
}

/// Writes a step result into the host's acc_step_output, its strings into the arena.
struct ResultWriter {
  let arena: OutputArena
  let out: StepOutputWriter

  /// The most bytes one returned string may have (ACC_HOST_STRING_LIMIT).
  static let stringLimit = Int(ACC_HOST_STRING_LIMIT)

  /// Writes `result` and returns its ACC_STEP_* code; an output the host cannot take (too
  /// large, or fields its struct lacks) becomes an ERROR that says so.
  func write(_ result: StepResult) -> Int32 {
    switch result {
    case .send(let request, let delay):
      if let problem = tooLarge([
        ("request URL", request.url.utf8.count),
        ("request body", request.body.count),
      ]) {
        return fail(problem)
      }
      guard delay <= StepResult.maximumDelayMilliseconds else {
        return fail(
          "the adapter asked to wait \(delay) ms before a request, more than the "
            + "\(StepResult.maximumDelayMilliseconds) the host allows")
      }
      guard out.has(\.request) else { return fail("the host's step output has no request") }
      out.set(
        \.request,
        acc_request(
          method: arena.string(request.method), url: arena.string(request.url),
          headers: arena.pairs(request.headers, request.secretHeaders),
          body: arena.string(request.body)))
      // A host older than 1.3 has no delay_ms: it sends at once.
      if delay > 0 { out.set(\.delay_ms, delay) }
      return Int32(ACC_STEP_SEND)
    case .ok(let token, let expiresIn, let sessionValues, let body, let message, let refreshToken):
      if let problem = tooLarge([
        ("reply body", body.count), ("token", token.utf8.count),
        ("refresh token", refreshToken.count),
      ]) {
        return fail(problem)
      }
      if !token.isEmpty { out.set(\.token, arena.string(token)) }
      if expiresIn != 0 { out.set(\.expires_in, expiresIn) }
      if !sessionValues.isEmpty { out.set(\.session_values, arena.pairs(sessionValues)) }
      if !body.isEmpty { out.set(\.body, arena.string(body)) }
      // A host older than 1.3 keeps no refresh tokens: it renews with the password.
      if !refreshToken.isEmpty { out.set(\.refresh_token, arena.string(refreshToken)) }
      setMessage(message)
      return Int32(ACC_STEP_OK)
    case .show(let message, let link, let expiresIn):
      guard !message.isEmpty, !link.isEmpty, StepResult.showSeconds.contains(expiresIn) else {
        return fail(
          "the adapter's SHOW needs a message, a link and 1 to 3600 seconds (it gave "
            + "\(expiresIn))")
      }
      setMessage(message)
      out.set(\.link, arena.string(Message.oneLine(link, limit: 2000)))
      out.set(\.expires_in, expiresIn)
      return Int32(ACC_STEP_SHOW)
    case .wrongPassword(let message):
      setMessage(message)
      return Int32(ACC_STEP_WRONG_PASSWORD)
    case .sessionExpired(let message):
      setMessage(message)
      return Int32(ACC_STEP_SESSION_EXPIRED)
    case .kicked(let message):
      setMessage(message)
      return Int32(ACC_STEP_KICKED)
    case .upgradeRequired(let message, let link):
      setMessage(message)
      if !link.isEmpty { out.set(\.link, arena.string(Message.oneLine(link, limit: 2000))) }
      return Int32(ACC_STEP_UPGRADE_REQUIRED)
    case .error(let message):
      return fail(message)
    }
  }

  private func fail(_ message: String) -> Int32 {
    setMessage(message.isEmpty ? "the adapter failed without saying why" : message)
    return Int32(ACC_STEP_ERROR)
  }

  private func setMessage(_ message: String) {
    guard !message.isEmpty else { return }
    out.set(\.message, arena.string(Message.oneLine(message, limit: 2000)))
  }

  private func tooLarge(_ sizes: [(String, Int)]) -> String? {
    guard let (what, size) = sizes.first(where: { $0.1 > Self.stringLimit }) else { return nil }
    return "the \(what) is \(size) bytes, more than the \(Self.stringLimit) an adapter may return"
  }
}
