/// An object on the bus, as calls address it: the bus name that receives them (a well-known name,
/// or the unique name of the process that owns one), the object's path, the interface its calls
/// go to, and the flags they carry.
public struct DBusObject: Equatable, Sendable {
  public var destination: String
  public var path: String
  public var interface: String
  public var flags: UInt8

  public init(destination: String, path: String, interface: String, flags: UInt8 = 0) {
    self.destination = destination
    self.path = path
    self.interface = interface
    self.flags = flags
  }

  /// The bus itself (Hello, GetNameOwner, GetConnectionUnixProcessID).
  public static let bus = DBusObject(
    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus")

  /// A call of `member` of the object's interface.
  public func call(_ member: String, _ values: [DBusMessage.Value] = []) -> DBusCall {
    DBusCall(object: self, interface: interface, member: member, values: values)
  }

  /// Properties.Get of the object's property `name` (of its interface).
  public func property(_ name: String) -> DBusCall {
    DBusCall(
      object: self, interface: "org.freedesktop.DBus.Properties", member: "Get",
      values: [.string(interface), .string(name)])
  }
}

/// One method call for a `SessionBusConnection` to send. It has no serial: the connection numbers
/// each call it sends and matches the reply to it.
public struct DBusCall: Equatable, Sendable {
  public var object: DBusObject
  public var interface: String
  public var member: String
  public var values: [DBusMessage.Value]

  /// The message that sends this call as the connection's call number `serial`.
  func message(serial: UInt32) -> DBusMessage {
    DBusMessage(
      kind: .methodCall, flags: object.flags, serial: serial, path: object.path, interface: interface, member: member,
      destination: object.destination, body: values)
  }
}

extension DBusMessage {
  /// The body of a method return sent by `sender`; nil for an error reply, or for a reply from
  /// anyone else (on the bus, whoever owns a well-known name when a call to it arrives answers
  /// it: a provider that replaced the one asked).
  public func returned(from sender: String) -> [Value]? {
    guard kind == .methodReturn, self.sender == sender else { return nil }
    return body
  }

  /// The single value of a method return sent by `sender`; nil for an error or anything else.
  public func onlyValue(from sender: String) -> Value? {
    guard let body = returned(from: sender), body.count == 1 else { return nil }
    return body[0]
  }
}
