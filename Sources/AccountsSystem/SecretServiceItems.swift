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
    guard
      let (connection, _) = try SecretServiceConnection.open(
        busAddress: busAddress, timeout: timeout, asking: [.readDefaultAlias()]),
      let searched = try connection.call([.searchItems(attributes, at: connection.owner)]),
      let lists = connection.returned(searched[0]), lists.count == 2
    else { return nil }
    var paths: [String] = []
    for list in lists {
      guard case .array("o", let values) = list else { return nil }
      for case .objectPath(let path) in values { paths.append(path) }
    }
    var found: [(path: String, attributes: [String: String])] = []
    for start in stride(from: 0, to: paths.count, by: batch) {
      let chunk = paths[start..<min(start + batch, paths.count)]
      guard let answers = try connection.call(chunk.map { connection.item($0).property("Attributes") }) else { return nil }
      for (path, answer) in zip(chunk, answers) {
        // An item deleted since the search is no item.
        if answer.kind == .error, answer.errorName == "org.freedesktop.Secret.Error.NoSuchObject"
          || answer.errorName == "org.freedesktop.DBus.Error.UnknownObject"
        {
          continue
        }
        guard case .variant(.array("{ss}", let entries))? = connection.value(answer) else { return nil }
        var attributes: [String: String] = [:]
        for case .dictionaryEntry(.string(let key), .string(let value)) in entries { attributes[key] = value }
        found.append((path, attributes))
      }
    }
    return found
  }

  /// The label of each item at `paths` that still has one, for naming it to a person: asked
  /// after the provider's first answer (`SecretServiceConnection.open`).
  public static func labels(of paths: [String], busAddress: String, timeout: Double = 5) -> [String: String] {
    let asked = Array(paths.prefix(batch))
    guard !asked.isEmpty,
      let (connection, _) = try? SecretServiceConnection.open(
        busAddress: busAddress, timeout: timeout, asking: [.readDefaultAlias()]),
      let replies = try? connection.call(asked.map { connection.item($0).property("Label") })
    else { return [:] }
    var labels: [String: String] = [:]
    for (path, reply) in zip(asked, replies) {
      if case .variant(.string(let label))? = connection.value(reply) { labels[path] = label }
    }
    return labels
  }
}
