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
  static let interfaceVersion: Int32 = 3

  private typealias ErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  private typealias CString = UnsafePointer<CChar>

  private let handle: UnsafeMutableRawPointer
  private let storeFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, CString, UnsafeRawPointer?, Int, ErrorOut) -> Int32
  private let lookupFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, CString, UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>, ErrorOut) -> Int32
  private let kindsFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, ErrorOut, ErrorOut) -> Int32
  private let deleteFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, CString, ErrorOut) -> Int32
  private let deleteAllFunction: @convention(c) (UnsafeMutableRawPointer, CString, CString, ErrorOut) -> Int32
  private let deleteSettingsFunction: @convention(c) (UnsafeMutableRawPointer, CString, ErrorOut) -> Int32
  private let providerFunction: @convention(c) (UnsafeMutableRawPointer, ErrorOut, ErrorOut) -> Int32
  private let lockFunction: @convention(c) (UnsafeMutableRawPointer, ErrorOut, ErrorOut) -> Int32
  private let reportFunction: @convention(c) (UnsafeMutableRawPointer, ErrorOut, ErrorOut) -> Int32
  private let releaseFunction: @convention(c) (UnsafeMutableRawPointer?, Int) -> Void

  /// Loads the library and opens a store with the given deadlines.
  init(timeout: Double, promptTimeout: Double, mayPrompt: Bool) throws(SecretStoreError) {
    do throws(InstalledFiles.Missing) {
      let library = try SharedLibrary(
        Self.fileName, versionSymbol: "accounts_secret_interface_version", version: Self.interfaceVersion)
      let open = try library.symbol(
        "accounts_secret_open", as: (@convention(c) (Double, Double, Int32) -> UnsafeMutableRawPointer).self)
      storeFunction = try library.symbol("accounts_secret_store", as: type(of: storeFunction))
      lookupFunction = try library.symbol("accounts_secret_lookup", as: type(of: lookupFunction))
      kindsFunction = try library.symbol("accounts_secret_kinds", as: type(of: kindsFunction))
      deleteFunction = try library.symbol("accounts_secret_delete", as: type(of: deleteFunction))
      deleteAllFunction = try library.symbol("accounts_secret_delete_all", as: type(of: deleteAllFunction))
      deleteSettingsFunction = try library.symbol("accounts_secret_delete_settings", as: type(of: deleteSettingsFunction))
      providerFunction = try library.symbol("accounts_secret_provider", as: type(of: providerFunction))
      lockFunction = try library.symbol("accounts_secret_lock", as: type(of: lockFunction))
      reportFunction = try library.symbol("accounts_secret_report", as: type(of: reportFunction))
      releaseFunction = try library.symbol("accounts_secret_release", as: type(of: releaseFunction))
      handle = open(timeout, promptTimeout, mayPrompt ? 1 : 0)
    } catch {
      throw .supportMissing(detail: error.text)
    }
  }

  func store(_ secret: SecretBytes, for key: SecretKey) throws {
    try call { error in
      secret.withUnsafeBytes { bytes in
        storeFunction(handle, key.backend, key.account, key.kind.attributeValue, bytes.baseAddress, bytes.count, error)
      }
    }
  }

  func lookup(_ key: SecretKey) throws -> SecretBytes? {
    var bytes: UnsafeMutableRawPointer?
    var length = 0
    let found = try call { error in
      lookupFunction(handle, key.backend, key.account, key.kind.attributeValue, &bytes, &length, error)
    }
    guard found == 1, let bytes else { return nil }
    defer { releaseFunction(bytes, length) }
    return SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length))
  }

  func kinds(backend: String, account: String) throws -> [SecretKind] {
    try text { kindsFunction(handle, backend, account, $0, $1) }
      .split(separator: "\n").compactMap { SecretKind(attributeValue: String($0)) }
  }

  func delete(_ key: SecretKey) throws {
    try call { deleteFunction(handle, key.backend, key.account, key.kind.attributeValue, $0) }
  }

  func deleteAll(backend: String, account: String) throws {
    try call { deleteAllFunction(handle, backend, account, $0) }
  }

  func deleteSettings(backend: String) throws {
    try call { deleteSettingsFunction(handle, backend, $0) }
  }

  func providerName() -> String? {
    guard let name = try? text({ providerFunction(handle, $0, $1) }), !name.isEmpty else { return nil }
    return name
  }

  func lock() throws -> String {
    try text { lockFunction(handle, $0, $1) }
  }

  func report() throws -> SecretServiceReport {
    SecretServiceReport(wireText: try text { reportFunction(handle, $0, $1) })
  }

  /// Runs one entry point; its error text becomes the `SecretStoreError` it describes.
  @discardableResult
  private func call(_ body: (ErrorOut) -> Int32) throws(SecretStoreError) -> Int32 {
    var error: UnsafeMutablePointer<CChar>?
    let result = body(&error)
    if let error {
      defer { releaseFunction(error, -1) }
      throw SecretStoreError(wireText: String(cString: error))
    }
    return result
  }

  /// Runs an entry point that answers with a string.
  private func text(_ body: (ErrorOut, ErrorOut) -> Int32) throws(SecretStoreError) -> String {
    var answer: UnsafeMutablePointer<CChar>?
    try call { body(&answer, $0) }
    guard let answer else { return "" }
    defer { releaseFunction(answer, -1) }
    return String(cString: answer)
  }

}
