import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsSystem
import CAccountsAdapter
import AdapterHost
import Glibc
import SecretMemory

/// The adapter host (AdapterHost), linked into the executable: it loads adapters with dlopen and
/// drives them, and its own C libraries come only when a command needs them (libgcrypt for
/// digests, libcurl for the first request), so `list` and completion pay for none of them and
/// an adapter command loads neither libsecret nor GLib.
///
/// Sendable: it holds no state; every call has its own request, secrets, session and transfer,
/// and may run on several threads at once.
public final class LinkedAdapterHost: AdapterHosting {
  /// Whether adapter code is contained (`contain`): false only in tests, whose own process
  /// keeps its stdout and stderr.
  private let containing: Bool

  public init(containing: Bool = true) {
    self.containing = containing
  }

  public func probe(_ path: String) -> AdapterEntry {
    AdapterCatalog.probe(path, cache: VerdictCache.standard)
  }

  /// Before adapter code runs in this process (not in a probe's child, whose stdout is its
  /// answer): fds 1 and 2 point away from it, and a crash or exit() in it is a failed adapter.
  private func contain() {
    if containing { AdapterStreams.divert(contain: { AdapterContainment.install(messageDescriptor: $0) }) }
  }

  public func knownSessionCheck(_ name: String, in searchPath: AdapterSearchPath) -> AdapterDescription.SessionCheck? {
    AdapterCatalog.standard(searchPath: searchPath).knownSessionCheck(named: name)
  }

  public func expectRequest() {
    CurlTransport.loadInBackground()
  }

  public func describe(_ name: String, in searchPath: AdapterSearchPath) throws(AdapterLoadError) -> AdapterDescription {
    contain()
    defer { AdapterStreams.forwardErrors() }
    return try AdapterCatalog.standard(searchPath: searchPath).adapter(named: name).description
  }

  public func loginNeeds(_ name: String, settings: [String: String], in searchPath: AdapterSearchPath)
    throws(AdapterLoadError) -> LoginNeeds
  {
    contain()
    defer { AdapterStreams.forwardErrors() }
    return try AdapterCatalog.standard(searchPath: searchPath).adapter(named: name).loginNeeds(settings: settings)
  }

  public func run(_ request: AdapterRequest, secretSettings: [String: SecretBytes], in searchPath: AdapterSearchPath)
    throws(AdapterLoadError) -> AdapterOutcome
  {
    contain()
    defer { AdapterStreams.forwardErrors() }
    let adapter = try AdapterCatalog.standard(searchPath: searchPath).adapter(named: request.adapter)
    return AdapterSessionRunner(adapter: adapter).run(request, secretSettings: secretSettings)
  }
}
