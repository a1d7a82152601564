/// Writes JSON text into a byte buffer; `JSON.serialize` is the public entry point.
///
/// Recursive, unlike the parser: values come from the tool's own code or from the parser,
/// which caps nesting at 512, so the depth is small.
struct JSONSerializer {
  let pretty: Bool
  private var output: [UInt8] = []

  init(pretty: Bool) {
    self.pretty = pretty
  }

  /// The text written so far.
  var text: String { String(decoding: output, as: UTF8.self) }

  /// Writes `value`, which sits `depth` containers deep (for the pretty indentation).
  mutating func write(_ value: JSONValue, depth: Int) {
    switch value {
    case .null: append("null")
    case .bool(let value): append(value ? "true" : "false")
    case .number(let number): output.append(contentsOf: number.text.utf8)
    case .string(let string): write(string)
    case .array(let elements):
      guard !elements.isEmpty else { return append("[]") }
      output.append(ASCII.openBracket)
      for (position, element) in elements.enumerated() {
        if position > 0 { output.append(ASCII.comma) }
        newLine(depth: depth + 1)
        write(element, depth: depth + 1)
      }
      newLine(depth: depth)
      output.append(ASCII.closeBracket)
    case .object(let object):
      guard !object.isEmpty else { return append("{}") }
      output.append(ASCII.openBrace)
      for (position, member) in object.enumerated() {
        if position > 0 { output.append(ASCII.comma) }
        newLine(depth: depth + 1)
        write(member.key)
        output.append(ASCII.colon)
        if pretty { output.append(ASCII.space) }
        write(member.value, depth: depth + 1)
      }
      newLine(depth: depth)
      output.append(ASCII.closeBrace)
    }
  }

  /// In pretty output, a line break and the indentation of `depth`; nothing otherwise.
  private mutating func newLine(depth: Int) {
    guard pretty else { return }
    // A line feed and the spaces of up to 31 levels in one copy; deeper levels are rare.
    let lineAndIndentation: StaticString =
      "\n                                                              "
    let length = 1 + 2 * depth
    if length <= lineAndIndentation.utf8CodeUnitCount {
      output.append(
        contentsOf: UnsafeBufferPointer(start: lineAndIndentation.utf8Start, count: length))
    } else {
      output.append(ASCII.lineFeed)
      output.append(contentsOf: repeatElement(ASCII.space, count: 2 * depth))
    }
  }

  private mutating func append(_ word: StaticString) {
    output.append(
      contentsOf: UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
  }

  /// Writes a string literal. Runs of bytes that need no escape are copied whole.
  private mutating func write(_ string: String) {
    output.append(ASCII.quote)
    var string = string
    string.withUTF8 { utf8 in
      var runStart = 0
      var position = 0
      while true {
        position = utf8.endOfPlainASCII(from: position)
        guard position < utf8.count else { break }
        let byte = utf8[position]
        let escape: StaticString?
        var length = 1
        switch byte {
        case ASCII.quote: escape = "\\\""
        case ASCII.backslash: escape = "\\\\"
        case ASCII.lineFeed: escape = "\\n"
        case ASCII.carriageReturn: escape = "\\r"
        case ASCII.tab: escape = "\\t"
        case 0x08: escape = "\\b"
        case 0x0C: escape = "\\f"
        case ..<0x20: escape = nil
        case 0xC2 where position + 1 < utf8.count && (0x80...0x9F).contains(utf8[position + 1]):
          // C1 controls (U+0080 to U+009F): some terminals act on them (U+009B starts an escape
          // sequence), so they are escaped like the C0 ones.
          output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
          append("\\u00")
          output.append(Self.lowercaseHexDigit(utf8[position + 1] >> 4))
          output.append(Self.lowercaseHexDigit(utf8[position + 1] & 0xF))
          position += 2
          runStart = position
          continue
        case 0xE2
        where position + 2 < utf8.count && utf8[position + 1] == 0x80
          && (utf8[position + 2] == 0xA8 || utf8[position + 2] == 0xA9):
          // U+2028 and U+2029 are legal in JSON but end lines in JavaScript and in some
          // editors and terminals; escaping them keeps output safe to paste anywhere.
          escape = utf8[position + 2] == 0xA8 ? "\\u2028" : "\\u2029"
          length = 3
        case 0xE2
        where position + 2 < utf8.count
          && ((utf8[position + 1] == 0x80 && [0x8E, 0x8F, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE].contains(utf8[position + 2]))
            || (utf8[position + 1] == 0x81 && (0xA6...0xA9).contains(utf8[position + 2]))):
          // Bidi controls (U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) reorder what a
          // terminal shows around them: escaped, the text reads as it is.
          let scalar = (UInt32(utf8[position] & 0x0F) << 12) | (UInt32(utf8[position + 1] & 0x3F) << 6)
            | UInt32(utf8[position + 2] & 0x3F)
          output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
          append("\\u")
          for shift in [12, 8, 4, 0] { output.append(Self.lowercaseHexDigit(UInt8((scalar >> UInt32(shift)) & 0xF))) }
          position += 3
          runStart = position
          continue
        default:
          // Any other non-ASCII byte: UTF-8 passes through as it is.
          position += 1
          continue
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
        if let escape {
          append(escape)
        } else {
          append("\\u00")
          output.append(Self.lowercaseHexDigit(byte >> 4))
          output.append(Self.lowercaseHexDigit(byte & 0xF))
        }
        position += length
        runStart = position
      }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
    }
    output.append(ASCII.quote)
  }

  private static func lowercaseHexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? ASCII.zero + value : UInt8(ascii: "a") + value - 10
  }
}
