import Foundation
import TestSupport

/// One item of ours in a sandbox's keyring, as `secret-tool` shows it.
struct KeyringItem: Hashable {
  var backend: String
  var account: String
  var kind: String
  var secret: String
}

extension Sandbox {
  /// Every item of the accounts schema in the keyring, read with `secret-tool`.
  func allKeyringItems() throws -> [KeyringItem] {
    // secret-tool prints the attributes on stderr and the rest on stdout: one stream, line
    // buffered, keeps each item's lines together.
    let result = try runProcess(
      "/bin/sh", ["-c", "exec stdbuf -oL /usr/bin/secret-tool search --all xdg:schema io.accounts.Secret 2>&1"],
      environment: environment, timeout: 20)
    var items: [KeyringItem] = []
    var current: [String: String] = [:]
    func finish() {
      if let backend = current["attribute.backend"], let account = current["attribute.account"],
        let kind = current["attribute.kind"]
      {
        items.append(KeyringItem(backend: backend, account: account, kind: kind, secret: current["secret"] ?? ""))
      }
      current = [:]
    }
    for line in result.standardOutput.split(separator: "\n") {
      if line.hasPrefix("[") {
        finish()
      } else if let range = line.range(of: " = ") {
        current[String(line[..<range.lowerBound])] = String(line[range.upperBound...])
      }
    }
    finish()
    return items
  }

  /// The index as JSON.
  func indexJSON() throws -> [String: Any] {
    guard let data = FileManager.default.contents(atPath: indexPath) else { return [:] }
    return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  }

  /// config.json as JSON.
  func configJSON() throws -> [String: Any] {
    guard let data = FileManager.default.contents(atPath: environment["XDG_CONFIG_HOME"]! + "/accounts/config.json") else { return [:] }
    return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  }

  /// What breaks SPEC §2's integrity invariant between the files and the real keyring: an item
  /// of an account the index does not name or does not say holds it, a password or token the
  /// index claims that the keyring lacks, an account whose backend config.json does not have,
  /// and a backend's secret setting the config does not list (or lists and the keyring lacks).
  /// Empty when they agree.
  func invariantViolations() throws -> [String] {
    var violations = try accountViolations()
    let backends = try configJSON()["backends"] as? [String: [String: Any]] ?? [:]
    for case let account as [String: Any] in try indexJSON()["accounts"] as? [Any] ?? [] {
      if let backend = account["backend"] as? String, backends[backend] == nil {
        violations.append("\(account["user"] ?? "?")@\(backend) is saved for a backend config.json does not have")
      }
    }
    let settings = try allKeyringItems().filter { $0.account.isEmpty }
    for item in settings {
      let listed = backends[item.backend]?["secret_settings"] as? [String] ?? []
      if !item.kind.hasPrefix("setting:") || !listed.contains(String(item.kind.dropFirst(8))) {
        violations.append("the keyring holds \(item.kind) of backend \(item.backend), which config.json does not list")
      }
    }
    for (name, backend) in backends {
      for setting in backend["secret_settings"] as? [String] ?? []
      where !settings.contains(where: { $0.backend == name && $0.kind == "setting:\(setting)" }) {
        violations.append("config.json lists \(setting) of backend \(name), which the keyring lacks")
      }
    }
    return violations.sorted()
  }

  private func accountViolations() throws -> [String] {
    let index = try indexJSON()
    var claims: [String: (remembered: Bool, token: Bool, otp: Bool)] = [:]
    for case let account as [String: Any] in index["accounts"] as? [Any] ?? [] {
      let id = "\(account["user"] as? String ?? "?")@\(account["backend"] as? String ?? "?")"
      claims[id] = (account["remembered"] as? Bool == true, account["token"] is [String: Any], account["otp"] as? Bool == true)
    }
    var violations: [String] = []
    let items = try allKeyringItems().filter { !$0.account.isEmpty }  // backend settings aside
    for item in items {
      let id = "\(item.account)@\(item.backend)"
      switch (claims[id], item.kind) {
      case (nil, _): violations.append("the keyring holds a \(item.kind) of \(id), which the index does not name")
      case (let claim?, "password") where !claim.remembered:
        violations.append("the keyring holds a password of \(id), which the index says is not remembered")
      case (let claim?, "token") where !claim.token:
        violations.append("the keyring holds a token of \(id), which the index does not record")
      case (let claim?, "otp") where !claim.otp:
        violations.append("the keyring holds an otp seed of \(id), which the index does not claim")
      default: break
      }
    }
    for (id, claim) in claims {
      if claim.remembered, !items.contains(where: { "\($0.account)@\($0.backend)" == id && $0.kind == "password" }) {
        violations.append("the index says \(id) is remembered, but the keyring has no password for it")
      }
      if claim.token, !items.contains(where: { "\($0.account)@\($0.backend)" == id && $0.kind == "token" }) {
        violations.append("the index records a token of \(id), but the keyring has none")
      }
      if claim.otp, !items.contains(where: { "\($0.account)@\($0.backend)" == id && $0.kind == "otp" }) {
        violations.append("the index claims an otp seed of \(id), but the keyring has none")
      }
    }
    return violations.sorted()
  }
}
