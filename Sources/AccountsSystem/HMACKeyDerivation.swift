import SecretMemory

/// HMAC-SHA256 (RFC 2104), the building block of HKDF.
enum HMACSHA256 {
  /// The 32-byte authentication code of `message` under `key`. A key longer than a block is
  /// hashed first; the padded key copies are wiped before returning.
  static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
    // One zeroed block written in place, so that no shorter copy of the key is left unwiped.
    var blockKey = [UInt8](repeating: 0, count: SHA256.blockByteCount)
    var hashedKey = key.count > SHA256.blockByteCount ? SHA256.hash(key) : []
    for (index, byte) in (hashedKey.isEmpty ? key : hashedKey).enumerated() { blockKey[index] = byte }
    wipe(&hashedKey)
    var innerPad = blockKey.map { $0 ^ 0x36 }
    var outerPad = blockKey.map { $0 ^ 0x5c }
    wipe(&blockKey)
    var inner = SHA256()
    inner.update(innerPad)
    inner.update(message)
    var innerDigest = inner.finish()
    var outer = SHA256()
    outer.update(outerPad)
    outer.update(innerDigest)
    wipe(&innerPad)
    wipe(&outerPad)
    wipe(&innerDigest)
    return outer.finish()
  }
}

/// HKDF with SHA-256 (RFC 5869): extract a pseudorandom key from `inputKeyMaterial`, then expand
/// it to `outputByteCount` bytes. The Secret Service session derives its AES key with an empty
/// salt (RFC 5869 section 2.2: the same as 32 zero bytes) and empty info.
enum HKDFSHA256 {
  static func deriveKey(
    inputKeyMaterial: [UInt8], salt: [UInt8] = [], info: [UInt8] = [], outputByteCount: Int
  ) -> [UInt8] {
    precondition(outputByteCount >= 0 && outputByteCount <= 255 * SHA256.digestByteCount, "HKDF output too long")
    let extractSalt = salt.isEmpty ? [UInt8](repeating: 0, count: SHA256.digestByteCount) : salt
    var pseudorandomKey = HMACSHA256.authenticationCode(for: inputKeyMaterial, key: extractSalt)
    defer { wipe(&pseudorandomKey) }
    var output: [UInt8] = []
    output.reserveCapacity(outputByteCount)  // no reallocation leaves a copy behind
    var previous: [UInt8] = []
    var counter: UInt8 = 1
    while output.count < outputByteCount {
      var block = previous
      block.append(contentsOf: info)
      block.append(counter)
      wipe(&previous)
      previous = HMACSHA256.authenticationCode(for: block, key: pseudorandomKey)
      wipe(&block)
      output.append(contentsOf: previous.prefix(outputByteCount - output.count))
      counter &+= 1
    }
    wipe(&previous)
    return output
  }
}
