import AccountsContract
import AccountsSystem
import SecretMemory
import Testing

/// Requests and outcomes crossing into libAccountsPrivate.so: everything but the secrets
/// as JSON text, the secrets as bytes beside it, and both read back to what was sent.
@Suite struct AdapterWireTests {
  static func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

  let searchPath = AdapterSearchPath(directories: [
    .init(path: "/home/alice/.local/share/accounts/adapters"), .init(path: "/usr/lib/accounts", onlyNames: ["plain"]),
  ])

  static let operations: [AdapterOperation] = [
    .login(password: secret("pa55-login")),
    .login(password: secret("pa55-login"), oneTimeCode: secret("287082")),
    .check(token: secret("t0ken-check")),
    .logout(token: secret("t0ken-logout")),
    .call(token: secret("t0ken-call"), method: "POST", path: "user/info", parameters: [("q", "a b"), ("q", "&")]),
    .validate,
  ]

  @Test(arguments: operations)
  func requestsReadBackWithTheirSecretsBesideNotInside(operation: AdapterOperation) throws {
    let request = AdapterRequest(
      adapter: "signed", backend: "corp", settings: ["base_url": "https://api.example", "ver": "1.0"], user: "alice",
      sessionValues: ["userId": "1001"], operation: operation, timeout: 2.5)
    let secretSettings = ["private_key": Self.secret("k3y-private"), "hmac_key": Self.secret("k3y-hmac")]
    let text = request.wireText(searchPath: searchPath)
    let secrets = request.wireSecrets(secretSettings: secretSettings)
    for (name, value) in secrets {
      let bytes = value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
      #expect(!text.contains(bytes), "\(name) is not in the text")
    }
    let own = operation.password != nil ? ["password"] : operation.token != nil ? ["token"] : []
    #expect(secrets.map(\.name) == own + (operation.oneTimeCode != nil ? ["one_time_code"] : []) + [
      "setting:hmac_key", "setting:private_key",
    ])

    let (read, readSettings, readPath) = try AdapterRequest.from(wireText: text, secrets: secrets)
    #expect(read == request)
    #expect(read.operation.kind == operation.kind)
    #expect(readPath == searchPath)
    #expect(readSettings.keys.sorted() == ["hmac_key", "private_key"])
    #expect(readSettings.allSatisfy { secretSettings[$0.key] == $0.value })
  }

  @Test func anOperationWithoutItsSecretIsRefused() throws {
    for operation in Self.operations where operation.kind != .validate {
      let request = AdapterRequest(adapter: "plain", backend: "corp", settings: [:], operation: operation, timeout: 1)
      #expect(throws: AdapterWireError.self, "\(operation.kind)") {
        try AdapterRequest.from(wireText: request.wireText(searchPath: searchPath), secrets: [])
      }
    }
  }

  @Test func operationsCompareTheirSecretsByBytes() {
    #expect(AdapterOperation.login(password: Self.secret("x")) == .login(password: Self.secret("x")))
    #expect(AdapterOperation.login(password: Self.secret("x")) != .login(password: Self.secret("y")))
    #expect(
      AdapterOperation.login(password: Self.secret("x"), oneTimeCode: Self.secret("1"))
        == .login(password: Self.secret("x"), oneTimeCode: Self.secret("1")))
    #expect(
      AdapterOperation.login(password: Self.secret("x"), oneTimeCode: Self.secret("1"))
        != .login(password: Self.secret("x"), oneTimeCode: Self.secret("2")))
    #expect(
      AdapterOperation.login(password: Self.secret("x"), oneTimeCode: Self.secret("1")) != .login(password: Self.secret("x")))
    #expect(AdapterOperation.check(token: Self.secret("x")) != .logout(token: Self.secret("x")))
    #expect(
      AdapterOperation.call(token: Self.secret("x"), method: "GET", path: "me", parameters: [("a", "1")])
        != .call(token: Self.secret("x"), method: "GET", path: "me", parameters: [("a", "2")]))
    #expect(AdapterOperationKind.allCases.map(\.rawValue) == ["login", "check", "logout", "call", "validate"])
  }

  @Test func aLoginsTokenTravelsBesideTheOutcome() throws {
    let token = Self.secret("0123456789abcdef0123456789abcdef")
    let outcome = AdapterOutcome.ok(AdapterSuccess(
      token: token, expiresIn: 3600, sessionValues: ["userId": "1001"], body: "{}", message: "hi"))
    #expect(!outcome.wireText.contains("0123456789abcdef"))
    #expect(try AdapterOutcome(wireText: outcome.wireText, token: outcome.token) == outcome)
    #expect(try AdapterOutcome(wireText: outcome.wireText) != outcome, "the token is part of the success")
    for other: AdapterOutcome in [
      .wrongPassword(message: "no"), .sessionExpired(message: "gone"), .kicked(message: "elsewhere"),
      .upgradeRequired(message: "update", link: "https://example.invalid/u"), .backendError(message: "down"),
      .adapterFailed(message: "stuck"),
    ] {
      #expect(try AdapterOutcome(wireText: other.wireText) == other)
      #expect(other.token == nil)
      #expect(other.wireText.contains("\"case\":\"\(other.name)\""))
    }
  }
}
