import AccountsSystem
import SecretMemory
import Testing

@testable import AccountsCore

/// Strict base32 (RFC 4648) as TOTP seeds are written: the RFC's vectors, and what is refused.
@Suite struct Base32Tests {
  static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test(arguments: [
    ("", [UInt8]()), ("MY", Array("f".utf8)), ("MZXQ", Array("fo".utf8)), ("MZXW6", Array("foo".utf8)),
    ("MZXW6YQ", Array("foob".utf8)), ("MZXW6YTB", Array("fooba".utf8)), ("MZXW6YTBOI", Array("foobar".utf8)),
    ("MZXW6YTBOI======", Array("foobar".utf8)), ("mzxw6ytboi", Array("foobar".utf8)),
    ("MZXW 6YTB OI", Array("foobar".utf8)),
    ("MY======", Array("f".utf8)),
  ])
  func decodesRFC4648Vectors(text: String, expected: [UInt8]) throws {
    if text.isEmpty {
      #expect(throws: Base32Error.empty) { try Base32.decode(Self.bytes(text)) }
    } else {
      #expect(try Base32.decode(Self.bytes(text)) == expected)
    }
  }

  @Test func encodesWithoutPadding() {
    #expect(Base32.encode(Self.bytes("foobar")) == Self.bytes("MZXW6YTBOI"))
    #expect(Base32.encode(Self.bytes("12345678901234567890")) == Self.bytes("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
  }

  @Test(arguments: [
    ("   ", Base32Error.empty), ("===", Base32Error.empty),
    ("MZXW1", Base32Error.invalidCharacter(position: 5)), ("MZXW8", Base32Error.invalidCharacter(position: 5)),
    ("MZ-W6", Base32Error.invalidCharacter(position: 3)), ("MZXW\t6", Base32Error.invalidCharacter(position: 5)),
    ("MZXWé", Base32Error.invalidCharacter(position: 5)),
    ("MY=Y", Base32Error.paddingInside(position: 4)),
    ("M", Base32Error.invalidLength(characters: 1)), ("MZX", Base32Error.invalidLength(characters: 3)),
    ("MZXW6Y", Base32Error.invalidLength(characters: 6)),
    ("MY=", Base32Error.wrongPadding), ("MZXW6YTBOI=", Base32Error.wrongPadding),
    ("MZXW6YTB========", Base32Error.wrongPadding),
  ])
  func refuses(text: String, error: Base32Error) {
    #expect(throws: error) { try Base32.decode(Self.bytes(text)) }
  }
}
