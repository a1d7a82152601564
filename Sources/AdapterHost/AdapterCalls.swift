import AccountsContract
import AccountsJSON
import AccountsSystem
import CAccountsAdapter
import Glibc
import SecretMemory

// The adapter host's calls in the table of libAccountsPrivate.so (accounts_private.h, built by
// AccountsPrivate/Entry.swift), called by the command line (AccountsCLI/PrivateAdapterHost.swift).
// Requests and answers are JSON texts (AdapterWire); secrets travel as acc_pair bytes named
// "password", "token" or "setting:NAME", and the token comes back as bytes the table's
// `release` wipes. Answers are malloc'd.

/// From now on a crash or exit() inside adapter code ends the process with exit status 9 and
/// one line on `descriptor` (the command's own stderr) instead (AdapterContainment).
public func accountsAdapterHostContain(_ descriptor: Int32) {
  AdapterContainment.install(messageDescriptor: descriptor)
}

/// One adapter file, checked and loaded: its `AdapterEntry`, described or refused. Called by
/// `accounts __probe-adapters` in a child process, which a broken adapter may take down.
public func accountsAdapterHostProbe(_ path: UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar> {
  let entry = AdapterCatalog.probe(String(cString: path), cache: VerdictCache.standard)
  return duplicate(JSON.serialize(entry.wireValue, pretty: false))
}

/// One adapter, loaded: an `AdapterDescription`, or NULL and an `AdapterLoadError` in `error`.
public func accountsAdapterHostDescribe(
  _ name: UnsafePointer<CChar>, _ searchPathText: UnsafePointer<CChar>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> UnsafeMutablePointer<CChar>? {
  do throws(AdapterLoadError) {
    let searchPath = try readSearchPath(String(cString: searchPathText))
    let adapter = try AdapterCatalog.standard(searchPath: searchPath).adapter(named: String(cString: name))
    return duplicate(JSON.serialize(adapter.description.wireValue, pretty: false))
  } catch let failure {
    error.pointee = duplicate(failure.wireText)
    return nil
  }
}

/// Runs one operation: an `AdapterOutcome`, or NULL and an `AdapterLoadError` in `error`. The
/// token of a LOGIN that succeeded is put in `token`/`tokenLength`, not in the outcome's text.
/// Safe to call from several threads at once: every call has its own request, secrets,
/// session and transfer.
public func accountsAdapterHostRun(
  _ requestText: UnsafePointer<CChar>, _ secretItems: UnsafePointer<acc_pair>?, _ secretCount: Int,
  _ token: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ tokenLength: UnsafeMutablePointer<Int>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> UnsafeMutablePointer<CChar>? {
  do throws(AdapterLoadError) {
    let request: AdapterRequest
    let secretSettings: [String: SecretBytes]
    let searchPath: AdapterSearchPath
    do {
      (request, secretSettings, searchPath) = try AdapterRequest.from(
        wireText: String(cString: requestText), secrets: readSecrets(secretItems, secretCount))
    } catch {
      throw .hostMissing(detail: "unreadable request: \(error.detail)")
    }
    let adapter = try AdapterCatalog.standard(searchPath: searchPath).adapter(named: request.adapter)
    let outcome = AdapterSessionRunner(adapter: adapter).run(request, secretSettings: secretSettings)
    if let returnedToken = outcome.token {
      returnedToken.withUnsafeBytes { bytes in
        let copy = malloc(max(bytes.count, 1))!
        if bytes.count > 0 { copy.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        token.pointee = copy
        tokenLength.pointee = bytes.count
      }
    }
    return duplicate(outcome.wireText)
  } catch let failure {
    error.pointee = duplicate(failure.wireText)
    return nil
  }
}

private func readSearchPath(_ text: String) throws(AdapterLoadError) -> AdapterSearchPath {
  do {
    return try AdapterSearchPath(wireReader: JSONReader(try JSON.parse(text)))
  } catch {
    throw .hostMissing(detail: "unreadable search path")
  }
}

/// The secrets beside a request, copied out of the caller's memory, by name.
private func readSecrets(_ items: UnsafePointer<acc_pair>?, _ count: Int) -> [(name: String, value: SecretBytes)] {
  guard let items else { return [] }
  return (0..<count).map { index in
    let pair = items[index]
    let name = pair.name.bytes.map {
      String(decoding: UnsafeRawBufferPointer(start: $0, count: pair.name.length), as: UTF8.self)
    } ?? ""
    return (name, SecretBytes(copying: UnsafeRawBufferPointer(start: pair.value.bytes, count: pair.value.length)))
  }
}

private func duplicate(_ text: String) -> UnsafeMutablePointer<CChar> {
  strdup(text)!
}
