import AccountsContract
import AccountsSystem
import Glibc
import SecretMemory

// The Secret Service's calls in the table of libAccountsPrivate.so (accounts_private.h, built
// by AccountsPrivate/Entry.swift). The command line loads that library the first time a
// command needs a secret, so that `list` and completion never pay for loading libsecret and
// GLib (about 3 ms and 4.7 M instructions per start on the 2-core machine).
//
// Only C types cross: NUL-terminated strings, byte buffers (many secrets at once as
// `SecretRecords`), and error texts (the JSON of `SecretStoreError.wireText`). Memory returned
// is released by the library (the table's `release`); secrets are wiped before they are freed.
//
// Return values: 0 success (1 for "found" from lookup), -1 failure with `*error` set.

/// A store with the given deadlines; never freed (one per process). A call that does not
/// return even after it was cancelled at its deadline is abandoned by this library, which then
/// answers with the `stuck` error itself (see `Worker`). `quiet`: GLib's own warnings
/// (libsecret's criticals when a provider vanishes) are dropped, not printed.
public func openSecretStore(timeout: Double, promptTimeout: Double, mayPrompt: Int32, quiet: Int32)
  -> UnsafeMutableRawPointer
{
  if quiet != 0 { silenceGLib() }
  return Unmanaged.passRetained(
    LibsecretStore(timeout: timeout, promptTimeout: promptTimeout, mayPrompt: mayPrompt != 0)
  ).toOpaque()
}

public func storeSecret(
  _ handle: UnsafeMutableRawPointer, _ backend: UnsafePointer<CChar>, _ account: UnsafePointer<CChar>,
  _ kind: UnsafePointer<CChar>, _ url: UnsafePointer<CChar>?, _ bytes: UnsafeRawPointer?, _ length: Int,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  let secret = SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length))
  let key = key(backend, account, kind).map { key in
    var key = key
    key.url = url.map { String(cString: $0) }
    return key
  }
  return reporting(handle, error) { store in try store.store(secret, for: try key.get()) } deliver: { 0 }
}

public func lookUpSecret(
  _ handle: UnsafeMutableRawPointer, _ backend: UnsafePointer<CChar>, _ account: UnsafePointer<CChar>,
  _ kind: UnsafePointer<CChar>, _ bytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
  _ length: UnsafeMutablePointer<Int>, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  let key = key(backend, account, kind)
  return reporting(handle, error) { store in try store.lookup(try key.get()) } deliver: { found in
    guard let secret = found else { return 0 }
    let copy = malloc(max(secret.count, 1))!
    secret.withUnsafeBytes { if let base = $0.baseAddress { copy.copyMemory(from: base, byteCount: $0.count) } }
    bytes.pointee = copy
    length.pointee = secret.count
    return 1
  }
}

/// Every item of `kind`: `*records` gets a buffer of `SecretRecords` (backend, account, secret
/// per item) of `*length` bytes, to be released with its length, which wipes it.
public func lookUpAllSecrets(
  _ handle: UnsafeMutableRawPointer, _ kind: UnsafePointer<CChar>,
  _ records: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ length: UnsafeMutablePointer<Int>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  let text = String(cString: kind)
  return reporting(handle, error) { store in
    guard let kind = SecretKind(attributeValue: text) else {
      throw SecretStoreError.failed(operation: "use the Secret Service", detail: "unknown item kind '\(text)'")
    }
    return try store.lookupAll(kind: kind)
  } deliver: { found in
    let encoded = SecretRecords.encode(found)
    records.pointee = encoded.bytes
    length.pointee = encoded.count
    return 0
  }
}

/// `*kinds` gets the kinds of the items of one account (or of a backend, account ""), one
/// attribute value per line.
public func secretKinds(
  _ handle: UnsafeMutableRawPointer, _ backend: UnsafePointer<CChar>, _ account: UnsafePointer<CChar>,
  _ kinds: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  let (backend, account) = (String(cString: backend), String(cString: account))
  return reporting(handle, error) { store in try store.kinds(backend: backend, account: account) } deliver: { found in
    kinds.pointee = strdup(found.map(\.attributeValue).joined(separator: "\n"))
    return 0
  }
}

public func deleteSecret(
  _ handle: UnsafeMutableRawPointer, _ backend: UnsafePointer<CChar>, _ account: UnsafePointer<CChar>,
  _ kind: UnsafePointer<CChar>, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  let key = key(backend, account, kind)
  return reporting(handle, error) { store in try store.delete(try key.get()) } deliver: { 0 }
}

public func deleteAccountSecrets(
  _ handle: UnsafeMutableRawPointer, _ backend: UnsafePointer<CChar>, _ account: UnsafePointer<CChar>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  let (backend, account) = (String(cString: backend), String(cString: account))
  return reporting(handle, error) { store in try store.deleteAll(backend: backend, account: account) } deliver: { 0 }
}

public func deleteBackendSettings(
  _ handle: UnsafeMutableRawPointer, _ backend: UnsafePointer<CChar>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  let backend = String(cString: backend)
  return reporting(handle, error) { store in try store.deleteSettings(backend: backend) } deliver: { 0 }
}

/// `*name` gets the program that provides the Secret Service, or NULL when unknown.
public func secretProvider(
  _ handle: UnsafeMutableRawPointer, _ name: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  reporting(handle, error) { store in try store.providerName() } deliver: { found in
    name.pointee = found.map { strdup($0) } ?? nil
    return 0
  }
}

/// Locks the default collection; `*label` gets its label.
public func lockCollection(
  _ handle: UnsafeMutableRawPointer, _ label: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  reporting(handle, error) { store in try store.lock() } deliver: { name in
    label.pointee = strdup(name)
    return 0
  }
}

/// `*report` gets the JSON of `SecretServiceReport.wireText`.
public func reportSecretService(
  _ handle: UnsafeMutableRawPointer, _ report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  reporting(handle, error) { store in try store.report() } deliver: { found in
    report.pointee = strdup(found.wireText)
    return 0
  }
}

/// 1 once a call was abandoned (its thread may still hold GLib's locks), else 0.
public func secretCallAbandoned() -> Int32 { Worker.abandonedACall ? 1 : 0 }

/// Wipes and frees memory this library returned: `length` bytes of a secret, or a string
/// (pass -1 for a NUL-terminated string). The table's one `release`, for the adapter host's
/// answers too.
public func releaseSecretMemory(_ pointer: UnsafeMutableRawPointer?, _ length: Int) {
  guard let pointer else { return }
  let count = length >= 0 ? length : strlen(pointer.assumingMemoryBound(to: CChar.self))
  wipe(pointer, count: count)
  free(pointer)
}

/// Runs `body` on the store behind `handle` on the worker thread (`Worker`); its answer is
/// handed to `deliver` here, which writes the caller's out-parameters and returns 0 or 1. A
/// thrown error, or the call being stuck, becomes `*errorOut` and -1. `body` must own what it
/// uses: an abandoned call may run on after this returned.
private func reporting<Answer>(
  _ handle: UnsafeMutableRawPointer, _ errorOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ body: @escaping (LibsecretStore) throws -> Answer, deliver: (Answer) -> Int32
) -> Int32 {
  let store = Unmanaged<LibsecretStore>.fromOpaque(handle).takeUnretainedValue()
  let box = AnswerBox<Answer>()
  // The provider is asked on the worker too, never on this thread: the store's connection is
  // the worker's alone, and another thread's call may be running there.
  let work = {
    do {
      return try body(store)
    } catch SecretStoreError.locked(let collection, nil) {
      // GLib's "locked" errors do not know the provider; its fix does (Seahorse or KeePassXC).
      throw SecretStoreError.locked(collection: collection, provider: store.knownProvider())
    }
  }
  if let stuck = Worker.run({ box.result = Result { try work() } }) {
    errorOut.pointee = strdup(stuck)
    return -1
  }
  switch box.result {
  case .success(let answer)?:
    return deliver(answer)
  case .failure(let failure as SecretStoreError)?:
    errorOut.pointee = strdup(failure.wireText)
  case .failure(let error)?:
    let failure = SecretStoreError.failed(operation: "use the Secret Service", detail: "\(error)")
    errorOut.pointee = strdup(failure.wireText)
  case nil:
    errorOut.pointee = strdup(SecretStoreError.failed(operation: "use the Secret Service", detail: "no answer").wireText)
  }
  return -1
}

/// What a call on the worker thread answered; written there before the call counts as finished.
private final class AnswerBox<Answer> {
  var result: Result<Answer, any Error>?
}

/// The key the C arguments name (copied: the worker may outlive them), or why they name none.
private func key(
  _ backend: UnsafePointer<CChar>, _ account: UnsafePointer<CChar>, _ kind: UnsafePointer<CChar>
) -> Result<SecretKey, SecretStoreError> {
  let text = String(cString: kind)
  guard let kind = SecretKind(attributeValue: text) else {
    return .failure(.failed(operation: "use the Secret Service", detail: "unknown item kind '\(text)'"))
  }
  return .success(SecretKey(backend: String(cString: backend), account: String(cString: account), kind: kind))
}
