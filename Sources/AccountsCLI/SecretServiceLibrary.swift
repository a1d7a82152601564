import AccountsCore
import Glibc

/// The Secret Service, through libAccountsSecretService.so (the SecretService module), loaded
/// with dlopen the first time a command needs a secret.
///
/// Linking libsecret and GLib into the executable would cost every start about 3 ms, `list`
/// and completion included, which never touch a secret. The library sits beside the binary
/// in the build directory, or in PREFIX/lib/accounts when installed (`make install`); it is
/// found from /proc/self/exe only, never from the environment. RTLD_LOCAL keeps its symbols to
/// itself; it is never unloaded.
final class SecretServiceLibrary: SecretStore {
  static let fileName = "libAccountsSecretService.so"
  static let interfaceVersion: Int32 = 6

  private typealias ErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  private typealias CString = UnsafePointer<CChar>

  private let handle: UnsafeMutableRawPointer
  private let storeFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, CString, UnsafeRawPointer?, Int, ErrorOut) -> Int32
  private let lookupFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, CString, UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>, ErrorOut) -> Int32
  private let lookupAllFunction: @convention(c) (UnsafeMutableRawPointer, CString, UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>, ErrorOut) -> Int32
  private let kindsFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, ErrorOut, ErrorOut) -> Int32
  private let deleteFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, CString, ErrorOut) -> Int32
  private let deleteAllFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, ErrorOut) -> Int32
  private let deleteSettingsFunction: @convention(c) (UnsafeMutableRawPointer, CString, ErrorOut) -> Int32
  private let providerFunction: @convention(c) (UnsafeMutableRawPointer, ErrorOut, ErrorOut) -> Int32
  private let lockFunction: @convention(c) (UnsafeMutableRawPointer, ErrorOut, ErrorOut) -> Int32
  private let reportFunction: @convention(c) (UnsafeMutableRawPointer, ErrorOut, ErrorOut) -> Int32
  private let releaseFunction: @convention(c) (UnsafeMutableRawPointer?, Int) -> Void

  /// Loads the library and opens a store with the given deadlines. `quiet`: GLib's own
  /// warnings are dropped (ACCOUNTS_DEBUG keeps them).
  init(timeout: Double, promptTimeout: Double, mayPrompt: Bool, quiet: Bool = true) throws(SecretStoreError) {
    do throws(InstalledFiles.Missing) {
      let library = try SharedLibrary(
        Self.fileName, versionSymbol: "accounts_secret_interface_version", version: Self.interfaceVersion)
      typealias Open = @convention(c) (
        Double, Double, Int32, (@convention(c) (UnsafePointer<CChar>) -> Void)?, Int32
      ) -> UnsafeMutableRawPointer
      let open = try library.symbol("accounts_secret_open", as: Open.self)
      storeFunction = try library.symbol("accounts_secret_store", as: type(of: storeFunction))
      lookupFunction = try library.symbol("accounts_secret_lookup", as: type(of: lookupFunction))
      lookupAllFunction = try library.symbol("accounts_secret_lookup_all", as: type(of: lookupAllFunction))
      kindsFunction = try library.symbol("accounts_secret_kinds", as: type(of: kindsFunction))
      deleteFunction = try library.symbol("accounts_secret_delete", as: type(of: deleteFunction))
      deleteAllFunction = try library.symbol("accounts_secret_delete_all", as: type(of: deleteAllFunction))
      deleteSettingsFunction = try library.symbol("accounts_secret_delete_settings", as: type(of: deleteSettingsFunction))
      providerFunction = try library.symbol("accounts_secret_provider", as: type(of: providerFunction))
      lockFunction = try library.symbol("accounts_secret_lock", as: type(of: lockFunction))
      reportFunction = try library.symbol("accounts_secret_report", as: type(of: reportFunction))
      releaseFunction = try library.symbol("accounts_secret_release", as: type(of: releaseFunction))
      // No stuck callback: the library abandons a stuck call and answers for it itself.
      handle = open(timeout, promptTimeout, mayPrompt ? 1 : 0, nil, quiet ? 1 : 0)
    } catch {
      throw .supportMissing(detail: error.text)
    }
  }

  // The library runs each call on its own worker thread and answers even for a call it had to
  // abandon (the `stuck` error), so a call here always returns; see `GuardedCall.abandoned`.

  func store(_ secret: SecretBytes, for key: SecretKey) throws {
    let store = storeFunction
    let handle = handle
    try call { error in
      secret.withUnsafeBytes { bytes in
        store(handle, key.backend, key.account, key.kind.attributeValue, bytes.baseAddress, bytes.count, error)
      }
    }
  }

  func lookup(_ key: SecretKey) throws -> SecretBytes? {
    let lookup = lookupFunction
    let release = releaseFunction
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
    if let error = answer.error { throw GuardedCall.failure(error) }
    return answer.found
  }

  func lookupAll(kind: SecretKind) throws -> [SecretKey: SecretBytes] {
    let lookupAll = lookupAllFunction
    let release = releaseFunction
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
    if let error = answer.error { throw GuardedCall.failure(error) }
    return answer.found
  }

  func kinds(backend: String, account: String) throws -> [SecretKind] {
    let kinds = kindsFunction
    let handle = handle
    return try text { kinds(handle, backend, account, $0, $1) }
      .split(separator: "\n").compactMap { SecretKind(attributeValue: String($0)) }
  }

  func providerName() throws -> String? {
    let provider = providerFunction
    let handle = handle
    let name = try text { provider(handle, $0, $1) }
    return name.isEmpty ? nil : name
  }

  func delete(_ key: SecretKey) throws {
    let delete = deleteFunction
    let handle = handle
    try call { delete(handle, key.backend, key.account, key.kind.attributeValue, $0) }
  }

  func deleteAll(backend: String, account: String) throws {
    let deleteAll = deleteAllFunction
    let handle = handle
    try call { deleteAll(handle, backend, account, $0) }
  }

  func deleteSettings(backend: String) throws {
    let deleteSettings = deleteSettingsFunction
    let handle = handle
    try call { deleteSettings(handle, backend, $0) }
  }

  func lock() throws -> String {
    let lock = lockFunction
    let handle = handle
    return try text { lock(handle, $0, $1) }
  }

  func report() throws -> SecretServiceReport {
    let report = reportFunction
    let handle = handle
    return SecretServiceReport(wireText: try text { report(handle, $0, $1) })
  }

  /// Runs one entry point; its error text becomes the `SecretStoreError` it describes.
  @discardableResult
  private func call(_ body: (ErrorOut) -> Int32) throws(SecretStoreError) -> Int32 {
    let release = releaseFunction
    let answer = { () -> (result: Int32, error: String?) in
      var error: UnsafeMutablePointer<CChar>?
      let result = body(&error)
      guard let error else { return (result, nil) }
      defer { release(error, -1) }
      return (result, String(cString: error))
    }()
    if let error = answer.error { throw GuardedCall.failure(error) }
    return answer.result
  }

  /// Runs an entry point that answers with a string.
  private func text(_ body: (ErrorOut, ErrorOut) -> Int32) throws(SecretStoreError) -> String {
    let release = releaseFunction
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
    if let error = answer.error { throw GuardedCall.failure(error) }
    return answer.text
  }
}
