/// What fuzz cases are made of: hostile words, random text and bytes, and mutations of valid
/// documents. Every choice comes from the case's random numbers.
extension Case {
  /// 0 ..< `bound`.
  mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<max(bound, 1), using: &random) }

  /// True one time in `times`.
  mutating func oneIn(_ times: Int) -> Bool { below(times) == 0 }

  mutating func pick<Element>(_ choices: [Element]) -> Element { choices[below(choices.count)] }

  /// Words a parser or reader is likely to stumble on.
  static let hostileWords = [
    "", " ", "-", "--", "---", "-=", "--=", "=", "==", "\u{0}", "\n", "\r\n", "\t", "\u{1B}[31m", "\u{7F}",
    "\u{85}", "\u{202E}", "\u{200B}", "\u{FEFF}", "\u{2028}", "é", "e\u{301}", "张三", "🙂", "\u{FFFD}", "a\u{0}b",
    "@", "@@", "a@", "@b", "a@b@c", "%", "%zz", "%00", "$(id)", "`id`", "'", "\"", "\\", "{", "}", "[", "]", ",",
    "null", "true", "0", "-0", "-1", "1e999", "99999999999999999999", "9223372036854775808", "0x10", "1.5",
    "NaN", "İ", "ß", "ǅ", "ﬃ", "optıons", "GET", "get", "-h", "--help", "-v", "--version", "--json",
  ]

  /// Text of up to `length` characters: mostly printable ASCII, with controls, letters of
  /// other scripts, combining marks, format characters and emoji.
  mutating func text(upTo length: Int) -> String {
    var scalars = String.UnicodeScalarView()
    for _ in 0..<below(length + 1) {
      let value: UInt32 =
        switch below(10) {
        case 0: UInt32(below(0x20))
        case 1: pick([0x7F, 0x85, 0xA0, 0xAD, 0x200B, 0x200E, 0x202E, 0x2028, 0x2029, 0xFEFF, 0xFFFD, 0x301])
        case 2: UInt32(0x80 + below(0x780))
        case 3: UInt32(0x4E00 + below(0x5000))
        case 4: UInt32(0x1F300 + below(0x300))
        default: UInt32(0x20 + below(0x5F))
        }
      scalars.append(Unicode.Scalar(value) ?? "?")
    }
    return String(scalars)
  }

  /// A word: a hostile one, random text, or (rarely) a very long one.
  mutating func word() -> String {
    switch below(32) {
    case 0..<8: return pick(Self.hostileWords)
    case 8: return String(repeating: pick(["a", "-", "=", "é", "\u{0}", "@"]), count: 1 + below(20_000))
    default: return text(upTo: 12)
    }
  }

  /// Up to `length` random bytes, biased to the ones that matter in JSON, CSV and URIs.
  mutating func bytes(upTo length: Int) -> [UInt8] {
    let special =
      Array("{}[]\",:\\ \t\r\n0123456789-+.eEtrufalsn%=&?#/@".utf8) + [0, 0x7F, 0x80, 0xBF, 0xC0, 0xE2, 0xED, 0xF4, 0xFF]
    return (0..<below(length + 1)).map { _ in oneIn(2) ? pick(special) : UInt8(truncatingIfNeeded: below(256)) }
  }

  /// `document` changed in a few places: bytes flipped, inserted, removed or repeated, pieces
  /// of JSON or CSV spliced in, or the end cut off.
  mutating func mutated(_ document: [UInt8], pieces: [String]) -> [UInt8] {
    var bytes = document
    for _ in 0..<(oneIn(2) ? 1 : 1 + below(4)) {
      let at = below(bytes.count + 1)
      switch below(8) {
      case 0 where at < bytes.count: bytes[at] = UInt8(truncatingIfNeeded: below(256))
      case 1 where at < bytes.count: bytes[at] ^= UInt8(1) << UInt8(below(8))
      case 2: bytes.insert(contentsOf: Array(pick(pieces).utf8), at: at)
      case 3: bytes.removeSubrange(at..<min(bytes.count, at + 1 + below(16)))
      case 4:
        let end = min(bytes.count, at + below(64))
        bytes.insert(contentsOf: bytes[at..<end], at: end)
      case 5: bytes.removeSubrange(at...)
      case 6: bytes.insert(contentsOf: self.bytes(upTo: 8), at: at)
      default: bytes.insert(contentsOf: Array(pick(Self.hostileWords).utf8), at: at)
      }
    }
    return bytes
  }

  /// A short description of `bytes` for a failure: Swift's escaping, cut at 2,000 characters.
  static func show(_ bytes: [UInt8]) -> String {
    let text = String(decoding: bytes, as: UTF8.self).debugDescription
    return text.count > 2000 ? String(text.prefix(2000)) + "… (\(bytes.count) bytes)" : text
  }

  static func show(_ words: [String]) -> String {
    let text = words.debugDescription
    return text.count > 2000 ? String(text.prefix(2000)) + "…" : text
  }
}
