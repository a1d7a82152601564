import AccountsContract
import AccountsSystem
import SecretMemory
internal import CLibSecret

extension LibsecretStore {
  /// One search for the `kind` attribute (Service.SearchItems), the found items' attributes
  /// (one Properties.Get each, all in flight at once), at most one prompt for items the
  /// provider has not granted access to, and one Service.GetSecrets for all secrets.
  public func lookupAll(kind: SecretKind) throws -> [SecretKey: SecretBytes] {
    let service = try connect()
    let what = "the \(kind.attributeValue) items"
    var collection = try CollectionCheck(self, service)
    // An item deleted by another process between the search and the read (a logout racing
    // `status`) is not found by the next search: that is "no secret" for its key.
    let read = try SecretReadPolicy.searching {
      () throws(SecretStoreError) -> SecretReadPolicy.Round<[SecretKey: SecretBytes]> in
      let found = try searchPaths(service, SecretSchema.attributes(kind: kind.attributeValue))
      // Nothing, or locked items: a locked collection says so (or prompts, then this searches
      // again) before anything of its items is read.
      if found.isEmpty || !found.locked.isEmpty, try collection.checkOnce() { return .searchAgain }
      let attributes = try itemAttributes(found.unlocked + found.locked, what: what)
      // One item per key, an unlocked copy before a locked one (as `lookup` picks).
      var chosen: [SecretKey: String] = [:]
      for path in found.unlocked + found.locked {
        guard let key = attributes[path].flatMap({ key(of: $0, kind: kind) }), chosen[key] == nil else { continue }
        chosen[key] = path
      }
      if chosen.isEmpty { return .answered([:]) }
      let locked = chosen.filter { found.locked.contains($0.value) }
      if !locked.isEmpty {
        // Locked items in an open collection: the provider asks before a program reads them.
        let label = locked.count == 1 ? locked.first!.key.label : "\(locked.count) \(kind.attributeValue) items"
        let opened = Set(try unlockPaths(Array(locked.values), label: label))
        if let still = locked.first(where: { !opened.contains($0.value) }) {
          throw .accessNotGranted(item: still.key.label, provider: knownProvider())
        }
      }
      return try secrets(of: chosen, service, what: what).map { .answered($0) } ?? .searchAgain
    }
    guard let read else { throw SecretStoreError.keptVanishing(operation: "read \(what)") }
    return read
  }

  /// Service.GetSecrets for every path of `chosen`; nil when one of them did not come back
  /// (deleted after the search: the caller searches again).
  private func secrets(
    of chosen: [SecretKey: String], _ service: GObjectOwner<CLibSecret.SecretService>, what: String
  ) throws(SecretStoreError) -> [SecretKey: SecretBytes]? {
    let paths = Array(chosen.values)
    var copies: [UnsafePointer<gchar>?] = paths.map { UnsafePointer(strdup($0)) }
    copies.append(nil)
    defer { for copy in copies { free(UnsafeMutableRawPointer(mutating: copy)) } }
    let table = try copies.withUnsafeMutableBufferPointer { (array) throws(SecretStoreError) in
      try withDeadline("read \(what)", seconds: timeout) { cancellable, error in
        secret_service_get_secrets_for_dbus_paths_sync(service.pointer, array.baseAddress, cancellable, &error)
      }
    }
    guard let table else { return nil }
    defer { g_hash_table_unref(table) }
    var secrets: [SecretKey: SecretBytes] = [:]
    for (key, path) in chosen {
      guard let found = path.withCString({ g_hash_table_lookup(table, $0) }) else { return nil }
      var length: gsize = 0
      let bytes = secret_value_get(OpaquePointer(found), &length)
      secrets[key] = SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: Int(length)))
    }
    return secrets
  }

  /// The kinds of the items of one account (or of a backend's settings), from their
  /// attributes: no secret is read and no prompt shown.
  public func kinds(backend: String, account: String) throws -> [SecretKind] {
    let service = try connect()
    // Without a collection nothing can be known, which is not "nothing is there".
    guard try openCollection(service) != nil else { throw SecretStoreError.noCollection(provider: knownProvider()) }
    let found = try searchPaths(service, SecretSchema.attributes(backend: backend, account: account))
    let paths = found.unlocked + found.locked
    // Attributes are not secret: an item the provider has not granted access to shows them too.
    let attributes = try itemAttributes(paths, what: "the items of \(account)@\(backend)")
    return paths.compactMap { attributes[$0].flatMap(SecretKey.init(attributes:))?.kind }
  }

  /// The key an item of `kind` answers to, from its attributes; nil for an item that lacks one
  /// of the schema's attributes or is of another kind.
  private func key(of attributes: [String: String], kind: SecretKind) -> SecretKey? {
    SecretKey(attributes: attributes).flatMap { $0.kind == kind ? $0 : nil }
  }

  /// The attributes of the items at `paths` (Properties.Get of Item.Attributes, every request in
  /// flight at once, no proxy object per item). An item deleted meanwhile is left out.
  func itemAttributes(_ paths: [String], what: String) throws(SecretStoreError) -> [String: [String: String]] {
    guard !paths.isEmpty, let connection = connectedConnection else { return [:] }
    let reads = AttributeReads(paths)
    let timeout = timeout
    try withDeadline("read the attributes of \(what)", seconds: timeout) { cancellable, error in
      reads.run(connection, cancellable: cancellable, milliseconds: Int32(min(timeout * 1000, 1e9)), error: &error)
    }
    return reads.answers
  }
}

/// The requests of one `itemAttributes`: started together on a main context of their own, which
/// the calling thread iterates until every reply (or error) is in.
private final class AttributeReads {
  let paths: [String]
  var pending = 0
  var answers: [String: [String: String]] = [:]
  /// The first error that is not "no such item".
  var failure: UnsafeMutablePointer<GError>?

  init(_ paths: [String]) { self.paths = paths }

  func run(
    _ connection: OpaquePointer, cancellable: UnsafeMutablePointer<GCancellable>, milliseconds: Int32,
    error: inout UnsafeMutablePointer<GError>?
  ) {
    let context = g_main_context_new()
    g_main_context_push_thread_default(context)
    defer {
      g_main_context_pop_thread_default(context)
      g_main_context_unref(context)
    }
    for path in paths {
      var arguments: [OpaquePointer?] = [
        g_variant_new_string("org.freedesktop.Secret.Item"), g_variant_new_string("Attributes"),
      ]
      let parameters = g_variant_new_tuple(&arguments, 2)
      pending += 1
      let request = Unmanaged.passRetained(Request(self, path)).toOpaque()
      g_dbus_connection_call(
        connection, SessionBus.secretsName, path, "org.freedesktop.DBus.Properties", "Get", parameters, nil,
        G_DBUS_CALL_FLAGS_NONE, milliseconds, cancellable, { source, result, data in
          let request = Unmanaged<Request>.fromOpaque(data!).takeRetainedValue()
          var error: UnsafeMutablePointer<GError>?
          let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
          request.reads.finish(request.path, reply, error)
        }, request)
    }
    while pending > 0 { g_main_context_iteration(context, 1) }
    error = failure
  }

  private func finish(_ path: String, _ reply: OpaquePointer?, _ error: UnsafeMutablePointer<GError>?) {
    pending -= 1
    if let error {
      // Copied to judge it; the original goes to the caller when it is the first real error.
      let judged = GLibError(consuming: g_error_copy(error))
      if judged.isNoSuchObject || failure != nil { g_error_free(error) } else { failure = error }
      return
    }
    guard let reply else { return }
    defer { g_variant_unref(reply) }
    guard isType(reply, "(v)") else { return }
    let boxed = g_variant_get_child_value(reply, 0)
    defer { g_variant_unref(boxed) }
    let table = g_variant_get_variant(boxed)
    defer { g_variant_unref(table) }
    guard isType(table, "a{ss}") else { return }
    var attributes: [String: String] = [:]
    for index in 0..<g_variant_n_children(table) {
      let entry = g_variant_get_child_value(table, index)
      defer { g_variant_unref(entry) }
      let name = g_variant_get_child_value(entry, 0)
      let value = g_variant_get_child_value(entry, 1)
      attributes[String(cString: g_variant_get_string(name, nil))] = String(cString: g_variant_get_string(value, nil))
      g_variant_unref(name)
      g_variant_unref(value)
    }
    answers[path] = attributes
  }

  private func isType(_ value: OpaquePointer?, _ type: String) -> Bool {
    String(cString: g_variant_get_type_string(value)) == type
  }

  /// One request's reference to its batch, owned by the request until its reply.
  private final class Request {
    let reads: AttributeReads
    let path: String
    init(_ reads: AttributeReads, _ path: String) {
      self.reads = reads
      self.path = path
    }
  }
}
