/// Finding text in text without the regex module (`_StringProcessing`), which what ships does
/// not import (see Package.swift): Characters compared as `==` and `hasPrefix` compare them,
/// canonically.
extension StringProtocol {
  /// The range of the first occurrence of `other`, nil when there is none (or `other` is empty).
  public func firstRange(ofText other: some StringProtocol) -> Range<Index>? {
    guard !other.isEmpty else { return nil }
    var start = startIndex
    while start < endIndex {
      if self[start...].hasPrefix(other) { return start..<index(start, offsetBy: other.count) }
      start = index(after: start)
    }
    return nil
  }

  /// The ranges of every occurrence of `other`, left to right, not overlapping.
  public func ranges(ofText other: some StringProtocol) -> [Range<Index>] {
    var found: [Range<Index>] = []
    var rest = self[...]
    while let range = rest.firstRange(ofText: other) {
      found.append(range)
      rest = rest[range.upperBound...]
    }
    return found
  }

  /// Whether `other` occurs in this text.
  public func includes(_ other: some StringProtocol) -> Bool { firstRange(ofText: other) != nil }
}
