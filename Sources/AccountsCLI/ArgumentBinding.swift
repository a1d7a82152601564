import AccountsContract
import AccountsCore
import AccountsSystem

/// Binds the positional words of a command line to a command's arguments, for layouts that
/// `CommandSpec.layoutProblems` accepts:
///
/// - an optional argument is filled only when more words remain than the required arguments
///   after it need, and, when a METHOD follows it, only by a word that is not a method word;
/// - a variadic argument takes every remaining word before `--`;
/// - a `-- CMD...` argument takes the words after `--` and only those (an optional one is absent
///   when no `--` was given). For a command without one, `--` only ends the options
///   (`remove -- -odd-name`).
enum ArgumentBinding {
  /// `words` are the positionals in order; `separator` is how many of them came before the
  /// first `--`, nil when there was none. Returns each argument's words by name (upper case
  /// for a METHOD); an unfilled optional argument has no entry.
  static func bind(
    _ words: [String], separator: Int?, to path: CommandPath
  ) throws(CommandError) -> [String: [String]] {
    let trailing = path.command.trailingCommand
    let ordinary = trailing == nil ? path.command.arguments[...] : path.command.arguments.dropLast()
    var remaining = words[...]
    var afterSeparator: ArraySlice<String> = []
    if trailing != nil, let separator {
      remaining = words[..<separator]
      afterSeparator = words[separator...]
    }
    var values: [String: [String]] = [:]
    for (position, spec) in zip(ordinary.indices, ordinary) {
      let following = ordinary[(position + 1)...]
      if spec.variadic {
        if remaining.isEmpty, !spec.optional {
          throw missing(spec, path, separatorGiven: separator != nil)
        }
        if !remaining.isEmpty { values[spec.name] = Array(remaining) }
        remaining = []
      } else if spec.optional {
        guard let word = remaining.first, remaining.count > wordsNeeded(by: following) else {
          continue
        }
        if following.first?.kind == .method, HTTPMethod.normalised(word) != nil { continue }
        values[spec.name] = [word]
        remaining.removeFirst()
      } else if let word = remaining.popFirst() {
        values[spec.name] = [try value(word, for: spec, path)]
      } else {
        throw missing(spec, path, separatorGiven: separator != nil)
      }
    }
    if let extra = remaining.first {
      // A word before `exec`'s or `lease`'s -- is the command put in the wrong place.
      if trailing == nil, let secret = path.command.secretInput { throw secretOnTheCommandLine(secret, ordinary, path) }
      throw .usage(
        "unexpected argument '\(Names.printable(extra))' for `accounts \(path.name)`",
        fix: trailing == nil ? "usage: \(path.usage)" : putSeparatorFix(path))
    }
    if let trailing {
      // An optional command is absent without `--`; after a `--` one is expected.
      if trailing.optional, separator == nil { return values }
      guard !afterSeparator.isEmpty else {
        throw missing(trailing, path, separatorGiven: separator != nil)
      }
      values[trailing.name] = Array(afterSeparator)
    }
    return values
  }

  /// A word too many for a command that reads a secret: perhaps the secret, so not repeated.
  /// "`accounts otp set` takes one account; a seed is read from stdin or a prompt, never from
  /// the command line"
  private static func secretOnTheCommandLine(
    _ secret: SecretInput, _ arguments: ArraySlice<ArgumentSpec>, _ path: CommandPath
  ) -> CommandError {
    let takes =
      arguments.map(\.name) == ["USER"]
      ? "one account" : arguments.isEmpty ? "no argument" : arguments.map(\.usage).joined(separator: " ")
    return .usage(
      "`accounts \(path.name)` takes \(takes); \(secret.noun) is read from \(secret.source), "
        + "never from the command line",
      fix: "usage: \(path.usage)")
  }

  /// The least number of words `arguments` take.
  private static func wordsNeeded(by arguments: ArraySlice<ArgumentSpec>) -> Int {
    arguments.filter { !$0.optional }.count
  }

  private static func value(
    _ word: String, for spec: ArgumentSpec, _ path: CommandPath
  ) throws(CommandError) -> String {
    guard spec.kind == .method else { return word }
    guard let method = HTTPMethod.normalised(word) else {
      throw .usage(
        "'\(Names.printable(word))' is not an HTTP method (\(HTTPMethod.all.joined(separator: ", ")))",
        fix: "usage: \(path.usage)")
    }
    return method
  }

  private static func missing(
    _ spec: ArgumentSpec, _ path: CommandPath, separatorGiven: Bool
  ) -> CommandError {
    guard spec.kind == .trailingCommand else {
      return .usage("`accounts \(path.name)` needs \(spec.name)", fix: "usage: \(path.usage)")
    }
    return .usage(
      "`accounts \(path.name)` needs \(spec.name) after --",
      fix: separatorGiven ? "usage: \(path.usage)" : putSeparatorFix(path))
  }

  /// For a word before `--` that can only be the start of the command to run.
  static func putSeparatorFix(_ path: CommandPath) -> String {
    "put -- before the command (usage: \(path.usage))"
  }
}
