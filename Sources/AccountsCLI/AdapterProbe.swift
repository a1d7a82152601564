import AccountsCore
import AccountsJSON
import Glibc

/// Loads adapters for the commands that diagnose them (`adapters`, `doctor`) in child
/// processes, so that an adapter that crashes or hangs while loading (a constructor that
/// aborts, an entry that returns garbage) is reported by name instead of taking the command
/// down with it.
///
/// Each child, `accounts __probe-adapters PATH...`, writes one line per file as it finishes
/// it. When a child dies, the file it was loading is the first one without a line: that file
/// is reported with the signal, and a new child takes the rest. A file that takes longer than
/// the deadline to load is reported too, and its child killed.
struct AdapterProbe {
  /// Seconds one file may take to load (ACCOUNTS_ADAPTER_LOAD_TIMEOUT).
  let timeout: Double

  init(timeout: Double) { self.timeout = timeout }

  init(_ environment: Environment) throws(CommandError) {
    timeout = try environment.adapterLoadTimeout()
  }

  /// Every adapter file in `searchPath` as `accounts adapters` lists it, each loaded in a
  /// child process.
  func entries(_ searchPath: AdapterSearchPath) throws(AdapterError) -> [AdapterEntry] {
    var entries = searchPath.survey()
    let pending = entries.indices.filter { entries[$0].isPending }
    for (index, entry) in zip(pending, try probe(pending.map { entries[$0] })) { entries[index] = entry }
    return entries
  }

  /// The adapter called `name` (the first file of that name), loaded in a child process;
  /// nothing else is loaded.
  func describe(_ name: String, in searchPath: AdapterSearchPath) throws(AdapterError) -> AdapterDescription {
    let entries = searchPath.survey()
    guard let found = entries.first(where: { $0.name == name && $0.isPending }) else {
      throw Self.notFound(name, in: entries, searchPath)
    }
    return try Self.description(of: name, in: try probe([found]), searchPath)
  }

  /// The description of adapter `name` in entries already probed, or why there is none.
  static func description(
    of name: String, in entries: [AdapterEntry], _ searchPath: AdapterSearchPath
  ) throws(AdapterError) -> AdapterDescription {
    guard let entry = entries.first(where: { $0.name == name && $0.shadowedBy == nil && $0.refusal != AdapterSearchPath.misnamedReason }) else {
      throw notFound(name, in: entries, searchPath)
    }
    guard let description = entry.description else {
      throw .refused(path: entry.path, reason: entry.refusal ?? "unknown reason")
    }
    return description
  }

  private static func notFound(_ name: String, in entries: [AdapterEntry], _ searchPath: AdapterSearchPath) -> AdapterError {
    let known = Set(entries.filter { $0.refusal != AdapterSearchPath.misnamedReason }.map(\.name))
    return .notFound(name: name, searched: searchPath.directories.map(\.path), known: known.sorted())
  }

  /// The entries of `files`, in order, loaded in as many children as it takes.
  func probe(_ files: [AdapterEntry]) throws(AdapterError) -> [AdapterEntry] {
    var results: [AdapterEntry] = []
    let perFile = UInt64(timeout * 1e9)
    while results.count < files.count {
      let child: ChildProcess
      do {
        // No crash report: the child's death is the report, and a backtrace takes seconds.
        child = try ChildProcess(
          arguments: ["__probe-adapters", "--"] + files[results.count...].map(\.path),
          environment: ["SWIFT_BACKTRACE": "enable=no"])
      } catch {
        throw .hostMissing(detail: "cannot start accounts __probe-adapters: \(error.errno)")
      }
      var deadline = ChildProcess.now() + perFile
      probing: while results.count < files.count {
        let file = files[results.count]
        switch child.next(until: deadline) {
        case .line(let line):
          results.append(try Self.read(line, expecting: file))
          deadline = ChildProcess.now() + perFile
        case .ended(let termination):
          results.append(file.refused(Self.reason(termination)))
          break probing
        case .timedOut:
          child.kill()
          results.append(file.refused("did not finish loading within \(Self.seconds(timeout)); stopped it"))
          break probing
        }
      }
      if results.count == files.count { _ = child.finish(until: ChildProcess.now() + perFile) }
    }
    return results
  }

  /// One line of `accounts __probe-adapters`: the entry of `file`, or the error that stopped it.
  private static func read(_ line: String, expecting file: AdapterEntry) throws(AdapterError) -> AdapterEntry {
    switch ProbeLine(text: line) {
    case .entry(let entry) where entry.path == file.path: return entry
    case .error(let error): throw error
    default: throw .hostMissing(detail: "accounts __probe-adapters answered for another file than \(file.path)")
    }
  }

  static func reason(_ termination: ChildProcess.Termination) -> String {
    switch termination {
    case .signaled(let signal): "crashed while loading (\(ChildProcess.signalName(signal)))"
    case .exited(let status): "ended the process while loading (exit status \(status))"
    }
  }

  /// "1 s", "0.5 s"
  static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value)) s" : "\((value * 10).rounded() / 10) s"
  }
}

/// What `accounts __probe-adapters` writes for one file: `{"entry": ENTRY}`, or
/// `{"error": ADAPTER_ERROR_WIRE_TEXT}` when it cannot load any (no adapter host).
enum ProbeLine {
  case entry(AdapterEntry)
  case error(AdapterError)
  case unreadable

  init(text: String) {
    guard let value = try? JSON.parse(text) else {
      self = .unreadable
      return
    }
    let reader = JSONReader(value)
    if let entry = try? reader.member("entry").map({ (entry) throws(JSONShapeError) in try AdapterEntry(wireReader: entry) }) {
      self = .entry(entry)
    } else if let error = try? reader.string("error") {
      self = .error(AdapterError(wireText: error))
    } else {
      self = .unreadable
    }
  }

  var text: String {
    switch self {
    case .entry(let entry): JSON.serialize(.object(["entry": entry.wireValue]), pretty: false)
    case .error(let error): JSON.serialize(.object(["error": .string(error.wireText)]), pretty: false)
    case .unreadable: "{}"
    }
  }
}

extension AdapterEntry {
  /// Found, not shadowed, not yet loaded or refused.
  var isPending: Bool { description == nil && refusal == nil && shadowedBy == nil }

  func refused(_ reason: String) -> AdapterEntry {
    AdapterEntry(path: path, name: name, refusal: reason)
  }
}
