import AccountsContract
import AccountsSystem

/// A duration on the command line (`--wait`, `--ttl`, later `--within`): `0`, or whole numbers
/// each followed by a unit, the units in falling order and each at most once: `500ms`, `30s`,
/// `10m`, `1h`, `1h30m`, `2m30s`. Nothing else (no spaces, fractions, signs or `d`), so that a
/// typo is a usage error rather than a surprising wait.
public enum DurationArgument {
  /// The units, largest first, in milliseconds.
  public static let units: [(suffix: String, milliseconds: Int64)] = [("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1)]
  /// Longer than any wait or lease a test run needs; keeps every sum far from overflow.
  public static let maximum: Int64 = 366 * 24 * 3_600_000

  /// The duration in milliseconds; nil when `text` is not one.
  public static func milliseconds(_ text: String) -> Int64? {
    if text == "0" { return 0 }
    var rest = Substring(text)
    var total: Int64 = 0
    var nextUnit = 0  // the index in `units` the next part may use, at the earliest
    guard !rest.isEmpty else { return nil }
    while !rest.isEmpty {
      let digits = rest.prefix { $0.isASCII && $0.isNumber }
      guard !digits.isEmpty, digits.count <= 9, let number = Int64(digits) else { return nil }
      rest = rest.dropFirst(digits.count)
      // "ms" before "m": the longer suffix that matches is the unit.
      let candidates = units.indices.filter { rest.hasPrefix(units[$0].suffix) }
      guard let unit = candidates.max(by: { units[$0].suffix.count < units[$1].suffix.count }), unit >= nextUnit
      else { return nil }
      rest = rest.dropFirst(units[unit].suffix.count)
      total += number * units[unit].milliseconds
      guard total <= maximum else { return nil }
      nextUnit = unit + 1
    }
    return total
  }

  /// `milliseconds(text)`, or the usage error for `option` that names the forms.
  /// `forms`: examples of what `option` accepts, for the fix.
  public static func parse(
    _ text: String, option: String, forms: String = "0, 500ms, 30s, 10m, 1h or 1h30m"
  ) throws(CommandError) -> Int64 {
    guard let value = milliseconds(text) else {
      throw CommandError.usage(
        "\(option) \(Names.printable(text)) is not a duration", fix: "write it as \(forms) (at most 366 days)")
    }
    return value
  }
}
