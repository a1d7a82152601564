import AccountsCore
import AccountsJSON
import CAccountsAdapter
import Glibc

/// The adapter host, through libAccountsAdapterHost.so (the AdapterHost module), loaded with
/// dlopen by the commands that use adapters. It brings GLib and libcurl, which `list` and
/// completion must not pay for; like the Secret Service library it sits beside the executable
/// or in PREFIX/lib/accounts, RTLD_LOCAL, never unloaded.
///
/// Sendable: it holds nothing but the library's function pointers, set once in `init` (the
/// library is never unloaded); every call brings its own buffers and frees its own answers,
/// and the entry points may run on several threads at once.
final class AdapterHostLibrary: AdapterHosting {
  static let fileName = "libAccountsAdapterHost.so"
  static let interfaceVersion: Int32 = 4

  private typealias ErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  private typealias CString = UnsafePointer<CChar>
  private typealias Answer = UnsafeMutablePointer<CChar>?

  private let probeFunction: @convention(c) (CString) -> Answer
  private let describeFunction: @convention(c) (CString, CString, ErrorOut) -> Answer
  private let runFunction: @convention(c) (
    CString, UnsafePointer<acc_pair>?, Int, UnsafeMutablePointer<UnsafeMutableRawPointer?>,
    UnsafeMutablePointer<Int>, ErrorOut
  ) -> Answer
  private let releaseFunction: @convention(c) (UnsafeMutableRawPointer?, Int) -> Void
  private let containFunction: @convention(c) (Int32) -> Void

  /// Whether adapter code is contained (`contain`): false only in tests, whose own process
  /// keeps its stdout and stderr.
  private let containing: Bool

  init(containing: Bool = true) throws(AdapterError) {
    self.containing = containing
    do throws(InstalledFiles.Missing) {
      let library = try SharedLibrary(
        Self.fileName, versionSymbol: "accounts_adapter_host_interface_version", version: Self.interfaceVersion)
      probeFunction = try library.symbol("accounts_adapter_host_probe", as: type(of: probeFunction))
      describeFunction = try library.symbol("accounts_adapter_host_describe", as: type(of: describeFunction))
      runFunction = try library.symbol("accounts_adapter_host_run", as: type(of: runFunction))
      releaseFunction = try library.symbol("accounts_adapter_host_release", as: type(of: releaseFunction))
      containFunction = try library.symbol("accounts_adapter_host_contain", as: type(of: containFunction))
    } catch {
      throw .hostMissing(detail: error.text)
    }
  }

  func probe(_ path: String) -> AdapterEntry {
    let text = take(probeFunction(path)) ?? ""
    guard let value = try? JSON.parse(text), let entry = try? AdapterEntry(wireReader: JSONReader(value)) else {
      return AdapterEntry(path: path, name: "", refusal: "the adapter host gave an unreadable answer")
    }
    return entry
  }

  /// Before adapter code runs in this process (not in a probe's child, whose stdout is its
  /// answer): fds 1 and 2 point away from it, and a crash or exit() in it is a failed adapter.
  private func contain() {
    if containing { AdapterStreams.divert(contain: containFunction) }
  }

  func describe(_ name: String, in searchPath: AdapterSearchPath) throws(AdapterError) -> AdapterDescription {
    contain()
    defer { AdapterStreams.forwardErrors() }
    var error: UnsafeMutablePointer<CChar>?
    let answer = take(describeFunction(name, JSON.serialize(searchPath.wireValue, pretty: false), &error))
    if let failure = take(error) { throw AdapterError(wireText: failure) }
    do {
      return try AdapterDescription.from(wireText: answer ?? "")
    } catch {
      throw .hostMissing(detail: "unreadable adapter description: \(error.detail)")
    }
  }

  func run(_ request: AdapterRequest, secretSettings: [String: SecretBytes], in searchPath: AdapterSearchPath)
    throws(AdapterError) -> AdapterOutcome
  {
    contain()
    defer { AdapterStreams.forwardErrors() }
    var error: UnsafeMutablePointer<CChar>?
    var tokenBytes: UnsafeMutableRawPointer?
    var tokenLength = 0
    let answer = SecretPairs.withPairs(request.wireSecrets(secretSettings: secretSettings)) { pairs in
      take(runFunction(
        request.wireText(searchPath: searchPath), pairs.baseAddress, pairs.count, &tokenBytes,
        &tokenLength, &error))
    }
    var token: SecretBytes?
    if let tokenBytes {
      token = SecretBytes(copying: UnsafeRawBufferPointer(start: tokenBytes, count: tokenLength))
      releaseFunction(tokenBytes, tokenLength)
    }
    if let failure = take(error) { throw AdapterError(wireText: failure) }
    do {
      return try AdapterOutcome(wireText: answer ?? "", token: token)
    } catch {
      throw .hostMissing(detail: "unreadable outcome: \(error.detail)")
    }
  }

  /// The text of an answer, released.
  private func take(_ answer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let answer else { return nil }
    defer { releaseFunction(answer, -1) }
    return String(cString: answer)
  }
}

/// Secrets as `acc_pair`s pointing into the SecretBytes themselves, valid inside `body` only:
/// no copy of a secret is made on this side.
enum SecretPairs {
  static func withPairs<R>(
    _ named: [(name: String, value: SecretBytes)], _ body: (UnsafeBufferPointer<acc_pair>) -> R
  ) -> R {
    var pairs: [acc_pair] = []
    var names: [UnsafeMutablePointer<CChar>] = []
    defer { names.forEach { free($0) } }
    func build(_ index: Int) -> R {
      guard index < named.count else { return pairs.withUnsafeBufferPointer(body) }
      let (name, value) = named[index]
      let copy = strdup(name)!
      names.append(copy)
      return value.withUnsafeBytes { bytes in
        pairs.append(acc_pair(
          name: acc_string(bytes: copy, length: strlen(copy)),
          value: acc_string(bytes: bytes.baseAddress?.assumingMemoryBound(to: CChar.self), length: bytes.count)))
        return build(index + 1)
      }
    }
    return build(0)
  }
}
