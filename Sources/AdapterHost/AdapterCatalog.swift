import AccountsCore
import Glibc

/// The adapter files in the search path (SPEC §5): `NAME.so` or `libNAME.so` (the name SwiftPM
/// and cargo give a library), the first file of a name winning.
public struct AdapterCatalog {
  public var searchPath: AdapterSearchPath
  var check = AdapterFileCheck()

  public init(searchPath: AdapterSearchPath) {
    self.searchPath = searchPath
  }

  /// Every adapter file found, loaded or refused, in search order.
  public func entries() -> [AdapterEntry] {
    var winners: [String: String] = [:]
    var entries: [AdapterEntry] = []
    for (name, path) in searchPath.files() {
      if let winner = winners[name] {
        entries.append(AdapterEntry(path: path, name: name, shadowedBy: winner))
        continue
      }
      winners[name] = path
      switch AdapterLoader.load(path, name: name, check: check) {
      case .success(let adapter): entries.append(AdapterEntry(path: path, name: name, description: adapter.description))
      case .failure(let refusal): entries.append(AdapterEntry(path: path, name: name, refusal: refusal.reason))
      }
    }
    return entries
  }

  /// The adapter called `name`: the first file of that name, loaded; nothing else is loaded.
  public func adapter(named name: String) throws(AdapterError) -> LoadedAdapter {
    let found = searchPath.files()
    guard let path = found.first(where: { $0.name == name })?.path else {
      throw .notFound(
        name: name, searched: searchPath.directories.map(\.path),
        known: Array(Set(found.map(\.name))).sorted())
    }
    switch AdapterLoader.load(path, name: name, check: check) {
    case .success(let adapter): return adapter
    case .failure(let refusal): throw .refused(path: path, reason: refusal.reason)
    }
  }

}
