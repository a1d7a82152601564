import AccountsContract
import AccountsSystem
internal import CLibSecret
import Glibc

/// The D-Bus session bus, asked directly so that "no bus" and "no Secret Service on the bus" get
/// their own messages instead of libsecret's generic failure.
final class SessionBus {
  static let secretsName = "org.freedesktop.secrets"

  /// Owned: GLib holds the shared session connection only weakly, so this reference keeps it
  /// (and libsecret, which uses the same one) connected.
  let connection: OpaquePointer
  let timeout: Double

  private init(connection: OpaquePointer, timeout: Double) {
    self.connection = connection
    self.timeout = timeout
  }

  deinit { g_object_unref(UnsafeMutableRawPointer(connection)) }

  /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, or the user's bus socket).
  static func connect(timeout: Double) throws(SecretStoreError) -> SessionBus {
    let deadline = Deadline(
      seconds: timeout, failure: .stuck(operation: "connect to the session bus", seconds: timeout),
      operation: "connect to the session bus")
    var error: UnsafeMutablePointer<GError>?
    let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, deadline.cancellable, &error)
    if let error {
      let failure = GLibError(consuming: error)
      if failure.isCancelled && deadline.expired {
        throw .timedOut(operation: "connect to the session bus", seconds: timeout)
      }
      throw .noSessionBus(detail: failure.message)
    }
    guard let connection else { throw .noSessionBus(detail: "no connection") }
    return SessionBus(connection: connection, timeout: timeout)
  }

  /// Which program owns `org.freedesktop.secrets`: asked once per process (the owner of a
  /// connection does not change; a new owner is a new connection, which `ProviderWatch` sees).
  private var knownProvider: (name: String?, processID: Int32?)?

  /// Throws `.noProvider` unless some process owns `org.freedesktop.secrets` or D-Bus can start
  /// one (gnome-keyring installs an activation file, so a desktop starts it on demand). One bus
  /// call when it is running: who owns the name answers both questions.
  func requireProvider() throws(SecretStoreError) {
    if try ownerProcessID() != nil { return }
    let activatable = try busCall("ListActivatableNames", string: nil).map(strings) ?? []
    if !activatable.contains(Self.secretsName) {
      throw .noProvider(detail: "nothing owns \(Self.secretsName) and D-Bus cannot start anything for it")
    }
  }

  /// The name and process id of the program that owns `org.freedesktop.secrets`.
  func provider() -> (name: String?, processID: Int32?) {
    if let knownProvider { return knownProvider }
    _ = try? ownerProcessID()
    return knownProvider ?? (nil, nil)
  }

  /// GetConnectionUnixProcessID for the name, remembered once it answers; nil when nobody owns
  /// the name (yet).
  private func ownerProcessID() throws(SecretStoreError) -> Int32? {
    if let knownProvider { return knownProvider.processID }
    guard let reply = try busCall("GetConnectionUnixProcessID", string: Self.secretsName, tolerating: \.isNoProvider),
      let pid = unsigned32(reply)
    else { return nil }
    let processID = Int32(bitPattern: pid)
    knownProvider = (programName(processID), processID)
    return processID
  }

  /// Calls a method of the bus daemon itself with one optional string argument; returns the
  /// reply's first value.
  private func busCall(
    _ method: String, string argument: String?, tolerating: (GLibError) -> Bool = { _ in false }
  ) throws(SecretStoreError) -> OpaquePointer? {
    let parameters: OpaquePointer?
    if let argument {
      var child: OpaquePointer? = g_variant_new_string(argument)
      parameters = g_variant_new_tuple(&child, 1)
    } else {
      parameters = nil
    }
    let milliseconds = Int32(min(timeout * 1000, Double(Int32.max)))
    let reply = try withDeadline("ask the session bus (\(method))", seconds: timeout, tolerating: tolerating) {
      cancellable, error in
      g_dbus_connection_call_sync(
        connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
        method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, milliseconds, cancellable, &error)
    }
    guard let reply else { return nil }
    defer { g_variant_unref(reply) }
    guard g_variant_n_children(reply) > 0 else { return nil }
    return g_variant_get_child_value(reply, 0)  // a new reference; the extractors drop it
  }

  private func unsigned32(_ value: OpaquePointer) -> UInt32? {
    defer { g_variant_unref(value) }
    guard isType(value, "u") else { return nil }
    return g_variant_get_uint32(value)
  }

  private func strings(_ value: OpaquePointer) -> [String] {
    defer { g_variant_unref(value) }
    guard isType(value, "as") else { return [] }
    var length: gsize = 0
    guard let array = g_variant_get_strv(value, &length) else { return [] }
    defer { g_free(array) }  // the strings themselves belong to the variant
    return (0..<Int(length)).compactMap { array[$0].map { String(cString: $0) } }
  }

  private func isType(_ value: OpaquePointer, _ type: String) -> Bool {
    String(cString: g_variant_get_type_string(value)) == type
  }
}
