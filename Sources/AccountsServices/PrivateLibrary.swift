import AccountsContract
import AccountsCore
import AccountsSystem
import CAccountsPrivate
import Glibc
import SecretMemory
import Synchronization

/// accounts' private library, libAccountsPrivate.so: the Secret Service (libsecret) and the
/// behind the one table of accounts_private.h. The one loader of it.
///
/// Linking libsecret and GLib into the executable would cost every start about 3 ms, `list`
/// and completion included, which never touch a secret: so the library is loaded with dlopen
/// the first time a command needs libsecret (`PrivateSecretStore`). It sits beside the binary in the build directory, or in
/// PREFIX/lib/accounts when installed (`make install`); it is found from /proc/self/exe only,
/// never from the environment, and checked like an adapter before it is opened. RTLD_LOCAL
/// keeps its symbols to itself; it is never unloaded.
///
/// Sendable: the table is a copy of the library's (function pointers into code that is never
/// unloaded), set once.
public final class PrivateLibrary: @unchecked Sendable {
  public static let fileName = "libAccountsPrivate.so"

  /// The library's calls.
  public let calls: accounts_private

  /// Loaded by the first caller, from whichever thread; a failure is the same for every later one.
  private static let loaded = Mutex<Result<PrivateLibrary, InstalledFiles.Missing>?>(nil)

  /// The library, loaded on first use.
  public static func shared() throws(InstalledFiles.Missing) -> PrivateLibrary {
    try loaded.withLock { loaded in
      if let loaded { return loaded }
      let result = Result { () throws(InstalledFiles.Missing) in try PrivateLibrary() }
      loaded = result
      return result
    }.get()
  }

  /// Whether the library abandoned a Secret Service call (the process should then end without
  /// exit handlers: the call's thread may hold GLib's locks). Never loads the library.
  public static var abandonedACall: Bool {
    let library = loaded.withLock { try? $0?.get() }
    return library.map { $0.calls.secret_abandoned() != 0 } ?? false
  }

  private init() throws(InstalledFiles.Missing) {
    // Checked before dlopen, like an adapter: its constructors run on loading.
    let path: String
    switch InstalledFiles.checkedLibrary(Self.fileName) {
    case .success(let found): path = found
    case .failure(let missing): throw missing
    }
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
      let text = dlerror().map { String(cString: $0) } ?? path
      // "libsecret-1.so.0: cannot open shared object file: …": a library it needs is missing.
      let parts = text.split(separator: ":", maxSplits: 2)
      let dependencyMissing = parts.count == 3 && parts[0] != path && parts[1] == " cannot open shared object file"
      throw InstalledFiles.Missing(text: text, fix: dependencyMissing ? nil : InstalledFiles.reinstall)
    }
    guard let address = dlsym(handle, ACCOUNTS_PRIVATE_ENTRY_NAME) else {
      throw InstalledFiles.Missing(text: "\(path) has no \(ACCOUNTS_PRIVATE_ENTRY_NAME)")
    }
    // The one cast: the entry's type is the header's.
    let entry = unsafeBitCast(address, to: accounts_private_entry.self)
    guard let table = entry(ACCOUNTS_PRIVATE_VERSION),
      table.pointee.version == ACCOUNTS_PRIVATE_VERSION,
      Int(table.pointee.size) >= MemoryLayout<accounts_private>.size
    else {
      throw InstalledFiles.Missing(
        text: "\(path) does not speak version \(ACCOUNTS_PRIVATE_VERSION) of accounts_private.h")
    }
    calls = table.pointee
  }

  /// The text of a string the library returned, released.
  public func take(_ answer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let answer else { return nil }
    defer { calls.release(answer, -1) }
    return String(cString: answer)
  }
}
