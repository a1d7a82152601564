import AccountsContract
internal import CLibSecret
import Glibc
import Synchronization

/// Notices the program that provides the Secret Service leaving the bus (KeePassXC quit with
/// its access dialog open, gnome-keyring killed) and ends the calls waiting on it at once,
/// instead of at their deadline (ACCOUNTS_PROMPT_TIMEOUT can be minutes).
///
/// Nothing is watched on the fast path: a call that is still running `Deadline.watchAfter`
/// seconds after it started starts the watch, once per process. A thread of its own runs a
/// main loop with a NameOwnerChanged subscription for `org.freedesktop.secrets`, then checks
/// that the owner is still the process the store found (it may have left before the
/// subscription). When the owner leaves or changes, the watchdog cancels every running call
/// (and reports it stuck should it not return) and every later one: the rest of the command
/// fails at once.
enum ProviderWatch {
  private struct State: @unchecked Sendable {  // the connection is GDBus's, thread-safe
    var connection: OpaquePointer?
    var processID: Int32?
    var started = false
  }

  private static let state = Mutex(State())

  /// What to watch: the store's bus connection and the process that owned the name when the
  /// store connected (nil: nobody yet, D-Bus starts one on the first call).
  static func prepare(connection: OpaquePointer, processID: Int32?) {
    let given = State(connection: connection, processID: processID)
    state.withLock { state in
      guard state.connection == nil else { return }
      g_object_ref(UnsafeMutableRawPointer(given.connection))
      state.connection = given.connection
      state.processID = given.processID
    }
  }

  /// Starts watching, once per process; returns at once.
  static func start() {
    state.withLock { state in
      guard !state.started, state.connection != nil else { return }
      state.started = true
      var thread = pthread_t()
      if pthread_create(&thread, nil, { _ in ProviderWatch.watch() }, nil) == 0 { pthread_detach(thread) }
    }
  }

  /// The watching thread's body: never returns (the process ends with it).
  private static func watch() -> UnsafeMutableRawPointer? {
    let watched = state.withLock { $0 }
    let connection = watched.connection!
    let known = watched.processID
    let context = g_main_context_new()
    g_main_context_push_thread_default(context)
    _ = g_dbus_connection_signal_subscribe(
      connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
      SessionBus.secretsName, G_DBUS_SIGNAL_FLAGS_NONE,
      { _, _, _, _, _, parameters, _ in
        guard let parameters, String(cString: g_variant_get_type_string(parameters)) == "(sss)" else { return }
        let old = g_variant_get_child_value(parameters, 1)
        let new = g_variant_get_child_value(parameters, 2)
        defer {
          g_variant_unref(old)
          g_variant_unref(new)
        }
        let before = String(cString: g_variant_get_string(old, nil))
        let after = String(cString: g_variant_get_string(new, nil))
        // Gone, or another process in its place; nobody before is D-Bus starting one.
        if after.isEmpty || (!before.isEmpty && before != after) { ProviderWatch.providerLeft() }
      }, nil, nil)
    // The subscription is in place: a departure before it shows as another owner now.
    if let known, currentOwnerProcessID(connection) != known { providerLeft() }
    let loop = g_main_loop_new(context, 0)
    g_main_loop_run(loop)
    return nil
  }

  /// The process that owns the name now, or nil when nobody does.
  private static func currentOwnerProcessID(_ connection: OpaquePointer) -> Int32? {
    var child: OpaquePointer? = g_variant_new_string(SessionBus.secretsName)
    let reply = g_dbus_connection_call_sync(
      connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
      g_variant_new_tuple(&child, 1), nil, G_DBUS_CALL_FLAGS_NONE, 2000, nil, nil)
    guard let reply else { return nil }
    defer { g_variant_unref(reply) }
    guard String(cString: g_variant_get_type_string(reply)) == "(u)" else { return nil }
    let value = g_variant_get_child_value(reply, 0)
    defer { g_variant_unref(value) }
    return Int32(bitPattern: g_variant_get_uint32(value))
  }

  /// Tells the watchdog, which cancels every running call and every later one.
  private static func providerLeft() { Watchdog.providerLeft() }
}
