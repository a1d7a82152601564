import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsSystem
import Glibc

/// Loads adapters for the commands that diagnose them (`adapters`, `doctor`) in child
/// processes, so that an adapter that crashes or hangs while loading (a constructor that
/// aborts, an entry that returns garbage) is reported by name instead of taking the command
/// down with it.
///
/// One child per file, `accounts __probe-adapters PATH`, in a session of its own (see
/// ChildProcess): an adapter runs code in no process but its own probe's, so it can speak only
/// for itself on the pipe, a crash it causes later is its own, its `kill(0, ...)` reaches its
/// own group, and whatever it forks is killed with that group. The child writes a line when
/// the adapter host is loaded, before any adapter code runs, then one line for the file, and
/// exits at once. Anything else it writes, or any other end, is that file's refusal; only a
/// child that fails before its first line tells of the host.
public struct AdapterProbe {
  /// Seconds one file may take to load (ACCOUNTS_ADAPTER_LOAD_TIMEOUT).
  public let timeout: Double

  public init(timeout: Double) { self.timeout = timeout }

  public static let protocolReason = "its probe wrote something else on accounts' pipe"

  /// Every adapter file in `searchPath` as `accounts adapters` lists it, each loaded in a
  /// child process of its own.
  public func entries(_ searchPath: AdapterSearchPath) throws(AdapterLoadError) -> [AdapterEntry] {
    var entries = searchPath.survey()
    for index in entries.indices where entries[index].isPending {
      entries[index] = try probe(entries[index])
    }
    return entries
  }

  /// The adapter called `name` (the first file of that name), loaded in a child process;
  /// nothing else is loaded.
  public func describe(_ name: String, in searchPath: AdapterSearchPath) throws(AdapterLoadError) -> AdapterDescription {
    let entries = searchPath.survey()
    guard let found = entries.first(where: { $0.name == name && $0.isPending }) else {
      throw Self.notFound(name, in: entries, searchPath)
    }
    return try Self.description(of: name, in: [try probe(found)], searchPath)
  }

  /// The description of adapter `name` in entries already probed, or why there is none.
  public static func description(
    of name: String, in entries: [AdapterEntry], _ searchPath: AdapterSearchPath
  ) throws(AdapterLoadError) -> AdapterDescription {
    guard let entry = entries.first(where: { $0.name == name && $0.shadowedBy == nil && $0.refusal != AdapterSearchPath.misnamedReason }) else {
      throw notFound(name, in: entries, searchPath)
    }
    guard let description = entry.description else {
      throw .refused(path: entry.path, reason: entry.refusal ?? "unknown reason")
    }
    return description
  }

  private static func notFound(_ name: String, in entries: [AdapterEntry], _ searchPath: AdapterSearchPath) -> AdapterLoadError {
    let known = Set(entries.filter { $0.refusal != AdapterSearchPath.misnamedReason }.map(\.name))
    return .notFound(name: name, searched: searchPath.directories.map(\.path), known: known.sorted())
  }

  /// The entry of `file`, loaded in a child of its own.
  public func probe(_ file: AdapterEntry) throws(AdapterLoadError) -> AdapterEntry {
    let child: ChildProcess
    do {
      // No crash report: the child's death is the report, and a backtrace takes seconds.
      child = try ChildProcess(
        "/proc/self/exe", arguments: ["accounts", "__probe-adapters", "--", file.path],
        environment: .inherited(adding: ["SWIFT_BACKTRACE": "enable=no"].merging(ChildProcess.parentEntry) { $1 }))
    } catch {
      throw .hostMissing(detail: "cannot start accounts __probe-adapters: \(error.errno)")
    }
    defer { child.reap() }
    let deadline = ChildProcess.now() + UInt64(timeout * 1e9)
    // Before its first line the child has run accounts' code only: what goes wrong then is
    // the host's. From then on it is the file's.
    switch child.next(until: deadline) {
    case .line(let line):
      switch ProbeLine(text: line) {
      case .ready: break
      case .error(let error): throw error
      default: return file.refused(Self.protocolReason)
      }
    case .lineTooLong: return file.refused(Self.protocolReason)
    case .ended(let termination):
      throw .hostMissing(detail: "accounts __probe-adapters ended before loading \(file.path) (\(Self.describe(termination)))")
    case .timedOut:
      throw .hostMissing(detail: "accounts __probe-adapters did not start within \(DurationText.seconds(timeout))")
    }
    let answer: AdapterEntry
    switch child.next(until: deadline) {
    case .line(let line):
      guard case .entry(let entry) = ProbeLine(text: line), Self.isValid(entry, for: file) else {
        return file.refused(Self.protocolReason)
      }
      answer = entry
    case .lineTooLong: return file.refused(Self.protocolReason)
    case .ended(let termination): return file.refused(Self.reason(termination))
    case .timedOut: return file.refused("did not finish loading within \(DurationText.seconds(timeout)); stopped it")
    }
    // The child exits as soon as it has answered: another line, another end, or no end is
    // the file's doing (a thread it started, a destructor that cannot run).
    switch child.next(until: deadline) {
    case .ended(.exited(0)): return answer
    case .ended(let termination): return file.refused(Self.reason(termination))
    case .line, .lineTooLong: return file.refused(Self.protocolReason)
    case .timedOut: return file.refused("did not finish loading within \(DurationText.seconds(timeout)); stopped it")
    }
  }

  /// An answer read from a pipe the adapter could write too: about this file, and every name
  /// in it one the host would have accepted (the host checked them; a forged line did not).
  public static func isValid(_ entry: AdapterEntry, for file: AdapterEntry) -> Bool {
    guard entry.path == file.path, entry.name == file.name, entry.shadowedBy == nil else { return false }
    guard let description = entry.description else { return entry.refusal != nil }
    guard entry.refusal == nil, description.name == file.name, Names.isBackendName(description.name),
      description.path.hasPrefix("/")
    else { return false }
    let names = description.settings.map(\.name)
    return names.allSatisfy(AdapterSetting.isValidName) && Set(names).count == names.count
  }

  public static func reason(_ termination: ChildProcess.Termination) -> String {
    switch termination {
    case .signaled(let signal): "crashed while loading (\(ChildProcess.signalName(signal)))"
    case .exited(let status): "ended the process while loading (exit status \(status))"
    }
  }

  public static func describe(_ termination: ChildProcess.Termination) -> String {
    switch termination {
    case .signaled(let signal): ChildProcess.signalName(signal)
    case .exited(let status): "exit status \(status)"
    }
  }
}

/// What `accounts __probe-adapters` writes: `{"ready": true}` once the adapter host is loaded,
/// then `{"entry": ENTRY}` for the file; or `{"error": ADAPTER_ERROR_WIRE_TEXT}` when there is
/// no adapter host.
public enum ProbeLine {
  case ready
  case entry(AdapterEntry)
  case error(AdapterLoadError)
  case unreadable

  public init(text: String) {
    guard let value = try? JSON.parse(text) else {
      self = .unreadable
      return
    }
    let reader = JSONReader(value)
    if (try? reader.bool("ready")) == true {
      self = .ready
    } else if let entry = try? reader.member("entry").map({ (entry) throws(JSONShapeError) in try AdapterEntry(wireReader: entry) }) {
      self = .entry(entry)
    } else if let error = try? reader.string("error") {
      self = .error(AdapterLoadError(wireText: error))
    } else {
      self = .unreadable
    }
  }

  public var text: String {
    switch self {
    case .ready: JSON.serialize(.object(["ready": .bool(true)]), pretty: false)
    case .entry(let entry): JSON.serialize(.object(["entry": entry.wireValue]), pretty: false)
    case .error(let error): JSON.serialize(.object(["error": .string(error.wireText)]), pretty: false)
    case .unreadable: "{}"
    }
  }
}

extension AdapterEntry {
  /// Found, not shadowed, not yet loaded or refused.
  public var isPending: Bool { description == nil && refusal == nil && shadowedBy == nil }

  public func refused(_ reason: String) -> AdapterEntry {
    AdapterEntry(path: path, name: name, refusal: reason)
  }
}
