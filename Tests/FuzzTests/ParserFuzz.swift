import AccountsContract
import AccountsCore

@testable import AccountsCLI

/// The argument parser over every command of the table: random command lines made of the
/// table's own words (command names, aliases, options, `--name=value` forms, `--`) mixed with
/// hostile and very long words. Each parses to an invocation of a command of the table, to
/// help or to the version, or is a usage error (exit status 2); nothing traps or hangs.
enum ParserFuzz {
  static let parser = Parser(commands: CommandTable.all, defaultCommand: "list")
  static let paths = Set(CommandTable.paths.map(\.name))

  /// Every word the table spells: names, aliases, options in each form.
  static let vocabulary: [String] = {
    var words: [String] = []
    func add(_ command: CommandSpec) {
      words += [command.name] + command.aliases
      for option in command.options + GlobalOptions.all {
        words.append("--" + option.long)
        if let short = option.short { words += ["-\(short)", "-\(short)2"] }
        if option.takesValue { words += ["--\(option.long)=", "--\(option.long)=1"] }
      }
      command.subcommands.forEach(add)
    }
    CommandTable.all.forEach(add)
    return words
  }()

  /// Values the options and arguments take, good and bad.
  static let values = [
    "alice", "bob@corp", "corp", "plain", "qa", "GET", "post", "/v1/me", "0", "1", "2", "64", "65", "-3", "10m",
    "1h30m", "500ms", "1d", "bash", "zsh", "fish", "switch", "a=1", "base_url=http://127.0.0.1:1", "=", "/tmp",
    "get", "store", "erase",
  ]

  static func oneCase(_ fuzz: inout Case) {
    var words = fuzz.oneIn(2) ? commandLine(&fuzz) : []
    for _ in 0..<(words.isEmpty ? fuzz.below(10) : fuzz.oneIn(3) ? 1 : 0) {
      switch fuzz.below(10) {
      case 0...3: words.append(fuzz.pick(vocabulary))
      case 4, 5: words.append(fuzz.pick(values))
      case 6: words.append("--")
      case 7: words.append("--" + fuzz.pick(vocabulary).drop { $0 == "-" } + "=" + fuzz.word())
      default: words.append(fuzz.word())
      }
    }
    gitCredentialRequest(&fuzz)
    let shown = Case.show(words)
    do {
      switch try parser.parse(words) {
      case .run(let invocation):
        fuzz.tally("run")
        let path = invocation.path
        fuzz.check(paths.contains(path.name), "parsed to `\(path.name)`, no command of the table: \(shown)")
        let options = Set((path.command.options + GlobalOptions.all).map(\.long))
        fuzz.check(
          invocation.optionValues.keys.allSatisfy(options.contains),
          "an option `\(path.name)` does not have: \(shown)")
        let arguments = Set(path.command.arguments.map(\.name))
        fuzz.check(
          invocation.argumentValues.keys.allSatisfy(arguments.contains),
          "an argument `\(path.name)` does not have: \(shown)")
        checkValues(invocation, &fuzz, shown)
      case .help(let path):
        if fuzz.oneIn(8) {
          fuzz.check(!HelpRenderer.help(for: path, in: CommandTable.all).isEmpty, "empty help: \(shown)")
        }
      case .version:
        break
      }
    } catch {
      fuzz.tally("usage error")
      fuzz.check(error.status == .usage, "status \(error.status.rawValue), not 2: \(shown)")
      fuzz.check(!error.message.isEmpty, "a usage error without a message: \(shown)")
      // Words are quoted as `Names.printable` quotes them, at most 80 characters: a word of
      // 100 KiB makes no line of 100 KiB.
      let length = error.message.count + (error.fix?.count ?? 0)
      let start = error.message.prefix(200).debugDescription
      fuzz.check(length <= 1000, "a usage error of \(length) characters: \(start)… for \(shown)")
    }
  }

  /// A command line much as a person would write it: a command of the table, a value for each
  /// of its arguments, some of its options with values, in any order.
  static func commandLine(_ fuzz: inout Case) -> [String] {
    let path = fuzz.pick(CommandTable.paths)
    var words = path.groups.map(\.name) + [fuzz.pick([path.command.name] + path.command.aliases)]
    var trailing: [String] = []
    for argument in path.command.arguments where !argument.optional || fuzz.oneIn(2) {
      if argument.kind == .trailingCommand {
        trailing = ["--", "sh", "-c", "true"]
      } else {
        words += (0..<(argument.variadic ? 1 + fuzz.below(3) : 1)).map { _ in fuzz.pick(values) }
      }
    }
    for option in path.command.options + GlobalOptions.all where fuzz.oneIn(4) {
      let value = option.takesValue ? fuzz.pick(values) : nil
      let spelled: [String] =
        switch (value, option.short, fuzz.below(3)) {
        case (let value?, _, 0): ["--\(option.long)=\(value)"]
        case (let value?, let short?, 1): ["-\(short)\(value)"]
        case (let value?, _, _): ["--" + option.long, value]
        case (nil, let short?, 0): ["-\(short)"]
        case (nil, _, _): ["--" + option.long]
        }
      words.insert(contentsOf: spelled, at: path.groups.count + 1 + fuzz.below(words.count - path.groups.count))
    }
    return words + trailing
  }

  /// The option values commands read themselves: a value or a usage error, never a trap.
  static func checkValues(_ invocation: Invocation, _ fuzz: inout Case, _ shown: String) {
    do {
      try invocation.checkValues()
      for option in invocation.path.command.options where option.long == "jobs" {
        if let count = invocation.number(option) { fuzz.check((1...64).contains(count), "--jobs gave \(count): \(shown)") }
      }
    } catch {
      fuzz.check(error.status == .usage, "a value: status \(error.status.rawValue): \(shown)")
    }
    for values in invocation.optionValues.values {
      for value in values {
        if let milliseconds = DurationArgument.milliseconds(value) {
          fuzz.check((0...DurationArgument.maximum).contains(milliseconds), "duration \(milliseconds): \(shown)")
        }
      }
    }
  }

  /// What git writes to a credential helper: a request or a usage error naming lines by
  /// number, never a password.
  static func gitCredentialRequest(_ fuzz: inout Case) {
    let request = "protocol=https\nhost=example.com:8443\nusername=alice\npassword=☃secret\nwwwauth[]=Basic\n\n"
    let bytes =
      fuzz.oneIn(4)
      ? fuzz.bytes(upTo: 64) : fuzz.mutated(Array(request.utf8), pieces: ["\n", "\r", "\u{0}", "=", "password=", "☃"])
    do {
      _ = try GitCredentialRequest.parse(bytes)
    } catch {
      fuzz.check(error.status == .usage, "git-credential: status \(error.status.rawValue): \(Case.show(bytes))")
      let text = error.message + (error.fix ?? "")
      fuzz.check(!text.contains("☃"), "git-credential quotes a password: \(error.message)")
    }
  }
}
