extension JSONParser {
  /// Parses a string; `index` is at its opening quote and ends past the closing one.
  ///
  /// Most strings in the tool's files are plain ASCII without escapes; those become a `String`
  /// straight from the input bytes. The scan checks eight bytes at a time for anything that
  /// needs a closer look (a quote, a backslash, a control character or a non-ASCII byte),
  /// then handles that byte alone. The first backslash switches to `parseEscapedString`,
  /// which assembles the decoded bytes in `scratch`.
  mutating func parseString() throws(JSONParseError) -> String {
    let opening = index
    var position = index + 1
    while true {
      position = bytes.endOfPlainASCII(from: position)
      guard position < bytes.count else { break }
      let byte = bytes[position]
      if byte == ASCII.quote {
        index = position + 1
        return string((opening + 1)..<position)
      } else if byte >= 0x80 {
        position += try multibyteScalarLength(at: position)
      } else if byte == ASCII.backslash {
        index = position
        return try parseEscapedString(openedAt: opening)
      } else if byte < 0x20 {
        index = position
        throw controlCharacter(byte)
      } else {
        position += 1
      }
    }
    throw failure("unterminated string", at: opening)
  }

  private mutating func parseEscapedString(openedAt opening: Int) throws(JSONParseError) -> String {
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(opening + 1)..<index]))
    while index < bytes.count {
      let byte = bytes[index]
      if byte >= 0x80 {
        let length = try multibyteScalarLength(at: index)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]))
        index += length
      } else if byte == ASCII.quote {
        index += 1
        return String(decoding: scratch, as: UTF8.self)
      } else if byte == ASCII.backslash {
        try appendEscape()
      } else if byte < 0x20 {
        throw controlCharacter(byte)
      } else {
        scratch.append(byte)
        index += 1
      }
    }
    throw failure("unterminated string", at: opening)
  }

  /// Decodes the escape at `index` (a backslash) into `scratch`.
  private mutating func appendEscape() throws(JSONParseError) {
    let start = index
    guard index + 1 < bytes.count else {
      throw failure("expected an escape after '\\', found the end of the input", at: start)
    }
    let letter = bytes[index + 1]
    index += 2
    switch letter {
    case ASCII.quote, ASCII.backslash, UInt8(ascii: "/"): scratch.append(letter)
    case UInt8(ascii: "b"): scratch.append(0x08)
    case UInt8(ascii: "f"): scratch.append(0x0C)
    case UInt8(ascii: "n"): scratch.append(0x0A)
    case UInt8(ascii: "r"): scratch.append(0x0D)
    case UInt8(ascii: "t"): scratch.append(0x09)
    case UInt8(ascii: "u"):
      let unit = try parseHexQuad(escapeStart: start)
      switch unit {
      case 0xD800...0xDBFF:
        // A character outside the Basic Multilingual Plane: a high surrogate escape must be
        // followed at once by a low one, and the pair stands for one scalar.
        guard index + 1 < bytes.count, bytes[index] == ASCII.backslash,
          bytes[index + 1] == UInt8(ascii: "u")
        else {
          throw failure("unpaired UTF-16 high surrogate \(escapeText(at: start))", at: start)
        }
        let lowStart = index
        index += 2
        let low = try parseHexQuad(escapeStart: lowStart)
        guard (0xDC00...0xDFFF).contains(low) else {
          throw failure(
            "UTF-16 high surrogate \(escapeText(at: start)) is followed by "
              + "\(escapeText(at: lowStart)), not by a low surrogate", at: start)
        }
        appendUTF8(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
      case 0xDC00...0xDFFF:
        throw failure("unpaired UTF-16 low surrogate \(escapeText(at: start))", at: start)
      default:
        appendUTF8(unit)
      }
    default:
      throw failure("invalid escape: '\\' followed by \(found(at: start + 1))", at: start)
    }
  }

  /// Reads the four hex digits of a `\u` escape at `index`.
  private mutating func parseHexQuad(escapeStart: Int) throws(JSONParseError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      let digit: UInt8
      switch index < bytes.count ? bytes[index] : 0 {
      case let byte where (0x30...0x39).contains(byte): digit = byte - 0x30
      case let byte where (0x41...0x46).contains(byte): digit = byte - 0x41 + 10
      case let byte where (0x61...0x66).contains(byte): digit = byte - 0x61 + 10
      default:
        throw failure("invalid \\u escape: expected four hexadecimal digits", at: escapeStart)
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  /// The six bytes `\uXXXX` at `offset`, which `parseHexQuad` has checked.
  private func escapeText(at offset: Int) -> String {
    string(offset..<(offset + 6))
  }

  private mutating func appendUTF8(_ scalar: UInt32) {
    switch scalar {
    case ..<0x80:
      scratch.append(UInt8(scalar))
    case ..<0x800:
      scratch.append(UInt8(0xC0 | scalar >> 6))
      scratch.append(UInt8(0x80 | scalar & 0x3F))
    case ..<0x10000:
      scratch.append(UInt8(0xE0 | scalar >> 12))
      scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | scalar & 0x3F))
    default:
      scratch.append(UInt8(0xF0 | scalar >> 18))
      scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
      scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | scalar & 0x3F))
    }
  }

  private func controlCharacter(_ byte: UInt8) -> JSONParseError {
    let hint =
      switch byte {
      case ASCII.lineFeed: " (write it as \\n; is a closing '\"' missing?)"
      case ASCII.carriageReturn: " (write it as \\r)"
      case ASCII.tab: " (write it as \\t)"
      default: " (write it as \\u00\(Self.hex(byte)))"
      }
    return failure(
      "unescaped control character U+00\(Self.hex(byte)) in a string" + hint, at: index)
  }

  /// The length of the well-formed UTF-8 sequence (RFC 3629, section 4) starting with the
  /// non-ASCII byte at `start`, or an error naming what is wrong with it.
  func multibyteScalarLength(at start: Int) throws(JSONParseError) -> Int {
    let lead = bytes[start]
    let length: Int
    // The allowed range of the second byte: narrower after E0, ED, F0 and F4 to exclude
    // overlong forms, surrogates and code points above U+10FFFF.
    var lowest: UInt8 = 0x80
    var highest: UInt8 = 0xBF
    switch lead {
    case 0x80...0xBF: throw failure("invalid UTF-8: unexpected continuation byte", at: start)
    case 0xC0, 0xC1: throw failure("invalid UTF-8: overlong encoding", at: start)
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      lowest = 0xA0
    case 0xED:
      length = 3
      highest = 0x9F
    case 0xE1...0xEF: length = 3
    case 0xF0:
      length = 4
      lowest = 0x90
    case 0xF4:
      length = 4
      highest = 0x8F
    case 0xF1...0xF3: length = 4
    case 0xF5...0xF7: throw failure("invalid UTF-8: code point above U+10FFFF", at: start)
    default: throw failure("invalid UTF-8: byte 0x\(Self.hex(lead))", at: start)
    }
    for offset in 1..<length {
      guard start + offset < bytes.count, bytes[start + offset] & 0xC0 == 0x80 else {
        throw failure("invalid UTF-8: truncated sequence", at: start)
      }
    }
    let second = bytes[start + 1]
    if second < lowest { throw failure("invalid UTF-8: overlong encoding", at: start) }
    if second > highest {
      throw failure(
        lead == 0xED
          ? "invalid UTF-8: encoded UTF-16 surrogate" : "invalid UTF-8: code point above U+10FFFF",
        at: start)
    }
    return length
  }
}
