import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc
import SecretMemory
import Synchronization

/// A line of progress on the terminal's stderr ("checking 12/30"), rewritten in place and
/// cleared at the end, as gh's and apt's are. It never reaches a file or a pipe, nor a terminal
/// that cannot redraw a line: made with `Terminal.showsProgress`, every call does nothing then.
/// Rows for stdout go through `print`, and lines for stderr through `around`, so that nothing
/// lands in the middle of the line.
final class ProgressLine: Sendable {
  private let enabled: Bool
  /// What the line shows; held while the terminal is written, so writes do not interleave.
  private let shown = Mutex<String?>(nil)

  /// Moves to the start of the line and erases it.
  private static let erase: [UInt8] = Array("\r\u{1B}[K".utf8)

  init(enabled: Bool) { self.enabled = enabled }

  /// Shows `text` in place of what the line showed.
  func show(_ text: String) {
    guard enabled else { return }
    let printable = Names.printable(text, limit: .max)
    shown.withLock { shown in
      shown = printable
      Self.writeError(Self.erase + Array(printable.utf8))
    }
  }

  /// Writes `bytes` on stdout: the line is erased first and drawn again after them.
  func print(_ bytes: [UInt8]) throws(OutputError) {
    try around { () throws(OutputError) in try StandardStreams.writeToStandardOutput(bytes) }
  }

  /// Runs `write` (which writes whole lines on stdout or stderr) with the line erased first and
  /// drawn again after.
  func around<Failure: Error>(_ write: () throws(Failure) -> Void) throws(Failure) {
    try shown.withLock { (shown) throws(Failure) in
      if enabled, shown != nil { Self.writeError(Self.erase) }
      defer { if enabled, let shown { Self.writeError(Self.erase + Array(shown.utf8)) } }
      try write()
    }
  }

  /// Erases the line for good.
  func clear() {
    guard enabled else { return }
    shown.withLock { shown in
      if shown != nil { Self.writeError(Self.erase) }
      shown = nil
    }
  }

  private static func writeError(_ bytes: [UInt8]) { try? StandardStreams.error.writeAll(bytes) }
}

/// "waiting for corp…" on the terminal's stderr while one call to a backend takes longer than
/// `delay` seconds, erased when the answer comes (a spinner's way, as gh's): a call that
/// answers in time shows nothing, and nothing is shown when stderr is no terminal.
struct WaitNotice: Sendable {
  var delay: Double = 1

  /// Runs `body`, saying after `delay` seconds that `backend` is being waited for.
  func around<Value, Failure: Error>(_ backend: String, _ body: () throws(Failure) -> Value) throws(Failure) -> Value {
    let watch = Watch(text: "waiting for \(Names.printable(backend))…", until: monotonicSeconds() + delay)
    guard watch.start() else { return try body() }
    defer { watch.end() }
    return try body()
  }

  /// The thread that waits for the delay, and what it showed.
  private final class Watch: Sendable {
    let line = ProgressLine(enabled: true)
    let text: String
    let until: Double
    let answered = Semaphore(value: 0)
    /// Whether the answer came; held while the line is shown or cleared.
    let ended = Mutex(false)

    init(text: String, until: Double) {
      self.text = text
      self.until = until
    }

    /// Starts the waiting thread; false when none could be started (then nothing is shown).
    func start() -> Bool {
      var thread = pthread_t()
      let context = Unmanaged.passRetained(self).toOpaque()
      let started = pthread_create(
        &thread, nil,
        { context in
          Unmanaged<Watch>.fromOpaque(context!).takeRetainedValue().showUnlessAnswered()
          return nil
        }, context)
      guard started == 0 else {
        Unmanaged<Watch>.fromOpaque(context).release()
        return false
      }
      pthread_detach(thread)
      return true
    }

    /// On the thread: shows the text when no answer came by `until`.
    private func showUnlessAnswered() {
      guard !answered.wait(until: until) else { return }
      ended.withLock { ended in if !ended { line.show(text) } }
    }

    /// The answer came: the thread is woken, and what it showed is erased.
    func end() {
      ended.withLock { ended in
        ended = true
        line.clear()
      }
      answered.post()
    }
  }
}

/// The adapter host, with `WaitNotice` around each operation: the one place where a command
/// that waits for one backend (`login`, `switch`, `request`, `token`, `exec`...) says so.
final class NoticingAdapterHost: AdapterHosting {
  private let host: any AdapterHosting
  private let notice: WaitNotice

  init(_ host: any AdapterHosting, notice: WaitNotice = WaitNotice()) {
    self.host = host
    self.notice = notice
  }

  func probe(_ path: String) -> AdapterEntry { host.probe(path) }

  func describe(_ name: String, in searchPath: AdapterSearchPath) throws(AdapterLoadError) -> AdapterDescription {
    try host.describe(name, in: searchPath)
  }

  func knownSessionCheck(_ name: String, in searchPath: AdapterSearchPath) -> AdapterDescription.SessionCheck? {
    host.knownSessionCheck(name, in: searchPath)
  }

  func expectRequest() { host.expectRequest() }

  func loginNeeds(_ name: String, settings: [String: String], in searchPath: AdapterSearchPath)
    throws(AdapterLoadError) -> LoginNeeds
  {
    try host.loginNeeds(name, settings: settings, in: searchPath)
  }

  func run(_ request: AdapterRequest, secretSettings: [String: SecretBytes], in searchPath: AdapterSearchPath)
    throws(AdapterLoadError) -> AdapterOutcome
  {
    // A login a person approves says itself what it waits for.
    if request.person != nil { return try host.run(request, secretSettings: secretSettings, in: searchPath) }
    return try notice.around(request.backend) { () throws(AdapterLoadError) in
      try host.run(request, secretSettings: secretSettings, in: searchPath)
    }
  }
}
