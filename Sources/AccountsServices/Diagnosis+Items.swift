import AccountsContract
import AccountsCore
import AccountsSystem

extension Diagnosis {
  /// Items of accounts' schema in the keyring that no account or backend claims: reported
  /// with the command that deletes each, never deleted (another installation of accounts may
  /// keep its secrets in the same keyring). Read over the session bus without a secret read.
  /// A `secret-tool clear` is printed only for an item with backend, account and kind, whose
  /// whole attribute set cannot match an item accounts claims; one without them is named
  /// (label, object path) for removal in Seahorse or KeePassXC: a clear of what it has would
  /// match claimed items too.
  func itemFindings(collectionLocked: Bool) throws -> [Finding] {
    let timeout = try secretTimeout()
    // Unchecked is not checked: a keyring that stopped answering, or answered nonsense, fails.
    let listed: [(path: String, attributes: [String: String])]?
    let bus = busAddress
    do {
      listed = try SecretServiceItems.items(busAddress: bus, timeout: timeout)
    } catch {
      let error = SecretStoreError.timedOut(operation: "list the items of accounts", seconds: error.seconds, prompt: false)
      return [Finding(check: "items", ok: false, detail: "not checked: " + error.message, fix: error.fix, status: error.status)]
    }
    guard let items = listed else {
      return [Finding(
        check: "items", ok: false, detail: "not checked: the Secret Service's answer to the listing was not understood",
        fix: "run doctor again; if it says so again, restart the program that keeps your secrets (gnome-keyring-daemon, KeePassXC)",
        status: .secretStoreUnavailable)]
    }
    var keys: [SecretKey] = []
    var exact: [[String: String]] = []
    var partial: [(path: String, attributes: [String: String])] = []
    for (path, attributes) in items {
      if SecretSchema.names(in: attributes) != nil {
        if let key = SecretKey(attributes: attributes) {
          keys.append(key)
        } else {
          exact.append(attributes)
        }
      } else {
        partial.append((path, attributes))
      }
    }
    // A locked collection may hide its items (KeePassXC does): what is not listed then is not
    // known to be gone, and the collection's own finding says why.
    let missing = collectionLocked ? [] : try missingFinding(keys)
    let clearable = try ledger.unclaimed(keys).map { key in
      (name: key.label.dropFirst("accounts: ".count), attributes: Dictionary(uniqueKeysWithValues: key.attributes))
    } + exact.map { attributes in
      (name: Substring("an item with attributes \(attributes.keys.sorted().joined(separator: ", "))"), attributes: attributes)
    }
    let total = clearable.count + partial.count
    guard total > 0 else {
      return [Finding(check: "items", ok: true, detail: "\(counted(items.count, "item")) of accounts in the keyring, each claimed")]
        + missing
    }
    let shown = clearable.prefix(5)
    let shownPartial = partial.prefix(5 - shown.count)
    let more = total > shown.count + shownPartial.count ? " and \(total - shown.count - shownPartial.count) more" : ""
    let labels = SecretServiceItems.labels(of: shownPartial.map(\.path), busAddress: bus, timeout: timeout)
    let named = shownPartial.map { item in
      "an item " + (labels[item.path].map { "'\($0)' " } ?? "") + "(\(item.path)) with attributes "
        + item.attributes.keys.sorted().joined(separator: ", ")
    }
    let commands = shown.map { item in
      let attributes = [SecretSchema.nameAttribute] + item.attributes.sorted { $0.key < $1.key }
        .filter { $0.key != SecretSchema.nameAttribute.0 }.map { ($0.key, $0.value) }
      return (["secret-tool", "clear"] + attributes.flatMap { [$0.0, $0.1] }).map(shellWord).joined(separator: " ")
    }
    var fixes: [String] = []
    if !commands.isEmpty { fixes.append("delete them: " + commands.joined(separator: "; ")) }
    if !named.isEmpty {
      fixes.append(
        "remove \(named.count == 1 ? "the item" : "the items") without backend, account and kind in Seahorse or KeePassXC "
          + "(`secret-tool search --all xdg:schema \(SecretSchema.name)` shows them; a clear of their attributes would match "
          + "items accounts keeps)")
    }
    return [Finding(
      check: "items", ok: false,
      detail: Names.printable(
        "\(counted(total, "item")) of accounts in the keyring that no account or backend claims: "
          + (shown.map { String($0.name) } + named).joined(separator: ", ") + more, limit: 4096),
      fix: Names.printable(
        "unless another installation of accounts keeps them (another XDG_STATE_HOME on this keyring), "
          + fixes.joined(separator: "; ") + (more.isEmpty ? "" : "; then run doctor again"), limit: 4096),
      status: .failure)] + missing
  }

  /// The secrets the index and config.json claim that the keyring does not hold (deleted
  /// outside accounts), one finding each with the command that stores it again, so that every
  /// one is named in the table and in --json however many there are; none: no finding, as the
  /// items' own finding says all is well.
  private func missingFinding(_ keys: [SecretKey]) throws -> [Finding] {
    try ledger.missing(from: keys).map { key in
      let label = String(key.label.dropFirst("accounts: ".count))
      let claimer = if case .setting = key.kind, key.account.isEmpty { "config.json" } else { "index" }
      return Finding(
        check: "secret", ok: false,
        detail: Names.printable(
          "\(label) is gone from the keyring, though the \(claimer) claims it "
            + "(deleted outside accounts?)", limit: 4096),
        fix: Names.printable("store it again: `\(Ledger.restoringCommand(key))`", limit: 4096),
        status: .loginRequired)
    }
  }
}
