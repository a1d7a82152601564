import AccountsContract
import AccountsCore
import AccountsSystem

/// What the value of an option or argument must be. Each kind is checked in this one place:
/// every value a command line gives is, before the command runs (`Invocation.checkValues`), so a
/// handler reads checked values (`Invocation.milliseconds`, `number`, `seconds`, `settings`)
/// and a usage error comes before anything is read, asked or written.
enum ValueKind: Sendable, Hashable {
  case text
  /// A duration (`DurationArgument`); `forms`: examples of it, for the fix.
  case duration(forms: String)
  /// A whole number in the range; `example`: a good one, for the fix (`--jobs 8`).
  case number(ClosedRange<Int>, example: String)
  /// Seconds, more than 0 and at most an hour (`--timeout`).
  case seconds
  /// A tag (`Tags.check`).
  case tag
  /// KEY=VALUE: a valid setting name, no key twice (`BackendSettingsRequest.parseSettings`).
  case setting

  static let durationForms = "0, 500ms, 30s, 10m, 1h or 1h30m"

  /// Refuses `values`, given for `name` (`--wait`, or "" for positional words), unless each is of
  /// this kind.
  func check(_ values: [String], name: String) throws(CommandError) {
    switch self {
    case .text: return
    case .setting: _ = try BackendSettingsRequest.parseSettings(values, option: name.isEmpty ? "" : name + " ")
    case .tag: for value in values { try Tags.check(value) }
    case .duration(let forms):
      for value in values { _ = try DurationArgument.parse(value, option: name, forms: forms) }
    case .number(let range, let example):
      for value in values where Int(value).map(range.contains) != true {
        throw .usage(
          "\(name) '\(Names.printable(value))' is not a number from \(range.lowerBound) to \(range.upperBound)",
          fix: "e.g. \(example)")
      }
    case .seconds:
      for value in values where Self.seconds(value) == nil {
        throw .usage(
          "\(name) '\(Names.printable(value))' is not a number of seconds",
          fix: "give a number between 0 and 3600, e.g. \(name) 10")
      }
    }
  }

  /// `text` as seconds when it is more than 0 and at most an hour.
  static func seconds(_ text: String) -> Double? {
    guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { return nil }
    return seconds
  }
}

extension Invocation {
  /// Checks every value given against the kind of its option or argument (`ValueKind`).
  func checkValues() throws(CommandError) {
    for option in path.command.options + GlobalOptions.all where option.kind != .text {
      let given = values(option)
      if !given.isEmpty { try option.kind.check(given, name: "--" + option.long) }
    }
    for argument in path.command.arguments where argument.valueKind != .text {
      let given = arguments(argument)
      if !given.isEmpty { try argument.valueKind.check(given, name: "") }
    }
  }

  /// A duration option's value in milliseconds (checked: `ValueKind.duration`); nil when not given.
  func milliseconds(_ option: OptionSpec) -> Int64? { value(option).flatMap(DurationArgument.milliseconds) }

  /// A number option's value (checked: `ValueKind.number`); nil when not given.
  func number(_ option: OptionSpec) -> Int? { value(option).flatMap { Int($0) } }

  /// A seconds option's value (checked: `ValueKind.seconds`); nil when not given.
  func seconds(_ option: OptionSpec) -> Double? { value(option).flatMap(ValueKind.seconds) }

  /// KEY=VALUE values (checked: `ValueKind.setting`), by key.
  func settings(_ option: OptionSpec) -> [String: String] {
    (try? BackendSettingsRequest.parseSettings(values(option))) ?? [:]
  }

  /// KEY=VALUE words (checked: `ValueKind.setting`), by key.
  func settings(_ argument: ArgumentSpec) -> [String: String] {
    (try? BackendSettingsRequest.parseSettings(arguments(argument), option: "")) ?? [:]
  }
}
