import AccountsCore
@testable import AccountsServices
import AccountsSystem
import SecretMemory
import Testing


/// The token cache's payload: served only under the identity it was kept under, and only as
/// this version wrote it.
@Suite struct CacheEntryTests {
  func payload(identity: String, owner: String = ":1.7", item: String = "/org/freedesktop/secrets/collection/login/3") -> [UInt8] {
    var bytes: [UInt8] = []
    // The bytes are lent for the copy only: a pointer to a temporary array would dangle.
    let token = Array("tok\nen".utf8).withUnsafeBytes { SecretBytes(copying: $0) }
    CacheEntry.encode(token, identity: identity, owner: owner, item: item) { bytes = Array($0) }
    return bytes
  }

  @Test func anEntryReadsBackUnderItsOwnIdentityOnly() throws {
    let bytes = payload(identity: "g1 100 200")
    let entry = try #require(bytes.withUnsafeBytes { CacheEntry(decoding: $0, identity: "g1 100 200") })
    #expect(entry.owner == ":1.7")
    #expect(entry.item == "/org/freedesktop/secrets/collection/login/3")
    #expect(entry.token.withUnsafeBytes { Array($0) } == Array("tok\nen".utf8), "a token may hold any byte")
    #expect(bytes.withUnsafeBytes { CacheEntry(decoding: $0, identity: "g2 100 200") } == nil, "another session")
  }

  @Test func aPayloadThisVersionDidNotWriteIsAMiss() {
    var other = payload(identity: "g1")
    other[other.firstIndex(of: UInt8(ascii: "3"))!] = UInt8(ascii: "9")
    #expect(other.withUnsafeBytes { CacheEntry(decoding: $0, identity: "g1") } == nil, "another version")
    #expect(payload(identity: "g1", owner: "org.freedesktop.secrets").withUnsafeBytes { CacheEntry(decoding: $0, identity: "g1") } == nil)
    #expect(Array("accounts-token-cache 3\ng1\n".utf8).withUnsafeBytes { CacheEntry(decoding: $0, identity: "g1") } == nil)
  }
}
