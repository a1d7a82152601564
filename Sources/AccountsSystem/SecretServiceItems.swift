/// The attributes of Secret Service items, read over a bare session-bus connection (no
/// libsecret, no GLib, no secret read, no unlock prompt): for `accounts doctor`, which looks
/// for items of accounts' schema that nothing claims.
public enum SecretServiceItems {
  /// How many property reads are in flight at once: the bus is never left with more replies
  /// than its socket buffers hold while this client is still writing.
  static let batch = 64

  /// The object path and attributes of every item of the accounts schema, locked or not, whose
  /// attributes include `attributes`; nil when the service cannot be asked, or an answer is
  /// unexpected; `Silent` when it did not answer within `timeout`.
  public static func items(
    matching attributes: [(String, String)] = [], busAddress: String, timeout: Double = 5
  ) throws(SecretServiceLockProbe.Silent) -> [(path: String, attributes: [String: String])]? {
    let search = DBusMessage.call(
      serial: 3, destination: SecretServiceLockProbe.service, path: "/org/freedesktop/secrets",
      interface: "org.freedesktop.Secret.Service", member: "SearchItems", values: [SecretSchema.query(attributes)],
      flags: DBusMessage.noAutoStart)
    guard let (bus, owner, replies) = try SecretServiceLockProbe.connect(busAddress: busAddress, timeout: timeout, asking: [search]),
      let reply = replies[3], reply.kind == .methodReturn, reply.sender == owner, reply.body.count == 2
    else { return nil }
    var paths: [String] = []
    for list in reply.body {
      guard case .array("o", let values) = list else { return nil }
      for case .objectPath(let path) in values { paths.append(path) }
    }
    var found: [(path: String, attributes: [String: String])] = []
    var serial: UInt32 = 4
    for start in stride(from: 0, to: paths.count, by: batch) {
      let chunk = paths[start..<min(start + batch, paths.count)]
      let calls = chunk.enumerated().map { offset, path in
        DBusMessage.call(
          serial: serial + UInt32(offset), destination: owner, path: path, interface: "org.freedesktop.DBus.Properties",
          member: "Get", arguments: ["org.freedesktop.Secret.Item", "Attributes"], flags: DBusMessage.noAutoStart)
      }
      guard bus.send(calls), let replies = bus.replies(to: Set(calls.map { $0.serial })) else {
        if bus.timedOut { throw SecretServiceLockProbe.Silent(seconds: timeout) }
        return nil
      }
      for call in calls {
        let answer = replies[call.serial]!
        // An item deleted since the search is no item.
        if answer.kind == .error, answer.errorName == "org.freedesktop.Secret.Error.NoSuchObject"
          || answer.errorName == "org.freedesktop.DBus.Error.UnknownObject"
        {
          continue
        }
        guard case .variant(.array("{ss}", let entries))? = SecretServiceLockProbe.onlyValue(answer, from: owner) else {
          return nil
        }
        var attributes: [String: String] = [:]
        for case .dictionaryEntry(.string(let key), .string(let value)) in entries { attributes[key] = value }
        found.append((call.path ?? "", attributes))
      }
      serial += UInt32(calls.count)
    }
    return found
  }

  /// The label of each item at `paths` that still has one, for naming it to a person.
  public static func labels(of paths: [String], busAddress: String, timeout: Double = 5) -> [String: String] {
    let calls = paths.prefix(batch).enumerated().map { offset, path in
      DBusMessage.call(
        serial: 3 + UInt32(offset), destination: SecretServiceLockProbe.service, path: path,
        interface: "org.freedesktop.DBus.Properties", member: "Get", arguments: ["org.freedesktop.Secret.Item", "Label"],
        flags: DBusMessage.noAutoStart)
    }
    guard !calls.isEmpty,
      let (_, owner, replies) = try? SecretServiceLockProbe.connect(busAddress: busAddress, timeout: timeout, asking: calls)
    else { return [:] }
    var labels: [String: String] = [:]
    for call in calls {
      if case .variant(.string(let label))? = SecretServiceLockProbe.onlyValue(replies[call.serial], from: owner) {
        labels[call.path ?? ""] = label
      }
    }
    return labels
  }
}
