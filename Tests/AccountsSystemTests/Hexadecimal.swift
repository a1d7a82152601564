/// The bytes of a hexadecimal string (spaces ignored), for the published test vectors; traps on
/// a bad digit.
func hexadecimal(_ text: String) -> [UInt8] {
  let digits = Array(text.utf8).filter { $0 != UInt8(ascii: " ") }.map { digit -> UInt8 in
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
    default: preconditionFailure("not a hexadecimal digit")
    }
  }
  precondition(digits.count % 2 == 0, "an odd number of hexadecimal digits")
  return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}
