/// Greedy word wrap for help text.
enum TextWrap {
  /// `text` broken into lines of at most `width` characters, each prefixed by `indent` spaces.
  static func wrap(_ text: String, width: Int = 80, indent: Int = 0) -> [String] {
    let prefix = String(repeating: " ", count: indent)
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
      if !line.isEmpty, indent + line.count + 1 + word.count > width {
        lines.append(prefix + line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty { lines.append(prefix + line) }
    return lines
  }

  /// A shell command line broken at spaces into lines that end in ` \`, so it can still be
  /// pasted; continuation lines are indented two more spaces. A word is never split.
  static func commandLine(_ text: String, width: Int = 80, indent: Int = 0) -> [String] {
    let prefix = String(repeating: " ", count: indent)
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      let lineIndent = lines.isEmpty ? indent : indent + 2
      if !line.isEmpty, lineIndent + line.count + 1 + word.count + 2 > width {
        lines.append(line + " \\")
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    lines.append(line)
    return lines.enumerated().map { prefix + ($0.offset == 0 ? "" : "  ") + $0.element }
  }

  /// Two columns: `term` padded to `column`, then the wrapped `text`.
  static func definition(_ term: String, _ text: String, column: Int, width: Int = 80) -> [String] {
    var wrapped = wrap(text, width: width, indent: column)
    guard !wrapped.isEmpty else { return ["  " + term] }
    let first = wrapped[0].dropFirst(column)
    if term.count + 2 + 2 <= column {
      wrapped[0] = "  " + term + String(repeating: " ", count: column - term.count - 2) + first
    } else {
      wrapped.insert("  " + term, at: 0)
    }
    return wrapped
  }
}
