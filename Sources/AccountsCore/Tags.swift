import AccountsContract
import AccountsSystem

/// Tags label saved accounts for test runs (`accounts tag qa1 qa smoke`, `list --tag qa`).
///
/// A tag is one word of ASCII letters, digits, `-`, `_` and `.`, not starting with `-`, at most
/// 64 bytes. ASCII only: a tag is typed on command lines, matched byte for byte and offered by
/// shell completion, where letters of other scripts (and their look-alikes) would make two
/// different tags look the same. A leading `-` would be read as an option. Tags compare byte
/// for byte: `QA` and `qa` are two tags.
public enum Tags {
  /// What a tag may hold, for messages and the manual.
  public static let rule = "ASCII letters, digits, '-', '_' and '.', not starting with '-', at most 64"

  public static func isValid(_ tag: String) -> Bool {
    var count = 0
    for byte in tag.utf8 {
      let letterOrDigit = (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
      guard letterOrDigit || byte == 0x2E || byte == 0x5F || (byte == 0x2D && count > 0) else { return false }
      count += 1
      if count > 64 { return false }
    }
    return count > 0
  }

  /// Throws the usage error for a tag a person typed, naming it and the rule.
  public static func check(_ tag: String) throws(CommandError) {
    guard !isValid(tag) else { return }
    let fix = "a tag is one word of \(rule)"
    if tag.isEmpty { throw .usage("the tag is empty", fix: fix) }
    throw .usage("'\(Names.printable(tag))' is not a valid tag", fix: fix)
  }

  /// `tags` sorted bytewise, each once: the form the index keeps them in.
  public static func normalised(_ tags: [String]) -> [String] {
    // What the index holds is in that form already: `list` reads thousands of accounts.
    if zip(tags, tags.dropFirst()).allSatisfy({ $0.utf8.lexicographicallyPrecedes($1.utf8) }) { return tags }
    var sorted = tags.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    var kept = 0
    for tag in sorted where kept == 0 || sorted[kept - 1] != tag {
      sorted[kept] = tag
      kept += 1
    }
    sorted.removeLast(sorted.count - kept)
    return sorted
  }
}

extension Account {
  /// Adds `tags` (already checked); those it has stay. Returns whether anything changed.
  @discardableResult
  public mutating func tag(_ tags: [String]) -> Bool {
    let new = Tags.normalised(self.tags + tags)
    defer { self.tags = new }
    return new != self.tags
  }

  /// Removes `tags`; one it does not have is no error.
  @discardableResult
  public mutating func untag(_ tags: [String]) -> Bool {
    let removed = Set(tags)  // one lookup per kept tag, not a scan of `tags` for each
    let kept = self.tags.filter { !removed.contains($0) }
    defer { self.tags = kept }
    return kept != self.tags
  }

  /// Whether the account has every tag of `tags`.
  public func hasTags(_ tags: [String]) -> Bool {
    tags.allSatisfy(self.tags.contains)
  }
}
