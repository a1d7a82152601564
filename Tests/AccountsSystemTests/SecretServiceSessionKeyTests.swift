import Testing

@testable import AccountsSystem

/// The Diffie-Hellman side of the `dh-ietf1024-sha256-aes128-cbc-pkcs7` session: exponentiation
/// modulo RFC 2409's prime checked against python3's `pow(y, x, p)`, the whole chain (public
/// value, shared secret padded to 128 bytes, HKDF, AES-CBC) against values computed with python3
/// and its `cryptography` package, and every service public value outside 1 < Y < p - 1 refused.
@Suite struct SecretServiceSessionKeyTests {
  static func hex(_ text: String) -> [UInt8] { hexadecimal(text) }
  static let prime = SecretServiceSessionKey.prime
  static func number(_ text: String) -> [UInt8] { hex(text) }
  /// p - value, big-endian (value below 2^32: p ends in 32 one bits, so no borrow).
  static func primeMinus(_ value: UInt32) -> [UInt8] {
    var result = prime
    let low = UInt32(result[124]) << 24 | UInt32(result[125]) << 16 | UInt32(result[126]) << 8 | UInt32(result[127])
    let difference = low - value
    for index in 0..<4 { result[124 + index] = UInt8(truncatingIfNeeded: difference >> (24 - 8 * UInt32(index))) }
    return result
  }
  /// x = 2^255 + 12345, big-endian.
  static let exponent = hex("8000000000000000000000000000000000000000000000000000000000003039")
  /// libgcrypt's base^exponent mod p, the way the session computes it.
  static func powered(_ base: [UInt8], _ exponent: [UInt8]) throws -> [UInt8] {
    try exponent.withUnsafeBytes { exponent in try Cryptography.power(base, exponent: exponent, modulus: prime) }
  }
  static func power(_ base: [UInt8], _ exponent: [UInt8]) throws -> String {
    try powered(base, exponent).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
      .joined()
  }
  static func key(exponent: [UInt8]) throws -> SecretServiceSessionKey {
    var copy = exponent
    return try #require(SecretServiceSessionKey(privateExponent: &copy))
  }

  /// As RFC 2409 section 6.2 prints it.
  @Test func thePrimeIsRFC2409sSecondOakleyGroup() {
    #expect(
      Self.prime
        == Self.hex(
          "FFFFFFFF FFFFFFFF C90FDAA2 2168C234 C4C6628B 80DC1CD1 29024E08 8A67CC74 020BBEA6 3B139B22 514A0879 8E3404DD"
            + "EF9519B3 CD3A431B 302B0A6D F25F1437 4FE1356D 6D51C245 E485B576 625E7EC6 F44C42E9 A637ED6B 0BFF5CB6 F406B7ED"
            + "EE386BFB 5A899FA5 AE9F2411 7C4B1FE6 49286651 ECE65381 FFFFFFFF FFFFFFFF"))
  }

  @Test func powersMatchPython() throws {
    #expect(
      try Self.power(Self.primeMinus(2), Self.exponent)
        == "93d2e7da66a43db9aa33f728bf3c36ce0628fda25a51192648189b42b51a90f528bbfb58252f7b3b4288bd9a94181b05"
        + "1677626c5c79805c24adcbbe3152c5961898ff6df15a45d5cc0c7bd0a1affed7cb8a80d7dd367715dcda5deb597b1a3c"
        + "9d65773a1241c68d23e7bab6d22d5df8be8f91806645949d9c4ed82ce14c6581")
    #expect(
      try Self.power(Self.number("03"), Self.exponent)
        == "36d66338a7600b4cdb271fd54db9f2c33155f870ea4709aa09915f6e0216e72908e97d65d1fccacb3c60bdc7f0577dab"
        + "8cc60f27dfce1f086cae4c49450fe1055ea709b105bd383caca4eda40676983a7be979fe2b3a882656012cd59dcb132b"
        + "ec685e7e18044f9c81bde1ed730d9c47fca76239536085abbf3a07d13b332101")
    // A 1024-bit exponent: p - 2 gives the inverse of 3.
    #expect(
      try Self.power(Self.number("03"), Self.primeMinus(2))
        == "5555555555555555430548e0b5cd961196eccb83d59eb445b8561a02d8cd4426ab593f8cbe5bde60c5c3582884bc019f"
        + "4fdc5de699be165e6563ae24a61fb167c54b11cf247096174c2c91d220ca2a42516ec0f88cbd4f23aeaa743cfc023d4f"
        + "4f6823fe738335373a350c05d4190aa21862ccc5f9a21bd60000000000000000")
    // (p - 12345)^(p - 1 - 54321): both operands near the top of the range.
    #expect(
      try Self.power(Self.primeMinus(12345), Self.primeMinus(1 + 54321))
        == "74322373c641f0ad4b4b6fe137b99bb80601615efe6703c8e9cafa67094a5d69f43cd65a5d42f9fcfb0f9c8e951b9100"
        + "f3393d8a201a99440724f4f3e63942573181393da8daf66b3a67152a9522712442bbf4f14bac1924334928afb537b393"
        + "9ef9c7f25fd15a84c3b369f920cd1fb0ceafb652283b90e356c49a73cefa9dab")
  }

  @Test func edgeInputsOfTheExponentiation() throws {
    let zero = [UInt8](repeating: 0, count: 128)
    var one = zero
    one[127] = 1
    var five = zero
    five[127] = 5
    #expect(try Self.powered([0], Self.exponent) == zero)
    #expect(try Self.powered([1], Self.exponent) == one)
    #expect(try Self.powered([5], []) == one)
    #expect(try Self.powered([5], [0, 0]) == one)
    #expect(try Self.powered([5], [1]) == five)
    #expect(try Self.powered(Self.primeMinus(1), [2]) == one, "(-1)^2")
    #expect(try Self.powered(Self.primeMinus(1), [3]) == Self.primeMinus(1))
    // Fermat: a^(p-1) = 1 for a prime p.
    #expect(try Self.powered(Self.primeMinus(2), Self.primeMinus(1)) == one)
  }

  /// x = 2^255 + 12345 gives 2^x mod p as its public value, and the service's Y = 331 gives a
  /// shared secret whose first byte is zero: its key (python3) is the one of the padded 128 bytes,
  /// not 97d954f7... of the 127 bytes with the zero dropped. The ciphertext is python3's.
  @Test func theWholeChainMatchesPythonWhenTheSharedSecretStartsWithZero() throws {
    let key = try Self.key(exponent: Self.exponent)
    #expect(
      key.publicKey
        == Self.hex(
          "6c2d1825995bc2461edbe379622c8b66be9d64e9268b03aae0e9b2c5d54d3b7ed94fc34e15e41fe70ec14adefa1be9d8"
            + "d91db74770c0c2bf0b7d3eafc10c4ea1374835ff7bf77c70187939a5c0ae7fef28c1c211c90176552f24fecb9a8b9d"
            + "b150d2f4c14847d9188ab7695aaa1dc1ed8a98d4d186a0bee463b127d31eb39a7e"))
    let cipher = try #require(key.agree(withServicePublicKey: [0x01, 0x4b]))
    #expect(cipher.key.withUnsafeBytes { Array($0) } == Self.hex("4ff7bc28ed4f1e241cbd789e6ecf377d"))
    let plaintext = cipher.decrypt(
      value: Self.hex("690c29c67f99ccfab3de0e0c91db30b34d67566efc1482d95582cfdd71963e0a"),
      parameters: Self.hex("000102030405060708090a0b0c0d0e0f"))
    #expect(plaintext?.withUnsafeBytes { Array($0) } == Array("correct horse battery staple".utf8))
  }

  /// Y = 0x1234567890abcdef * 2^896 + 0xfeedface given with leading zeros (all 128 bytes) agrees on the same key as its minimal encoding;
  /// a 16-byte secret comes with a whole block of padding.
  @Test func aServiceValueWithLeadingZerosIsTheSameNumber() throws {
    let key = try Self.key(exponent: Self.exponent)
    let minimal = Self.hex("1234567890abcdef") + [UInt8](repeating: 0, count: 108) + Self.hex("feedface")
    #expect(minimal.count == 120)
    let padded = [UInt8](repeating: 0, count: 8) + minimal
    for value in [minimal, padded] {
      let cipher = try #require(key.agree(withServicePublicKey: value))
      #expect(cipher.key.withUnsafeBytes { Array($0) } == Self.hex("4501a6200d5469e655310ce738e70493"))
      let plaintext = cipher.decrypt(
        value: Self.hex("770bad017c9d0529fc5babeae2c8edcd36852a8179ef6790e465762d3108c92b"),
        parameters: Self.hex("000102030405060708090a0b0c0d0e0f"))
      #expect(plaintext?.withUnsafeBytes { Array($0) } == Array("p\u{e4}ssw\u{f6}rd-16-by".utf8))
    }
  }

  /// x = 2^255 + 1649 gives a public value below 2^1016: it is still sent as 128 bytes.
  @Test func aSmallPublicValueKeepsItsLeadingZeros() throws {
    var exponent = Self.exponent
    exponent[30] = 0x06
    exponent[31] = 0x71
    let key = try Self.key(exponent: exponent)
    #expect(key.publicKey.count == 128)
    #expect(key.publicKey.prefix(3) == [0x00, 0x8d, 0x4c])
  }

  @Test func twoFreshKeysAgreeAndEachMessageRoundTrips() throws {
    let ours = try #require(SecretServiceSessionKey())
    let theirs = try #require(SecretServiceSessionKey())
    #expect(ours.publicKey.count == 128 && theirs.publicKey.count == 128)
    #expect(ours.publicKey != theirs.publicKey)
    let ourCipher = try #require(ours.agree(withServicePublicKey: theirs.publicKey))
    let theirCipher = try #require(theirs.agree(withServicePublicKey: ours.publicKey))
    let iv = Self.hex("0f0e0d0c0b0a09080706050403020100")
    let secret = Array("s3cret with \u{1F511} in it".utf8)
    let decrypted = ourCipher.decrypt(value: try theirCipher.encrypt(secret, iv: iv), parameters: iv)
    #expect(decrypted?.withUnsafeBytes { Array($0) } == secret)
  }

  @Test func servicePublicValuesOutsideTheRangeAreRefused() throws {
    let key = try Self.key(exponent: Self.exponent)
    var primePlusOne = Self.prime  // p ends in 64 one bits
    for index in 120..<128 { primePlusOne[index] = 0 }
    primePlusOne[119] += 1
    let refused: [(String, [UInt8])] = [
      ("empty", []),
      ("0", [0]),
      ("1", [1]),
      ("1 with leading zeros", [0, 0, 0, 1]),
      ("p - 1", Self.primeMinus(1)),
      ("p", Self.prime),
      ("p + 1", primePlusOne),
      ("2^1024 - 1", [UInt8](repeating: 0xff, count: 128)),
      ("129 bytes", [1] + [UInt8](repeating: 0, count: 128)),
      ("2 in 129 bytes", [UInt8](repeating: 0, count: 128) + [2]),
    ]
    for (name, value) in refused {
      #expect(key.agree(withServicePublicKey: value) == nil, "\(name)")
    }
    // Both ends of the accepted range: 2 and p - 2.
    #expect(key.agree(withServicePublicKey: [2]) != nil)
    #expect(key.agree(withServicePublicKey: Self.primeMinus(2)) != nil)
  }
}
