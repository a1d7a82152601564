/// "Did you mean ...?": the candidates closest to a mistyped name.
public enum Suggestions {
  /// Up to `limit` candidates within a small edit distance of `word` (transpositions count
  /// once), closest first; candidates that start with `word` come first of all.
  public static func closest(to word: String, in candidates: [String], limit: Int = 3) -> [String] {
    let typed = Array(word.lowercased().unicodeScalars)
    let allowed = max(1, min(3, typed.count / 3))
    var scored: [(distance: Int, candidate: String)] = []
    for candidate in candidates {
      let scalars = Array(candidate.lowercased().unicodeScalars)
      if !typed.isEmpty, scalars.starts(with: typed) {
        scored.append((0, candidate))
      } else if abs(scalars.count - typed.count) <= allowed {
        let distance = editDistance(typed, scalars)
        if distance <= allowed { scored.append((distance, candidate)) }
      }
    }
    scored.sort { ($0.distance, $0.candidate) < ($1.distance, $1.candidate) }
    return scored.prefix(limit).map(\.candidate)
  }

  /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent
  /// transpositions ("lsit" is one step from "list").
  static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var beforePrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], beforePrevious[j - 2] + 1)
        }
      }
      (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count]
  }

  /// "'a'", "'a' or 'b'", "'a', 'b' or 'c'"
  public static func phrase(_ names: [String]) -> String {
    let quoted = names.map { "'\($0)'" }
    guard quoted.count > 1 else { return quoted.first ?? "" }
    return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
  }
}
