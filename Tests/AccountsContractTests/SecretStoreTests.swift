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

  /// An item's attributes name the key they were written for, password extras and all; an item
  /// that lacks one of the schema's attributes, or is of a kind accounts does not write, names
  /// none.
  @Test func keysRoundTripThroughTheirAttributes() {
    let keys = [
      SecretKey(backend: "corp", account: "alice", kind: .password),
      SecretKey(backend: "corp", account: "alice", kind: .token),
      .setting("private_key", backend: "sig"),
    ]
    for key in keys {
      let stored = Dictionary(uniqueKeysWithValues: key.storedAttributes)
      #expect(SecretKey(attributes: stored) == key, "\(stored)")
    }
    #expect(SecretKey(attributes: ["backend": "corp", "kind": "password"]) == nil, "no account")
    #expect(SecretKey(attributes: ["backend": "corp", "account": "alice", "kind": "cookie"]) == nil)
  }
}
