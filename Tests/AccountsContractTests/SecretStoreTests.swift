import AccountsContract
import Testing

/// The keys of the Secret Service's items: each kind of secret and its attribute value.
@Suite struct SecretStoreTests {
  @Test func kindsRoundTripThroughTheirAttribute() {
    for kind in [SecretKind.password, .token, .setting("private_key")] {
      #expect(SecretKind(attributeValue: kind.attributeValue) == kind)
    }
    #expect(SecretKind(attributeValue: "setting:") == nil)
    #expect(SecretKind(attributeValue: "cookie") == nil)
  }
}
