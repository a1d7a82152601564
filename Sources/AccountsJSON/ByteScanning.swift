extension UnsafeBufferPointer<UInt8> {
  /// The position of the first byte from `start` on that is not printable ASCII other than
  /// `"` and `\`, or `count`: the end of a run that both the parser and the serializer can
  /// copy as it is.
  ///
  /// Eight bytes at a time (SWAR): `(word - ones * n) & ~word & highBits` flags the bytes
  /// below n, a byte equal to c is a zero byte in `word ^ (ones * c)`, and `word & highBits`
  /// flags the non-ASCII bytes. A flag may also appear above a flagged byte (borrows), never
  /// below, so the lowest flag is exact.
  @inline(__always)
  func endOfPlainASCII(from start: Int) -> Int {
    var position = start
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    while position + 8 <= count {
      let word = UInt64(
        littleEndian: UnsafeRawPointer(baseAddress! + position).loadUnaligned(as: UInt64.self))
      let quotes = word ^ (ones &* UInt64(ASCII.quote))
      let backslashes = word ^ (ones &* UInt64(ASCII.backslash))
      let flags =
        ((word &- ones &* 0x20) | (quotes &- ones) | (backslashes &- ones)) & ~word & highBits
        | word & highBits
      if flags != 0 { return position + flags.trailingZeroBitCount / 8 }
      position += 8
    }
    while position < count {
      let byte = self[position]
      if byte < 0x20 || byte >= 0x80 || byte == ASCII.quote || byte == ASCII.backslash { break }
      position += 1
    }
    return position
  }
}
