import AccountsContract
import AccountsCore
import AccountsSystem
import CAccountsPrivate
import Glibc
import SecretMemory

/// The Secret Service, through the private library (`PrivateLibrary`), loaded the first time
/// a command needs a secret.
public final class PrivateSecretStore: SecretStore {
  private typealias ErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

  private let library: PrivateLibrary
  private let handle: UnsafeMutableRawPointer

  /// Loads the library and opens a store with the given deadlines. `quiet`: GLib's own
  /// warnings are dropped (ACCOUNTS_DEBUG keeps them).
  public init(timeout: Double, promptTimeout: Double, mayPrompt: Bool, quiet: Bool = true) throws(SecretStoreError) {
    do throws(InstalledFiles.Missing) {
      library = try PrivateLibrary.shared()
    } catch {
      throw .supportMissing(detail: error.text, fix: error.fix)
    }
    handle = library.calls.secret_open(timeout, promptTimeout, mayPrompt ? 1 : 0, quiet ? 1 : 0)
  }

  // The library runs each call on its own worker thread and answers even for a call it had to
  // abandon (the `stuck` error), so a call here always returns; see `PrivateLibrary.abandonedACall`.

  public func store(_ secret: SecretBytes, for key: SecretKey) throws {
    let store = library.calls.secret_store
    let handle = handle
    try call { error in
      secret.withUnsafeBytes { bytes in
        store(handle, key.backend, key.account, key.kind.attributeValue, key.url, bytes.baseAddress, bytes.count, error)
      }
    }
  }

  public func lookup(_ key: SecretKey) throws -> SecretBytes? {
    let lookup = library.calls.secret_lookup
    let release = library.calls.release
    let handle = handle
    let answer = { () -> (found: SecretBytes?, error: String?) in
      var bytes: UnsafeMutableRawPointer?
      var length = 0
      var error: UnsafeMutablePointer<CChar>?
      let found = lookup(handle, key.backend, key.account, key.kind.attributeValue, &bytes, &length, &error)
      if let error {
        defer { release(error, -1) }
        return (nil, String(cString: error))
      }
      guard found == 1, let bytes else { return (nil, nil) }
      defer { release(bytes, length) }
      return (SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length)), nil)
    }()
    if let error = answer.error { throw SecretStoreError(wireText: error) }
    return answer.found
  }

  public func lookupAll(kind: SecretKind) throws -> [SecretKey: SecretBytes] {
    let lookupAll = library.calls.secret_lookup_all
    let release = library.calls.release
    let handle = handle
    let answer = { () -> (found: [SecretKey: SecretBytes], error: String?) in
      var records: UnsafeMutableRawPointer?
      var length = 0
      var error: UnsafeMutablePointer<CChar>?
      _ = lookupAll(handle, kind.attributeValue, &records, &length, &error)
      defer { if let records { release(records, length) } }
      if let error {
        defer { release(error, -1) }
        return ([:], String(cString: error))
      }
      do throws(SecretStoreError) {
        return (try SecretRecords.decode(UnsafeRawBufferPointer(start: records, count: records == nil ? 0 : length), kind: kind), nil)
      } catch {
        return ([:], error.wireText)
      }
    }()
    if let error = answer.error { throw SecretStoreError(wireText: error) }
    return answer.found
  }

  public func kinds(backend: String, account: String) throws -> [SecretKind] {
    let kinds = library.calls.secret_kinds
    let handle = handle
    return try text { kinds(handle, backend, account, $0, $1) }
      .split(separator: "\n").compactMap { SecretKind(attributeValue: String($0)) }
  }

  public func providerName() throws -> String? {
    let provider = library.calls.secret_provider
    let handle = handle
    let name = try text { provider(handle, $0, $1) }
    return name.isEmpty ? nil : name
  }

  public func delete(_ key: SecretKey) throws {
    let delete = library.calls.secret_delete
    let handle = handle
    try call { delete(handle, key.backend, key.account, key.kind.attributeValue, $0) }
  }

  public func deleteAll(backend: String, account: String) throws {
    let deleteAll = library.calls.secret_delete_all
    let handle = handle
    try call { deleteAll(handle, backend, account, $0) }
  }

  public func deleteSettings(backend: String) throws {
    let deleteSettings = library.calls.secret_delete_settings
    let handle = handle
    try call { deleteSettings(handle, backend, $0) }
  }

  public func lock() throws -> String {
    let lock = library.calls.secret_lock
    let handle = handle
    return try text { lock(handle, $0, $1) }
  }

  public func report() throws -> SecretServiceReport {
    let report = library.calls.secret_report
    let handle = handle
    return SecretServiceReport(wireText: try text { report(handle, $0, $1) })
  }

  /// Runs one entry point; its error text becomes the `SecretStoreError` it describes.
  @discardableResult
  private func call(_ body: (ErrorOut) -> Int32) throws(SecretStoreError) -> Int32 {
    let release = library.calls.release
    let answer = { () -> (result: Int32, error: String?) in
      var error: UnsafeMutablePointer<CChar>?
      let result = body(&error)
      guard let error else { return (result, nil) }
      defer { release(error, -1) }
      return (result, String(cString: error))
    }()
    if let error = answer.error { throw SecretStoreError(wireText: error) }
    return answer.result
  }

  /// Runs an entry point that answers with a string.
  private func text(_ body: (ErrorOut, ErrorOut) -> Int32) throws(SecretStoreError) -> String {
    let release = library.calls.release
    let answer = { () -> (text: String, error: String?) in
      var text: UnsafeMutablePointer<CChar>?
      var error: UnsafeMutablePointer<CChar>?
      _ = body(&text, &error)
      defer {
        if let text { release(text, -1) }
      }
      if let error {
        defer { release(error, -1) }
        return ("", String(cString: error))
      }
      return (text.map { String(cString: $0) } ?? "", nil)
    }()
    if let error = answer.error { throw SecretStoreError(wireText: error) }
    return answer.text
  }
}
