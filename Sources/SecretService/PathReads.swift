import AccountsContract
import AccountsSystem
import SecretMemory
internal import CLibSecret

/// What one Service.SearchItems answered: the object paths of the items the caller may read
/// now, and of those the provider keeps locked (a locked collection, or KeePassXC's access
/// confirmation). No proxy object per item: a read costs the calls secret-tool makes.
struct FoundPaths {
  var unlocked: [String]
  var locked: [String]

  var isEmpty: Bool { unlocked.isEmpty && locked.isEmpty }
}

extension LibsecretStore {
  /// One Service.SearchItems for `attributes` (and the accounts schema).
  func searchPaths(
    _ service: GObjectOwner<CLibSecret.SecretService>, _ attributes: [(String, String)]
  ) throws(SecretStoreError) -> FoundPaths {
    try withAttributes(attributes) { (table) throws(SecretStoreError) in
      var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
      var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
      _ = try withDeadline("search the keyring", seconds: timeout) { cancellable, error in
        secret_service_search_for_dbus_paths_sync(
          service.pointer, accountsSchema, table, cancellable, &unlocked, &locked, &error)
      }
      return FoundPaths(unlocked: takeStrings(unlocked), locked: takeStrings(locked))
    }
  }

  /// The secret of the item at `path` (Service.GetSecrets; the session is opened on the first
  /// read). Nil when the provider gave none: the item was deleted after the search.
  func secret(
    at path: String, label: String, _ service: GObjectOwner<CLibSecret.SecretService>
  ) throws(SecretStoreError) -> SecretBytes? {
    let value = try withDeadline("read \(label)", seconds: timeout, tolerating: \.isNoSuchObject) {
      cancellable, error in
      secret_service_get_secret_for_dbus_path_sync(service.pointer, path, cancellable, &error)
    }
    guard let value else { return nil }
    defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
    var length: gsize = 0
    let bytes = secret_value_get(value, &length)
    return SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: Int(length)))
  }

  /// Asks the provider for access to the items at `paths` (its own prompt, `promptTimeout`):
  /// the paths it unlocked. Throws `.accessNotGranted` without a person to ask or when the
  /// prompt is dismissed.
  func unlockPaths(_ paths: [String], label: String, asking: String = "access") throws(SecretStoreError) -> [String] {
    guard mayPrompt, let service = connectedService else {
      throw .accessNotGranted(item: label, provider: knownProvider())
    }
    var copies: [UnsafePointer<gchar>?] = paths.map { UnsafePointer(strdup($0)) }
    copies.append(nil)
    defer { for copy in copies { free(UnsafeMutableRawPointer(mutating: copy)) } }
    var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
    let count = try copies.withUnsafeMutableBufferPointer { (array) throws(SecretStoreError) in
      try withDeadline("\(asking) \(label)", seconds: promptTimeout, prompt: true, collection: label) {
        cancellable, error in
        secret_service_unlock_dbus_paths_sync(service.pointer, array.baseAddress, cancellable, &unlocked, &error)
      }
    }
    let opened = takeStrings(unlocked)
    if count < 1 || opened.isEmpty { throw .accessNotGranted(item: label, provider: knownProvider()) }
    return opened
  }
}

/// Takes over a NULL-terminated, "transfer full" array of strings (g_strfreev).
func takeStrings(_ array: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
  guard let array else { return [] }
  defer { g_strfreev(array) }
  var strings: [String] = []
  var index = 0
  while let string = array[index] {
    strings.append(String(cString: string))
    index += 1
  }
  return strings
}
