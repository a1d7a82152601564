import AccountsContract
import Glibc

/// The adapter files in the search path (SPEC §5): `NAME.so` or `libNAME.so` (the name SwiftPM
/// and cargo give a library), the first file of a name winning.
public struct AdapterCatalog {
  public var searchPath: AdapterSearchPath
  var check = AdapterFileCheck()
  /// Where passing dependency checks are kept (VerdictCache); none in tests by default.
  var cache: VerdictCache?

  public init(searchPath: AdapterSearchPath) {
    self.searchPath = searchPath
  }

  /// The catalog the command line uses: the user's verdict cache.
  public static func standard(searchPath: AdapterSearchPath) -> AdapterCatalog {
    var catalog = AdapterCatalog(searchPath: searchPath)
    catalog.cache = VerdictCache.standard
    return catalog
  }

  /// Every adapter file found, loaded or refused, in search order, loaded in this process. The
  /// command line does not call this: it probes each file in a child process that an adapter
  /// may crash (AccountsCLI's AdapterProbe, through `probe`).
  public func entries() -> [AdapterEntry] {
    searchPath.survey().map { entry in
      entry.refusal == nil && entry.shadowedBy == nil ? Self.probe(entry.path, check: check, cache: cache) : entry
    }
  }

  /// The entry of one adapter file: checked, loaded and described, or refused with the reason.
  public static func probe(
    _ path: String, check: AdapterFileCheck = AdapterFileCheck(), cache: VerdictCache? = nil
  ) -> AdapterEntry {
    let fileName = String(path.split(separator: "/").last ?? "")
    guard let name = AdapterSearchPath.adapterName(fileName: fileName) else {
      return AdapterEntry(path: path, name: fileName, refusal: AdapterSearchPath.misnamedReason)
    }
    switch AdapterLoader.load(path, name: name, check: check, cache: cache) {
    case .success(let adapter): return AdapterEntry(path: path, name: name, description: adapter.description)
    case .failure(let refusal): return AdapterEntry(path: path, name: name, refusal: refusal.reason)
    }
  }

  /// When the adapter called `name` says its CHECK asks the backend, known without loading it
  /// (`AdapterLoader.knownSessionCheck`); nil when it is not known, or there is no such file.
  public func knownSessionCheck(named name: String) -> AdapterDescription.SessionCheck? {
    guard let path = searchPath.files().first(where: { $0.name == name })?.path else { return nil }
    return AdapterLoader.knownSessionCheck(path, check: check, cache: cache)
  }

  /// The adapter called `name`: the first file of that name, loaded; nothing else is loaded.
  public func adapter(named name: String) throws(AdapterLoadError) -> LoadedAdapter {
    let found = searchPath.files()
    guard let path = found.first(where: { $0.name == name })?.path else {
      throw .notFound(
        name: name, searched: searchPath.directories.map(\.path),
        known: Array(Set(found.map(\.name))).sorted())
    }
    switch AdapterLoader.load(path, name: name, check: check, cache: cache) {
    case .success(let adapter): return adapter
    case .failure(let refusal): throw .refused(path: path, reason: refusal.reason)
    }
  }
}
