import AccountsContract
import AccountsSystem
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

  /// A password item also carries what other tools find and show it by: python keyring's
  /// service and username, KeePassXC's UserName and (with the key's url) URL. The url is what
  /// a store writes, not the item's name: keys that differ only in it are one key.
  @Test func passwordItemsCarryTheAttributesOtherToolsShowAndTheURLIsNoPartOfTheName() {
    var key = SecretKey(backend: "corp", account: "alice", kind: .password)
    key.url = "https://corp.example/api"
    let stored = Dictionary(uniqueKeysWithValues: key.storedAttributes)
    #expect(stored == [
      "backend": "corp", "account": "alice", "kind": "password", "service": "accounts:corp", "username": "alice",
      "UserName": "alice", "URL": "https://corp.example/api",
    ])
    #expect(key.attributes.map(\.0) == ["backend", "account", "kind"], "lookups match the schema's own")
    let plain = SecretKey(backend: "corp", account: "alice", kind: .password)
    #expect(plain == key && Set([plain, key]).count == 1)
    #expect(Dictionary(uniqueKeysWithValues: plain.storedAttributes)["URL"] == nil)
    #expect(SecretKey(backend: "corp", account: "alice", kind: .token).storedAttributes.count == 3, "tokens carry no more")
    #expect(SecretSchema.attributeNames.contains("UserName") && SecretSchema.attributeNames.contains("URL"))
  }
}
