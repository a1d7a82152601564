import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsSystem
import CAccountsAdapter
import CAccountsPrivate
import Glibc
import SecretMemory

/// The adapter host, through the private library (`PrivateLibrary`), loaded by the commands
/// that use adapters. It brings GLib and libcurl, which `list` and completion must not pay for.
///
/// Sendable: it holds nothing but the library's table, set once; every call brings its own
/// buffers and frees its own answers, and the library's calls may run on several threads at once.
public final class PrivateAdapterHost: AdapterHosting {
  private let library: PrivateLibrary

  /// Whether adapter code is contained (`contain`): false only in tests, whose own process
  /// keeps its stdout and stderr.
  private let containing: Bool

  public init(containing: Bool = true) throws(AdapterLoadError) {
    self.containing = containing
    do throws(InstalledFiles.Missing) {
      library = try PrivateLibrary.shared()
    } catch {
      throw .hostMissing(detail: error.text, fix: error.fix)
    }
  }

  public func probe(_ path: String) -> AdapterEntry {
    let text = library.take(library.calls.adapter_probe(path)) ?? ""
    guard let value = try? JSON.parse(text), let entry = try? AdapterEntry(wireReader: JSONReader(value)) else {
      return AdapterEntry(path: path, name: "", refusal: "the adapter host gave an unreadable answer")
    }
    return entry
  }

  /// Before adapter code runs in this process (not in a probe's child, whose stdout is its
  /// answer): fds 1 and 2 point away from it, and a crash or exit() in it is a failed adapter.
  private func contain() {
    if containing { AdapterStreams.divert(contain: library.calls.adapter_contain) }
  }

  public func describe(_ name: String, in searchPath: AdapterSearchPath) throws(AdapterLoadError) -> AdapterDescription {
    contain()
    defer { AdapterStreams.forwardErrors() }
    var error: UnsafeMutablePointer<CChar>?
    let answer = library.take(library.calls.adapter_describe(name, JSON.serialize(searchPath.wireValue, pretty: false), &error))
    if let failure = library.take(error) { throw AdapterLoadError(wireText: failure) }
    do {
      return try AdapterDescription.from(wireText: answer ?? "")
    } catch {
      throw .hostMissing(detail: "unreadable adapter description: \(error.detail)")
    }
  }

  public func run(_ request: AdapterRequest, secretSettings: [String: SecretBytes], in searchPath: AdapterSearchPath)
    throws(AdapterLoadError) -> AdapterOutcome
  {
    contain()
    defer { AdapterStreams.forwardErrors() }
    var error: UnsafeMutablePointer<CChar>?
    var tokenBytes: UnsafeMutableRawPointer?
    var tokenLength = 0
    let answer = SecretPairs.withPairs(request.wireSecrets(secretSettings: secretSettings)) { pairs in
      library.take(library.calls.adapter_run(
        request.wireText(searchPath: searchPath), pairs.baseAddress, pairs.count, &tokenBytes,
        &tokenLength, &error))
    }
    var token: SecretBytes?
    if let tokenBytes {
      token = SecretBytes(copying: UnsafeRawBufferPointer(start: tokenBytes, count: tokenLength))
      library.calls.release(tokenBytes, tokenLength)
    }
    if let failure = library.take(error) { throw AdapterLoadError(wireText: failure) }
    do {
      return try AdapterOutcome(wireText: answer ?? "", token: token)
    } catch {
      throw .hostMissing(detail: "unreadable outcome: \(error.detail)")
    }
  }
}

/// Secrets as `acc_pair`s pointing into the SecretBytes themselves, valid inside `body` only:
/// no copy of a secret is made on this side.
public enum SecretPairs {
  public static func withPairs<R>(
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
