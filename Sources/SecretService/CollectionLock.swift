import AccountsContract
import AccountsSystem
internal import CLibSecret

extension LibsecretStore {
  /// `accounts lock`: locks every collection that holds an item of accounts' schema, and the
  /// one the `default` alias names (where new items go), then asks each one's `Locked` over the
  /// bus: a lock is said done only when every collection holding items (or, with none, the
  /// alias one) says so. (After Seahorse's "Set as default" on another collection, locking the
  /// alias one alone left accounts' items open; gnome-keyring's in-memory "session" collection,
  /// holding none of them, may stay open.) Returns the labels of those locked, the alias one
  /// first, one per line.
  func lockCollections() throws -> String {
    let service = try connect()
    guard let alias = try defaultCollection(service) else {
      throw SecretStoreError.noCollection(provider: knownProvider())
    }
    let aliasPath = objectPath(of: alias)
    var holding: [String] = []
    let found = try searchPaths(service, [])
    for item in found.unlocked + found.locked {
      guard let slash = item.lastIndex(of: "/"), slash != item.startIndex else { continue }
      let collection = String(item[..<slash])
      if !holding.contains(collection) { holding.append(collection) }
    }
    let paths = [aliasPath] + holding.filter { $0 != aliasPath }
    let required = holding.isEmpty ? [aliasPath] : holding
    let names = paths.map { path in
      (path == aliasPath ? label(of: alias) : stringProperty(path, "org.freedesktop.Secret.Collection", "Label"))
        .flatMap { $0.isEmpty ? nil : $0 } ?? String(path.split(separator: "/").last ?? "default")
    }
    let requiredNames = zip(paths, names).filter { required.contains($0.0) }.map(\.1)
    let what = requiredNames.map { "'\($0)'" }.joined(separator: ", ")
    // KeePassXC declines to lock while it is still saving the database (a store just before):
    // it locks nothing and says so. Asked again shortly, it does; a few times, within `timeout`.
    let start = monotonicSeconds()
    var pause: UInt32 = 100_000
    while true {
      var copies: [UnsafePointer<gchar>?] = paths.map { UnsafePointer(strdup($0)) }
      copies.append(nil)
      defer { for copy in copies { free(UnsafeMutableRawPointer(mutating: copy)) } }
      var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
      _ = try copies.withUnsafeMutableBufferPointer { (array) throws(SecretStoreError) in
        try withDeadline("lock \(what)", seconds: timeout, collection: requiredNames[0]) { cancellable, error in
          secret_service_lock_dbus_paths_sync(service.pointer, array.baseAddress, cancellable, &locked, &error)
        }
      }
      _ = takeStrings(locked)
      let isLocked = paths.map { booleanProperty($0, "org.freedesktop.Secret.Collection", "Locked") == true }
      if zip(paths, isLocked).allSatisfy({ !required.contains($0.0) || $0.1 }) {
        let lockedNames = zip(names, isLocked).filter(\.1).map(\.0)
        return lockedNames.map { String($0.map { $0 == "\n" ? " " : $0 }) }.joined(separator: "\n")
      }
      guard monotonicSeconds() - start + Double(pause) / 1e6 < timeout else {
        throw SecretStoreError.failed(operation: "lock \(what)", detail: "the keyring did not lock them")
      }
      usleep(pause)
      pause = min(pause * 2, 1_000_000)
    }
  }

  private func objectPath(of collection: GObjectOwner<SecretCollection>) -> String {
    let proxy = UnsafeMutableRawPointer(collection.pointer).assumingMemoryBound(to: GDBusProxy.self)
    return g_dbus_proxy_get_object_path(proxy).map { String(cString: $0) } ?? "/"
  }

  /// A property of the object at `path`, read afresh from the provider (not a proxy's cache);
  /// nil when it cannot be read.
  private func property(_ path: String, _ interface: String, _ name: String) -> OpaquePointer? {
    guard let connection = connectedConnection else { return nil }
    var arguments: [OpaquePointer?] = [g_variant_new_string(interface), g_variant_new_string(name)]
    let milliseconds = Int32(min(timeout * 1000, Double(Int32.max)))
    guard
      let reply = g_dbus_connection_call_sync(
        connection, SessionBus.secretsName, path, "org.freedesktop.DBus.Properties", "Get",
        g_variant_new_tuple(&arguments, 2), nil, G_DBUS_CALL_FLAGS_NONE, milliseconds, nil, nil)
    else { return nil }
    defer { g_variant_unref(reply) }
    guard String(cString: g_variant_get_type_string(reply)) == "(v)" else { return nil }
    let boxed = g_variant_get_child_value(reply, 0)
    defer { g_variant_unref(boxed) }
    return g_variant_get_variant(boxed)
  }

  private func booleanProperty(_ path: String, _ interface: String, _ name: String) -> Bool? {
    guard let value = property(path, interface, name) else { return nil }
    defer { g_variant_unref(value) }
    guard String(cString: g_variant_get_type_string(value)) == "b" else { return nil }
    return g_variant_get_boolean(value) != 0
  }

  private func stringProperty(_ path: String, _ interface: String, _ name: String) -> String? {
    guard let value = property(path, interface, name) else { return nil }
    defer { g_variant_unref(value) }
    guard String(cString: g_variant_get_type_string(value)) == "s" else { return nil }
    return String(cString: g_variant_get_string(value, nil))
  }
}
