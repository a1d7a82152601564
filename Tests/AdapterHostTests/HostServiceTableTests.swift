import CAccountsAdapter
import Foundation
import Testing

@testable import AdapterHost

/// The digests and HMACs the host lends adapters (libgcrypt's), against known values.
@Suite struct HostServiceTableTests {
  @Test func hostDigestsMatchKnownValues() {
    func hex(_ algorithm: Int32, key: String? = nil, _ text: String) -> String {
      var out = [UInt8](repeating: 0, count: 64)
      let data = Array(text.utf8)
      let count: Int
      if let key {
        let keyBytes = Array(key.utf8)
        count = HostServiceTable.hmac(algorithm, keyBytes, keyBytes.count, data, data.count, &out, out.count)
      } else {
        count = HostServiceTable.digest(algorithm, data, data.count, &out, out.count)
      }
      return out.prefix(count).map { String(format: "%02x", $0) }.joined()
    }
    #expect(hex(ACC_DIGEST_MD5, "123456") == "e10adc3949ba59abbe56e057f20f883e")
    #expect(hex(ACC_DIGEST_SHA1, "abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(hex(ACC_DIGEST_SHA256, "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(hex(ACC_DIGEST_MD5, key: "key", "The quick brown fox jumps over the lazy dog") == "80070713463e7749b90c2dc24911e275")
    #expect(hex(ACC_DIGEST_MD5, "") == "d41d8cd98f00b204e9800998ecf8427e", "an empty input")
    #expect(
      hex(ACC_DIGEST_SHA256, key: "", "") == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad",
      "an empty key (python3: hmac.new(b'', b'', 'sha256'))")
    #expect(hex(99, "x") == "", "unknown algorithms give nothing")
  }
}
