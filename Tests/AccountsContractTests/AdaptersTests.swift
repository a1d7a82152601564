import AccountsContract
import SecretMemory
import Testing

/// An adapter operation's values: secrets compared by their bytes.
@Suite struct AdaptersTests {
  static func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
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
    #expect(AdapterOperationKind.allCases.map(\.rawValue) == ["login", "check", "logout", "call", "validate", "refresh"])
  }
}
