import AccountsContract
import AccountsSystem
internal import CLibSecret

/// A GError copied into Swift: domain, code and message. The GError itself is freed as soon as
/// it is copied, so no GError outlives the call that produced it.
struct GLibError: Error {
  let domain: GQuark
  let code: Int32
  /// The message with D-Bus's "GDBus.Error:org.example.Name: " prefix removed.
  let message: String
  /// The D-Bus error name for errors that came over the bus, e.g.
  /// "org.freedesktop.DBus.Error.UnknownMethod".
  let remoteName: String?

  /// Takes ownership of `error` and frees it.
  init(consuming error: UnsafeMutablePointer<GError>) {
    domain = error.pointee.domain
    code = error.pointee.code
    if let name = g_dbus_error_get_remote_error(error) {
      remoteName = String(cString: name)
      g_free(name)
    } else {
      remoteName = nil
    }
    g_dbus_error_strip_remote_error(error)
    message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    g_error_free(error)
  }

  func matches(_ domain: GQuark, _ code: Int32) -> Bool {
    self.domain == domain && self.code == code
  }

  var isCancelled: Bool { matches(g_io_error_quark(), Int32(G_IO_ERROR_CANCELLED.rawValue)) }

  var isLocked: Bool {
    matches(secret_error_get_quark(), Int32(SECRET_ERROR_IS_LOCKED.rawValue))
      || remoteName == "org.freedesktop.Secret.Error.IsLocked"
  }

  /// The object is gone: another process deleted it first (gnome-keyring answers "Object does
  /// not exist at path" as UnknownMethod), which a delete counts as success.
  var isNoSuchObject: Bool {
    matches(secret_error_get_quark(), Int32(SECRET_ERROR_NO_SUCH_OBJECT.rawValue))
      || matches(g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_METHOD.rawValue))
      || matches(g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_OBJECT.rawValue))
      || matches(g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_INTERFACE.rawValue))
      || remoteName == "org.freedesktop.Secret.Error.NoSuchObject"
  }

  /// Nobody owns `org.freedesktop.secrets` and D-Bus could not start anyone for it.
  var isNoProvider: Bool {
    matches(g_dbus_error_quark(), Int32(G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue))
      || matches(g_dbus_error_quark(), Int32(G_DBUS_ERROR_NAME_HAS_NO_OWNER.rawValue))
  }

  /// D-Bus's answer to a call whose recipient left the bus before it replied.
  var isRecipientGone: Bool {
    matches(g_dbus_error_quark(), Int32(G_DBUS_ERROR_NO_REPLY.rawValue)) && message.includes("disconnected")
  }

  var isTimeout: Bool {
    matches(g_io_error_quark(), Int32(G_IO_ERROR_TIMED_OUT.rawValue))
      || matches(g_dbus_error_quark(), Int32(G_DBUS_ERROR_TIMEOUT.rawValue))
      || matches(g_dbus_error_quark(), Int32(G_DBUS_ERROR_NO_REPLY.rawValue))
  }
}

/// Runs one blocking GLib call with a deadline and turns its GError into a `SecretStoreError`.
///
/// `body` gets the cancellable to pass on and the error out-parameter; it must not keep either.
/// `collection` names the collection for the "locked" message; an error for which `tolerating`
/// is true is not an error (e.g. deleting what is already gone).
func withDeadline<Result>(
  _ operation: String, seconds: Double, prompt: Bool = false, collection: @autoclosure () -> String = "default",
  tolerating: (GLibError) -> Bool = { _ in false },
  _ body: (UnsafeMutablePointer<GCancellable>, inout UnsafeMutablePointer<GError>?) -> Result
) throws(SecretStoreError) -> Result {
  let deadline = Deadline(seconds: seconds, failure: .stuck(operation: operation, seconds: seconds), operation: operation)
  var error: UnsafeMutablePointer<GError>?
  let result = body(deadline.cancellable, &error)
  if let error {
    let failure = GLibError(consuming: error)
    // The provider left during the call (the error is the cancel, or D-Bus's "recipient
    // disconnected"): whatever the call did may have landed.
    if deadline.providerLeft || failure.isRecipientGone { throw .stuck(operation: operation, seconds: 0) }
    if tolerating(failure) { return result }
    throw SecretStoreError(failure, operation: operation, deadline: deadline, prompt: prompt, collection: collection())
  }
  if deadline.providerLeft, g_cancellable_is_cancelled(deadline.cancellable) != 0 {
    throw .stuck(operation: operation, seconds: 0)
  }
  if deadline.expired, g_cancellable_is_cancelled(deadline.cancellable) != 0 {
    // Some calls report cancellation by their result alone.
    throw .timedOut(operation: operation, seconds: seconds, prompt: prompt)
  }
  return result
}

extension SecretStoreError {
  /// The user-facing meaning of a GError from `operation`.
  init(_ error: GLibError, operation: String, deadline: Deadline, prompt: Bool, collection: String) {
    if (error.isCancelled && deadline.expired) || error.isTimeout {
      self = .timedOut(operation: operation, seconds: deadline.seconds, prompt: prompt)
    } else if error.isLocked {
      self = .locked(collection: collection)
    } else if error.isNoProvider {
      self = .noProvider(detail: error.message)
    } else {
      self = .failed(operation: operation, detail: error.message)
    }
  }
}
