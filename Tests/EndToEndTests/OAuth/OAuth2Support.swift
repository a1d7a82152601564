import Foundation
import TestSupport
import Testing

/// Building worlds on the tests' OAuth provider (django-oauth-toolkit, `OAuthProvider`):
/// backends on the built-in oauth2 adapter, its users and clients, and what the keyring holds.
extension Fixture {
  /// Backend NAME on the oauth2 adapter at `provider`'s issuer for `client` (its secret, when it
  /// has one, given on stdin as the secret setting client_secret), with `grant` and `settings`
  /// besides. api_base is the issuer, so `request USER GET userinfo/` asks the provider who the
  /// token is for.
  @discardableResult
  func addingOAuthBackend(
    _ name: String, provider: OAuthProvider, client: OAuthProvider.Client, grant: String = "password",
    settings: [String] = []
  ) throws -> Fixture {
    let base = [
      "issuer=\(provider.issuer)", "client_id=\(client.id)", "grant=\(grant)", "api_base=\(provider.issuer)",
    ]
    for machine in machines {
      try machine.addBackend(
        name, adapter: "oauth2", settings: base + settings, secret: client.secret.map { ("client_secret", $0) })
    }
    return self
  }

  /// USER@BACKEND's item of `kind` (token, refresh_token, password) in the keyring, read with
  /// secret-tool; nil when there is none.
  func keyringItem(_ user: String, backend: String, kind: String) throws -> String? {
    let result = try runProcess(
      "/usr/bin/secret-tool", ["lookup", "backend", backend, "account", user, "kind", kind],
      environment: sandbox.environment, timeout: 20)
    return result.status == 0 && !result.standardOutput.isEmpty ? result.standardOutput : nil
  }

  /// `accounts login ACCOUNT --password-stdin` with `password` (and `arguments`), which must work.
  func logIn(_ account: String, password: String, _ arguments: [String] = []) throws {
    try sandbox.ok(["login", account, "--password-stdin"] + arguments, stdin: password + "\n")
  }
}

extension OAuthProvider {
  /// A user NAME with password pw-NAME, and a confidential client NAME-app of `grant`.
  func userAndClient(_ name: String, grant: Grant = .password) throws -> Client {
    try addUser(name, password: "pw-" + name)
    return try addClient(name + "-app", grant: grant)
  }
}

/// Waits (sleeping, bounded) until `seconds` have passed since `start` on the monotonic clock:
/// past an access token's lifetime.
func waitUntil(_ seconds: Double, after start: Date) {
  let left = seconds - Date().timeIntervalSince(start)
  if left > 0 { Thread.sleep(forTimeInterval: left) }
}
