import Foundation

/// The pipelines of a shell script, read closely enough to lint them: quotes, `$(…)` and
/// backquotes (their pipelines are pipelines too), `${…}`, arithmetic, here-documents (skipped,
/// but for the substitutions of an unquoted one), comments, redirections and line continuations.
/// It is no shell: a `case` pattern's `)` inside a `$(…)` ends the substitution early. It is
/// enough for scripts that shellcheck already passes.
struct ShellPipelines {
  struct Stage: Equatable {
    /// The command's words, unquoted; a substitution stands as `$(…)`.
    var words: [String]
    var line: Int
    /// Where the stage starts in the text (a loop's body is read from there).
    var offset: Int
  }

  /// Every pipeline, one stage or many, substitutions' pipelines included.
  private(set) var pipelines: [[Stage]] = []

  private let text: [Character]
  private var index = 0
  private var line: Int
  private var hereDocuments: [(delimiter: String, stripsTabs: Bool, expands: Bool)] = []

  init(_ script: String, firstLine: Int = 1) {
    text = Array(script)
    line = firstLine
    parseList(closedBy: nil)
  }

  private init(text: [Character], index: Int, line: Int) {
    self.text = text
    self.index = index
    self.line = line
  }

  private func peek(_ ahead: Int = 0) -> Character? {
    index + ahead < text.count ? text[index + ahead] : nil
  }

  /// Reads commands until `closer` (`)` of a `$(`, or a backquote) or the end of the text.
  private mutating func parseList(closedBy closer: Character?) {
    var stages: [Stage] = []
    var words: [String] = []
    var word = ""
    var inWord = false
    var stageStart = (line: line, offset: index)
    var afterPipe = false
    // Subshells `( … )` open inside this list: each keeps the pipeline it interrupted.
    var outer: [[Stage]] = []

    func endWord() {
      if inWord { words.append(word) }
      word = ""
      inWord = false
    }
    func endStage() {
      endWord()
      if !words.isEmpty { stages.append(Stage(words: words, line: stageStart.line, offset: stageStart.offset)) }
      words = []
      stageStart = (line, index)
    }
    func endPipeline() {
      endStage()
      if !stages.isEmpty { pipelines.append(stages) }
      stages = []
      afterPipe = false
    }
    func startWord() {
      if !inWord && words.isEmpty { stageStart = (line, index) }
      inWord = true
    }

    while let character = peek() {
      if closer == "`" && character == "`" {
        index += 1
        endPipeline()
        return
      }
      switch character {
      case "\\":
        if peek(1) == "\n" {
          index += 2
          line += 1
        } else {
          startWord()
          if let next = peek(1) { word.append(next) }
          index += 2
        }
      case "'":
        startWord()
        index += 1
        while let next = peek(), next != "'" {
          if next == "\n" { line += 1 }
          word.append(next)
          index += 1
        }
        index += 1
      case "\"":
        startWord()
        word += readDoubleQuoted()
      case "$":
        startWord()
        word += readDollar()
      case "`":
        startWord()
        index += 1
        parseList(closedBy: "`")
        word += "$(…)"
      case "#" where !inWord:
        while let next = peek(), next != "\n" { index += 1 }
      case "\n":
        index += 1
        line += 1
        readHereDocuments()
        // A line that ends in `|` goes on with the next.
        if !(afterPipe && words.isEmpty && !inWord) { endPipeline() }
      case " ", "\t":
        endWord()
        index += 1
      case ";":
        endPipeline()
        index += 1
      case "&":
        if peek(1) == ">" {
          endWord()
          startWord()
          word = "&>"
          index += 2
          skipBlanks()
        } else {
          endPipeline()
          index += peek(1) == "&" ? 2 : 1
        }
      case "|":
        if peek(1) == "|" {
          endPipeline()
          index += 2
        } else {
          endStage()
          afterPipe = true
          index += peek(1) == "&" ? 2 : 1
          stageStart = (line, index)
        }
      case "(":
        if peek(1) == ")" {  // a function's name()
          startWord()
          word += "()"
          index += 2
        } else if peek(1) == "(" {  // (( arithmetic ))
          startWord()
          word += "((…))"
          skipBalanced()
        } else if inWord && word.hasSuffix("=") {  // an array's (…)
          index += 1
          parseList(closedBy: ")")
          word += "(…)"
        } else {
          endStage()
          outer.append(stages)
          stages = []
          index += 1
        }
      case ")":
        index += 1
        if let interrupted = outer.popLast() {
          endPipeline()
          // The subshell is a stage of the pipeline around it.
          stages = interrupted + [Stage(words: ["(…)"], line: line, offset: index)]
          afterPipe = false
        } else if closer == ")" {
          endPipeline()
          return
        } else {
          endPipeline()  // a case pattern's
        }
      case "<" where peek(1) == "(", ">" where peek(1) == "(":  // process substitution
        startWord()
        index += 2
        parseList(closedBy: ")")
        word += "\(character)(…)"
      case "<", ">":
        // The redirection is one word with its target: `2>&1`, `>/dev/null`, `<<<"$x"`.
        let descriptor = inWord && !word.isEmpty && word.allSatisfy(\.isNumber) ? word : ""
        if !descriptor.isEmpty { word = "" } else { endWord() }
        var operation = descriptor
        while let next = peek(), "<>&|-".contains(next), operation.count < 4 {
          operation.append(next)
          index += 1
        }
        if operation.hasPrefix("<<") && !operation.hasPrefix("<<<") {
          skipBlanks()
          readHereDocumentDelimiter(stripsTabs: operation.hasSuffix("-"))
          words.append(operation + "…")
        } else {
          startWord()
          word = operation
          skipBlanks()
        }
      default:
        startWord()
        word.append(character)
        index += 1
      }
    }
    endPipeline()
  }

  private mutating func skipBlanks() {
    while let next = peek(), next == " " || next == "\t" { index += 1 }
  }

  /// Skips from an opening parenthesis past its match.
  private mutating func skipBalanced() {
    var depth = 0
    repeat {
      switch peek() {
      case "(": depth += 1
      case ")": depth -= 1
      case "\n": line += 1
      case nil: return
      default: break
      }
      index += 1
    } while depth > 0
  }

  private mutating func readDoubleQuoted() -> String {
    var content = ""
    index += 1
    while let character = peek(), character != "\"" {
      switch character {
      case "\\":
        if let next = peek(1) {
          if next == "\n" {
            line += 1
          } else if "$`\"\\".contains(next) {
            content.append(next)
          } else {
            content += "\\\(next)"
          }
        }
        index += 2
      case "$":
        content += readDollar()
      case "`":
        index += 1
        parseList(closedBy: "`")
        content += "$(…)"
      default:
        if character == "\n" { line += 1 }
        content.append(character)
        index += 1
      }
    }
    index += 1
    return content
  }

  /// `$(…)` (its commands parsed), `$((…))`, `${…}`, `$'…'`, or a plain `$`.
  private mutating func readDollar() -> String {
    switch peek(1) {
    case "(" where peek(2) == "(":
      index += 1
      skipBalanced()
      return "$((…))"
    case "(":
      index += 2
      parseList(closedBy: ")")
      return "$(…)"
    case "{":
      var content = "${"
      index += 2
      var depth = 1
      while let character = peek(), depth > 0 {
        if character == "{" { depth += 1 }
        if character == "}" { depth -= 1 }
        if character == "\\", let next = peek(1) {
          content.append(next)
          index += 2
          continue
        }
        content.append(character)
        index += 1
      }
      return content
    case "'":
      var content = ""
      index += 2
      while let character = peek(), character != "'" {
        if character == "\\", let next = peek(1) {
          content += "\\\(next)"
          index += 2
          continue
        }
        content.append(character)
        index += 1
      }
      index += 1
      return content
    default:
      index += 1
      return "$"
    }
  }

  private mutating func readHereDocumentDelimiter(stripsTabs: Bool) {
    var delimiter = ""
    var quoted = false
    while let character = peek(), !" \t\n;&|<>()".contains(character) {
      if character == "'" || character == "\"" || character == "\\" {
        quoted = true
      } else {
        delimiter.append(character)
      }
      index += 1
    }
    hereDocuments.append((delimiter, stripsTabs, !quoted))
  }

  /// The bodies of the here-documents opened on the line just ended: skipped, but the pipelines
  /// of an unquoted one's substitutions are read.
  private mutating func readHereDocuments() {
    let pending = hereDocuments
    hereDocuments = []
    for document in pending {
      while index < text.count {
        var end = index
        while end < text.count && text[end] != "\n" { end += 1 }
        var body = String(text[index..<end])
        if document.stripsTabs { body = String(body.drop { $0 == "\t" }) }
        if body == document.delimiter {
          index = min(end + 1, text.count)
          line += 1
          break
        }
        if document.expands {
          var position = index
          while position < end {
            if text[position] == "\\" {
              position += 2
            } else if text[position] == "$", position + 1 < end, text[position + 1] == "(",
              position + 2 >= end || text[position + 2] != "("
            {
              var substitution = ShellPipelines(text: text, index: position + 2, line: line)
              substitution.parseList(closedBy: ")")
              pipelines += substitution.pipelines
              position = substitution.index
            } else {
              position += 1
            }
          }
        }
        index = min(end + 1, text.count)
        line += 1
      }
    }
  }
}

/// A reader that may stop before its writer has finished, in a script run under `set -o
/// pipefail`: the writer then dies of SIGPIPE, and its 141 becomes the pipeline's status whenever
/// the machine is slow enough for the writer to still be writing. Read the whole output instead
/// (capture it first, or let the reader read on), or drop pipefail where stopping is the point.
struct EarlyReader: Equatable, CustomStringConvertible {
  var line: Int
  var stage: String

  var description: String { "line \(line): … | \(stage)" }

  /// Every such reader in `script`, the commands that an `eval` or a function that evals its
  /// arguments (the demo's `step`) is given included.
  static func find(in script: String, firstLine: Int = 1) -> [EarlyReader] {
    let text = Array(script)
    let evaluators = functionsThatEval(script).union(["eval"])
    var found: [EarlyReader] = []
    for pipeline in ShellPipelines(script, firstLine: firstLine).pipelines {
      for stage in pipeline.dropFirst() where stopsEarly(stage, in: text) {
        found.append(EarlyReader(line: stage.line, stage: stage.words.joined(separator: " ")))
      }
      for stage in pipeline {
        let words = commandWords(stage.words)
        guard let command = words.first, evaluators.contains(command) else { continue }
        found += find(in: words.dropFirst().joined(separator: " "), firstLine: stage.line)
      }
    }
    return found
  }

  /// The names of the functions whose bodies run `eval`.
  static func functionsThatEval(_ script: String) -> Set<String> {
    var names: Set<String> = []
    var current: String?
    for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.drop { $0 == " " || $0 == "\t" }
      if let match = trimmed.firstMatch(of: /^(?:function\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*\(\)\s*\{(.*)$/) {
        current = String(match.1)
        if match.2.contains(/\beval\b/) { names.insert(String(match.1)) }
        if match.2.contains(/\}\s*$/) { current = nil }
      } else if let name = current {
        if trimmed.hasPrefix("}") {
          current = nil
        } else if trimmed.contains(/(^|[\s;])eval\b/) {
          names.insert(name)
        }
      }
    }
    return names
  }

  /// A stage's words from its command on: keywords, `!`, assignments and `env`'s own words go.
  static func commandWords(_ words: [String]) -> ArraySlice<String> {
    var rest = words[...]
    let keywords: Set = ["!", "{", "if", "then", "elif", "else", "do", "time", "command", "exec"]
    while let first = rest.first,
      keywords.contains(first) || first.contains(/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/)
    {
      rest = rest.dropFirst()
    }
    if rest.first == "env" {
      rest = rest.dropFirst()
      while let first = rest.first, first.hasPrefix("-") || first.contains("=") { rest = rest.dropFirst() }
    }
    return rest
  }

  static func stopsEarly(_ stage: ShellPipelines.Stage, in text: [Character]) -> Bool {
    if stage.words.first == "while" || stage.words.first == "until" {
      return loopLeavesEarly(from: stage.offset, in: text)
    }
    let words = commandWords(stage.words)
    guard let first = words.first else { return false }
    let arguments = Array(words.dropFirst())
    switch first.split(separator: "/").last.map(String.init) ?? first {
    case "head", "read", "true", "false", ":": return true
    case "grep", "egrep", "fgrep", "zgrep": return grepStopsEarly(arguments)
    case "awk", "gawk", "mawk", "nawk": return awkStopsEarly(arguments)
    case "sed": return sedStopsEarly(arguments)
    default: return false
    }
  }

  /// grep stops at its first match when it only answers whether one exists (-q, -l, -L), at -m's
  /// count, and, as GNU grep does, when its output goes to /dev/null.
  static func grepStopsEarly(_ arguments: [String]) -> Bool {
    let stopping: Set = ["--quiet", "--silent", "--files-with-matches", "--files-without-match"]
    var skipNext = false
    for argument in arguments {
      if skipNext {
        skipNext = false
        continue
      }
      if argument.contains(/^(\d|&)?>>?\/dev\/null$/) { return true }
      if argument == "--" { break }
      if stopping.contains(argument) || argument.hasPrefix("--max-count") { return true }
      guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 1 else { continue }
      for letter in argument.dropFirst() {
        if "qlLm".contains(letter) { return true }
        if "efABCdD".contains(letter) {
          skipNext = argument.last == letter
          break
        }
      }
    }
    return false
  }

  /// An awk program that exits (or skips the rest of its input) before its END block.
  static func awkStopsEarly(_ arguments: [String]) -> Bool {
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      if argument == "-f" || argument.hasPrefix("-f") && argument.count > 2 { return false }  // unknown
      if argument == "-v" || argument == "-F" {
        index += 2
        continue
      }
      if argument.hasPrefix("-") && argument != "-" && argument != "--" {
        index += 1
        continue
      }
      if argument == "--" { index += 1 }
      guard index < arguments.count else { return false }
      let program = arguments[index].replacing(/END\s*\{[^}]*\}\s*$/, with: "")
      return program.contains(/\b(exit|nextfile)\b/)
    }
    return false
  }

  /// A sed script with a q or Q command.
  static func sedStopsEarly(_ arguments: [String]) -> Bool {
    var scripts: [String] = []
    var index = 0
    var named = false
    while index < arguments.count {
      let argument = arguments[index]
      if argument == "-e" || argument == "--expression" {
        if index + 1 < arguments.count { scripts.append(arguments[index + 1]) }
        named = true
        index += 2
        continue
      }
      if argument.hasPrefix("--expression=") {
        scripts.append(String(argument.dropFirst("--expression=".count)))
        named = true
      } else if argument == "-f" || argument.hasPrefix("--file") {
        return false  // unknown
      } else if !argument.hasPrefix("-") && !named && scripts.isEmpty {
        scripts.append(argument)
      }
      index += 1
    }
    let quit = /(^|[;{}\n])\s*([0-9$,~+!\s]*|\/[^\/]*\/I?\s*!?)\s*[qQ]\s*[0-9]*\s*($|[;}\n])/
    return scripts.contains { $0.contains(quit) }
  }

  /// Whether a `while`/`until` loop that reads a pipeline can leave before its input ends: a
  /// break, exit or return anywhere between its `do` and its `done`.
  static func loopLeavesEarly(from offset: Int, in text: [Character]) -> Bool {
    var depth = 0
    var index = offset
    var word = ""
    func isBoundary(_ character: Character) -> Bool { " \t\n;&|()".contains(character) }
    while index <= text.count {
      let character: Character = index < text.count ? text[index] : "\n"
      if character == "'" || character == "\"" {
        index += 1
        while index < text.count && text[index] != character {
          index += text[index] == "\\" && character == "\"" ? 2 : 1
        }
      } else if isBoundary(character) {
        switch word {
        case "do": depth += 1
        case "done":
          depth -= 1
          if depth == 0 { return false }
        case "break", "exit", "return": if depth > 0 { return true }
        default: break
        }
        word = ""
      } else {
        word.append(character)
      }
      index += 1
    }
    return false
  }
}
