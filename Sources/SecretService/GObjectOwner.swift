import AccountsContract
internal import CLibSecret

/// Owns one reference to a GObject (a SecretService, SecretCollection or SecretItem) and drops
/// it when the owner goes away. A class, so that arrays of items can hold them.
final class GObjectOwner<Object> {
  let pointer: UnsafeMutablePointer<Object>

  /// Takes over a reference the caller owns (a "transfer full" return value).
  init(taking pointer: UnsafeMutablePointer<Object>) {
    self.pointer = pointer
  }

  deinit { g_object_unref(pointer) }
}

/// Takes over a "transfer full" GList of GObjects: the list is freed at once, and each element's
/// reference moves to a `GObjectOwner`.
func takeObjects<Object>(
  _ list: UnsafeMutablePointer<GList>?, as type: Object.Type
) -> [GObjectOwner<Object>] {
  var owners: [GObjectOwner<Object>] = []
  var node = list
  while let current = node {
    if let data = current.pointee.data {
      owners.append(GObjectOwner(taking: data.assumingMemoryBound(to: Object.self)))
    }
    node = current.pointee.next
  }
  g_list_free(list)
  return owners
}

/// Lends `objects` to a C call that takes a GList it does not keep ("transfer none").
func withBorrowedList<Object, Result, Failure: Error>(
  _ objects: [GObjectOwner<Object>], _ body: (UnsafeMutablePointer<GList>?) throws(Failure) -> Result
) throws(Failure) -> Result {
  var list: UnsafeMutablePointer<GList>?
  for object in objects.reversed() { list = g_list_prepend(list, object.pointer) }
  defer {
    g_list_free(list)
    withExtendedLifetime(objects) {}
  }
  return try body(list)
}

/// A libsecret attribute table for `attributes`, freed after `body`.
func withAttributes<Result>(
  _ attributes: [(String, String)], _ body: (OpaquePointer) throws(SecretStoreError) -> Result
) throws(SecretStoreError) -> Result {
  let table = accounts_attributes_new()!
  defer { g_hash_table_unref(table) }
  for (name, value) in attributes {
    g_hash_table_insert(table, g_strdup(name), g_strdup(value))
  }
  return try body(table)
}

/// Drops GLib's log messages (warnings, criticals) instead of writing them to stderr: accounts
/// says what went wrong in its own words, on one line. ACCOUNTS_DEBUG keeps them.
func silenceGLib() {
  g_log_set_writer_func({ _, _, _, _ in G_LOG_WRITER_HANDLED }, nil, nil)
}
