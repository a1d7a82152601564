/// The byte values the grammar names. Computed rather than stored so that they fold into
/// constants instead of lazily initialised globals on the hot path.
enum ASCII {
  static var tab: UInt8 { UInt8(ascii: "\t") }
  static var lineFeed: UInt8 { UInt8(ascii: "\n") }
  static var carriageReturn: UInt8 { UInt8(ascii: "\r") }
  static var space: UInt8 { UInt8(ascii: " ") }
  static var quote: UInt8 { UInt8(ascii: "\"") }
  static var backslash: UInt8 { UInt8(ascii: "\\") }
  static var comma: UInt8 { UInt8(ascii: ",") }
  static var colon: UInt8 { UInt8(ascii: ":") }
  static var minus: UInt8 { UInt8(ascii: "-") }
  static var plus: UInt8 { UInt8(ascii: "+") }
  static var period: UInt8 { UInt8(ascii: ".") }
  static var zero: UInt8 { UInt8(ascii: "0") }
  static var nine: UInt8 { UInt8(ascii: "9") }
  static var openBracket: UInt8 { UInt8(ascii: "[") }
  static var closeBracket: UInt8 { UInt8(ascii: "]") }
  static var openBrace: UInt8 { UInt8(ascii: "{") }
  static var closeBrace: UInt8 { UInt8(ascii: "}") }
}

/// A recursive-descent parser turned inside out: open containers live on `frames`, an explicit
/// stack, so that nesting depth costs heap rather than call stack and hostile input cannot
/// overflow the thread's stack (Swift Testing and Dispatch threads have small ones).
///
/// The contents of all open containers share two flat stacks, `elements` and `members`; a
/// container that closes moves its tail of one into an exactly-sized array. That costs one
/// allocation per container instead of one per doubling, which matters when the index of 1,000
/// small objects is parsed on every `accounts list`. For the same reason the input is an
/// `UnsafeBufferPointer`; every access is preceded by an explicit bound check.
struct JSONParser {
  static let maximumDepth = 512
  /// Up to this many members, a new key is checked against the others by a linear scan.
  private static let linearSearchLimit = 16

  /// A container whose members are still being parsed.
  private struct Frame {
    let isObject: Bool
    /// Where the container's contents start in `elements` (an array) or `members` (an object).
    let start: Int
    /// Whether `largeObjectKeys` holds this object's keys. (The set itself lives outside the
    /// frame so that frames stay plain data, copied without reference counting.)
    var hasKeySet = false
  }

  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0
  private var frames: [Frame] = []
  /// The keys of the open objects that outgrew `linearSearchLimit`, by frame index.
  private var largeObjectKeys: [Int: Set<String>] = [:]
  private var elements: [JSONValue] = []
  /// An object's member goes here with a null value when its key is parsed; the value is
  /// filled in when it is complete.
  private var members: [JSONObject.Member] = []
  /// Reused to assemble strings that contain escapes (see `parseString`).
  var scratch: [UInt8] = []

  init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  mutating func parseDocument() throws(JSONParseError) -> JSONValue {
    guard !bytes.isEmpty else { throw failure("empty input", at: 0) }
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
      throw failure("the input starts with a UTF-8 byte order mark, which JSON forbids", at: 0)
    }
    var value: JSONValue
    parsing: while true {
      // A value starts here: a scalar completes at once, a container pushes a frame.
      skipWhitespace()
      guard index < bytes.count else { throw failure(expectedValue(), at: index) }
      switch bytes[index] {
      case ASCII.openBrace:
        guard frames.count < Self.maximumDepth else { throw tooDeep() }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == ASCII.closeBrace {
          index += 1
          value = .object(JSONObject())
        } else {
          frames.append(Frame(isObject: true, start: members.count))
          try parseKey()
          continue parsing
        }
      case ASCII.openBracket:
        guard frames.count < Self.maximumDepth else { throw tooDeep() }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == ASCII.closeBracket {
          index += 1
          value = .array([])
        } else {
          frames.append(Frame(isObject: false, start: elements.count))
          continue parsing
        }
      case ASCII.quote: value = .string(try parseString())
      case UInt8(ascii: "t"):
        try parseLiteral("true")
        value = .bool(true)
      case UInt8(ascii: "f"):
        try parseLiteral("false")
        value = .bool(false)
      case UInt8(ascii: "n"):
        try parseLiteral("null")
        value = .null
      case ASCII.minus, ASCII.zero...ASCII.nine: value = .number(try parseNumber())
      default: throw failure(expectedValue(), at: index)
      }

      // `value` is complete: hand it to the enclosing container, closing as many as end here.
      while let frame = frames.last {
        if frame.isObject {
          members[members.count - 1].value = value
        } else {
          elements.append(value)
        }
        skipWhitespace()
        let separator = index < bytes.count ? bytes[index] : 0
        let close = frame.isObject ? ASCII.closeBrace : ASCII.closeBracket
        if separator == ASCII.comma {
          let comma = index
          index += 1
          skipWhitespace()
          if index < bytes.count, bytes[index] == close {
            throw failure("trailing comma before '\(Character(Unicode.Scalar(close)))'", at: comma)
          }
          if frame.isObject { try parseKey() }
          continue parsing
        }
        guard separator == close else {
          throw failure(
            frame.isObject
              ? "expected ',' or '}' after an object member"
              : "expected ',' or ']' after an array element", at: index)
        }
        index += 1
        frames.removeLast()
        if frame.isObject {
          if frame.hasKeySet { largeObjectKeys[frames.count] = nil }
          value = .object(JSONObject(uniqueMembers: members.removeTail(from: frame.start)))
        } else {
          value = .array(elements.removeTail(from: frame.start))
        }
      }
      skipWhitespace()
      guard index == bytes.count else {
        throw failure("unexpected \(found(at: index)) after the JSON value", at: index)
      }
      return value
    }
  }

  /// Parses `"key" :` for the innermost object, pushes its member and leaves `index` at the
  /// member's value.
  private mutating func parseKey() throws(JSONParseError) {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == ASCII.quote else {
      var problem = "expected a string key, found \(found(at: index))"
      if index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: "'"): problem += " (keys take double quotes)"
        case UInt8(ascii: "/"): problem += " (comments are not allowed)"
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "_"):
          problem += " (keys must be quoted)"
        default: break
        }
      }
      throw failure(problem, at: index)
    }
    let keyOffset = index
    let key = try parseString()
    let top = frames.count - 1
    let start = frames[top].start
    let isDuplicate: Bool
    if frames[top].hasKeySet {
      isDuplicate = !largeObjectKeys[top, default: []].insert(key).inserted
    } else if members.count - start < Self.linearSearchLimit {
      isDuplicate = members[start...].contains { $0.key == key }
    } else {
      // A large object: from now on a hash set, so that duplicate detection stays linear.
      var keySet = Set(members[start...].lazy.map(\.key))
      isDuplicate = !keySet.insert(key).inserted
      largeObjectKeys[top] = keySet
      frames[top].hasKeySet = true
    }
    if isDuplicate {
      throw failure("duplicate key \"\(Self.printable(key))\"", at: keyOffset)
    }
    members.append(JSONObject.Member(key: key, value: .null))
    skipWhitespace()
    guard index < bytes.count, bytes[index] == ASCII.colon else {
      throw failure("expected ':' after an object key, found \(found(at: index))", at: index)
    }
    index += 1
  }

  private mutating func parseLiteral(_ word: StaticString) throws(JSONParseError) {
    let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
    for letter in letters {
      guard index < bytes.count, bytes[index] == letter else {
        throw failure("expected '\(word)', found \(found(at: index))", at: index)
      }
      index += 1
    }
  }

  /// number = [ minus ] int [ frac ] [ exp ]  (RFC 8259, section 6)
  private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
    let start = index
    if bytes[index] == ASCII.minus { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else {
      throw failure("expected a digit after '-', found \(found(at: index))", at: index)
    }
    if bytes[index] == ASCII.zero {
      index += 1
      if index < bytes.count, isDigit(bytes[index]) {
        throw failure("a number cannot have a leading zero", at: index - 1)
      }
    } else {
      skipDigits()
    }
    if index < bytes.count, bytes[index] == ASCII.period {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw failure("expected a digit after '.', found \(found(at: index))", at: index)
      }
      skipDigits()
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      if index < bytes.count, bytes[index] == ASCII.plus || bytes[index] == ASCII.minus {
        index += 1
      }
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw failure("expected a digit in the exponent, found \(found(at: index))", at: index)
      }
      skipDigits()
    }
    return JSONNumber(validatedText: string(start..<index))
  }

  @inline(__always)
  private func isDigit(_ byte: UInt8) -> Bool {
    byte &- ASCII.zero < 10
  }

  @inline(__always)
  private mutating func skipDigits() {
    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
  }

  @inline(__always)
  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case ASCII.space, ASCII.lineFeed, ASCII.carriageReturn, ASCII.tab: index += 1
      default: return
      }
    }
  }

  /// The bytes in `range` as a string; the caller has validated them as UTF-8.
  @inline(__always)
  func string(_ range: Range<Int>) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }
}
