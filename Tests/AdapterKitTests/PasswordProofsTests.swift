import SecretMemory
import Testing

@testable import AdapterKit

/// The encoders' structure, checked against a fake digest that echoes its input: which bytes
/// go to which digest, in which order. The real digests of the SPEC vectors are checked end to
/// end through the host (the test backend refuses to start if its own vectors disagree).
@Suite struct PasswordProofsTests {
  static let appKey = "170ib799dd511e7b66000163e033322"

  @Test func theSignedVectorsSigningInputIsSortedBytewiseWithThePrivateKey() {
    let fields = [
      FormField("app_id", Self.appKey), FormField("plat", "iOS"), FormField("ver", "1.0"),
      FormField("rand", "12dwfhdy487rSels"), FormField("timestamp", "2017-12-09-13:39:39"),
      FormField("phoneNo", "123456"),
      FormField("password", secret: SecretBytes(Array("123456".utf8))),
    ]
    let input = Signature.signingInput(fields, privateKey: SecretBytes(Array(Self.appKey.utf8)))
    #expect(
      input.text
        == "app_id=\(Self.appKey)&password=123456&phoneNo=123456&plat=iOS"
        + "&private_key=\(Self.appKey)&rand=12dwfhdy487rSels&timestamp=2017-12-09-13:39:39&ver=1.0")
  }

  @Test func sortingComparesWholeEntriesAsBytes() {
    let fields = [
      FormField("a_b", "1"), FormField("a", "2"), FormField("B", "3"), FormField("é", "4"),
      FormField("a", "1"),
    ]
    let input = Signature.signingInput(fields, privateKey: SecretBytes(Array("k".utf8)))
    // "=" (0x3D) sorts before "_" (0x5F), uppercase before lowercase, UTF-8 after ASCII.
    #expect(input.text == "B=3&a=1&a=2&a_b=1&private_key=k&é=4")
  }

  @Test func signIsTheHostsMD5OfTheSigningInputInLowercaseHex() throws {
    let host = FakeHost()
    let sign = try Signature.sign(
      [FormField("b", "2"), FormField("a", "1")], privateKey: SecretBytes(Array("K".utf8)),
      host: host)
    #expect(host.digestInputs == ["a=1&b=2&private_key=K"])
    #expect(sign == FakeHost.fakeHex("a=1&b=2&private_key=K"))
    #expect(sign.count == 32)
  }

  @Test func hmacProofDerivesTheKeyThenChainsTwoHMACs() throws {
    let host = FakeHost()
    let proof = try HMACProof.make(
      password: SecretBytes(Array("123456".utf8)), key: SecretBytes(Array("qianqian".utf8)),
      minute: "2017-12-0913:39", host: host)
    let k = FakeHost.fakeHex("qianqian")
    let base = FakeHost.fakeHex("123456")
    #expect(host.digestInputs == ["qianqian"])
    #expect(host.hmacInputs.map(\.key) == [k, k])
    #expect(host.hmacInputs.map(\.data) == ["123456", base + "2017-12-0913:39"])
    #expect(proof.text == FakeHost.fakeHex(base + "2017-12-0913:39"))
  }

  @Test func passwordEncodingsAskTheHostForTheRightDigests() throws {
    let password = SecretBytes(Array("123456".utf8))
    let host = FakeHost()
    #expect(try PasswordEncoding.plain.encode(password, host: host).text == "123456")
    #expect(try PasswordEncoding.base64.encode(password, host: host).text == "MTIzNDU2")
    #expect(host.digestInputs.isEmpty && host.hmacInputs.isEmpty)

    #expect(
      try PasswordEncoding.md5.encode(password, host: host).text == FakeHost.fakeHex("123456"))
    #expect(host.digestInputs == ["123456"])

    let salted = try PasswordEncoding.md5Salt(salt: "pepper").encode(password, host: host)
    #expect(host.digestInputs.last == "123456pepper")
    #expect(salted.text == FakeHost.fakeHex("123456pepper"))

    let key = SecretBytes(Array("qianqian".utf8))
    let hmacked = try PasswordEncoding.md5HMAC(key: key).encode(password, host: host)
    #expect(host.hmacInputs.map(\.key) == ["qianqian"])
    #expect(host.hmacInputs.map(\.data) == ["123456"])
    #expect(host.digestInputs.last == FakeHost.fakeHex("123456"))
    #expect(hmacked.text == FakeHost.fakeHex(FakeHost.fakeHex("123456")))
  }

  @Test func onlyPlainAndBase64AreRecoverable() {
    #expect(PasswordEncoding.plain.isRecoverable)
    #expect(PasswordEncoding.base64.isRecoverable)
    #expect(!PasswordEncoding.md5.isRecoverable)
    #expect(!PasswordEncoding.md5Salt(salt: "s").isRecoverable)
    #expect(!PasswordEncoding.md5HMAC(key: .empty).isRecoverable)
  }

  @Test func hexIsLowercaseTwoDigitsPerByte() {
    #expect(Hex.lowercase([0x00, 0x0F, 0xA0, 0xFF]).text == "000fa0ff")
  }
}
