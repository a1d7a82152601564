import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsSystem
import Glibc

/// `accounts rule add DIR USER`, `accounts rule remove DIR`: the directory rules of SPEC §3.
enum RuleCommands {
  static let spec = CommandSpec(
    group: "rule",
    summary: "add or remove a directory rule",
    discussion: """
      A directory rule says which account commands use inside a directory and below it, \
      unless USER, --account or ACCOUNTS_ACCOUNT names one. The longest rule containing the \
      current directory wins; the auto-login slot comes after every rule. Rules live only in \
      your own config.json: nothing inside a directory or repository can pick an account. \
      `accounts rules` lists them.
      """,
    subcommands: [RuleAddCommand.spec, RuleRemoveCommand.spec])

  static let directory = ArgumentSpec(
    "DIR", completion: .directory,
    help: "the directory (absolute or relative to the current one; symlinks are resolved)")
}

enum RuleAddCommand {
  static let spec = CommandSpec(
    "add",
    summary: "use an account inside a directory and below it",
    discussion: """
      Stores the rule in config.json with DIR as its physical absolute path (symlinks \
      resolved now, so the rule holds whichever way you reach the directory) and USER as \
      USER@BACKEND. DIR must exist. A rule for the same directory is replaced, and the one it \
      replaced is said. If the account is removed later the rule stays, and commands run \
      inside DIR fail with a message naming the rule instead of falling back to another \
      account.
      """,
    arguments: [RuleCommands.directory, user],
    examples: [
      ("accounts rule add ~/work/corp alice@corp", "inside ~/work/corp, commands use alice@corp"),
      ("accounts rule add . bob", "the current directory uses bob"),
    ],
    handler: run)

  static let user = ArgumentSpec(
    "USER", completion: .account, help: "the saved account: USER, USER@BACKEND or a unique prefix")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let given = invocation.argument(RuleCommands.directory)!
    let directory = try RulePaths.existingDirectory(given)
    let id = try environment.resolveAccount(invocation.argument(user)!, invocation, in: try environment.index.load())
    let rule = DirectoryRule(directory: directory, account: id)
    let replaced = try environment.config.update { $0.setRule(rule) }
    let home = RulePaths.home(environment)
    if invocation.json {
      environment.output.writeJSON(.object([
        "directory": .string(directory), "account": .string(id.description),
        "replaced": replaced.map { .string($0.account.description) } ?? .null,
      ]))
    }
    let shown = RulePaths.display(directory, home: home)
    if let replaced, replaced.account != id {
      environment.output.message("rule: \(shown) uses \(id) (it used \(replaced.account))")
    } else {
      environment.output.message("rule: \(shown) uses \(id)" + (replaced == nil ? "" : " (unchanged)"))
    }
  }
}

enum RuleRemoveCommand {
  static let spec = CommandSpec(
    "remove", aliases: ["rm"],
    summary: "remove a directory rule",
    discussion: """
      Removes the rule for DIR, written as `accounts rules` shows it, or as any path that \
      leads to it. A rule for a directory that no longer exists can be removed by its path.
      """,
    arguments: [RuleCommands.directory],
    examples: [("accounts rule remove ~/work/corp", "commands there use the slot again")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let given = invocation.argument(RuleCommands.directory)!
    let home = RulePaths.home(environment)
    // The physical path when DIR still exists; else DIR as written, made absolute.
    let here = environment.currentDirectory().path
    var keys = [RulePaths.lexical(RulePaths.expandingHome(given, home: home), from: here)]
    if let physical = try? RulePaths.existingDirectory(given) { keys.insert(physical, at: 0) }
    let removed = try environment.config.update { config -> DirectoryRule? in
      for key in keys.compactMap({ $0 }) {
        if let rule = config.removeRule(directory: key) { return rule }
      }
      return nil
    }
    guard let removed else {
      let rules = try environment.config.load().rules.map { RulePaths.display($0.directory, home: home) }
      let suggestions = Suggestions.closest(to: given, in: rules)
      throw CommandError.usage(
        "no rule for '\(given)'",
        fix: suggestions.isEmpty ? "see the rules with `accounts rules`" : "did you mean \(Suggestions.phrase(suggestions))?")
    }
    if invocation.json {
      environment.output.writeJSON(.object([
        "removed": .string(removed.directory), "account": .string(removed.account.description),
      ]))
    }
    environment.output.message("removed the rule for \(RulePaths.display(removed.directory, home: home)) (\(removed.account))")
  }
}

/// `accounts rules`: every directory rule, longest directory first.
enum RulesCommand {
  static let spec = CommandSpec(
    "rules",
    summary: "list the directory rules, longest directory first",
    discussion: """
      Each rule's directory and account, in the order they are tried: the first whose \
      directory contains the current directory decides. A rule whose account is no longer \
      saved is marked "(not saved)". With --json: an array of objects with the keys \
      directory (the physical absolute path), account (USER@BACKEND) and saved.
      """,
    examples: [("accounts rules", "which directories use which account")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let rules = try environment.config.load().rules
    let book = try environment.index.load()
    if invocation.json {
      environment.output.writeJSON(.array(rules.map { rule in
        .object([
          "directory": .string(rule.directory), "account": .string(rule.account.description),
          "saved": .bool(book[rule.account] != nil),
        ])
      }))
      return
    }
    guard !rules.isEmpty else {
      environment.output.message("no directory rules yet; add one with `accounts rule add DIR USER`")
      return
    }
    let home = RulePaths.home(environment)
    var rows = [["DIRECTORY", "ACCOUNT"]]
    for rule in rules {
      rows.append([
        RulePaths.display(rule.directory, home: home),
        rule.account.description + (book[rule.account] == nil ? " (not saved)" : ""),
      ])
    }
    environment.output.write(TextTable.render(rows))
  }
}

/// Paths as rules need them: physical for storing and matching, `~/...` for people.
enum RulePaths {
  /// DIR as the physical absolute path of an existing directory, or the error that says why
  /// it cannot be a rule's directory.
  static func existingDirectory(_ given: String) throws -> String {
    guard !given.isEmpty else { throw CommandError.usage("DIR is empty", fix: "give a directory, e.g. `.`") }
    guard let resolved = realpath(given, nil) else {
      let code = errno
      if code == ENOENT || code == ENOTDIR {
        throw CommandError.usage(
          "no directory '\(given)'",
          fix: "create it first (`mkdir -p \(shellWord(given))`) or check the spelling")
      }
      throw CommandError(.failure, "cannot resolve '\(given)': \(describeErrno(code))", fix: "check the path and its permissions")
    }
    defer { free(resolved) }
    var status = stat()
    guard stat(resolved, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
      throw CommandError.usage("'\(given)' is not a directory", fix: "give the directory that contains it")
    }
    guard let path = String(validating: UnsafeBufferPointer(start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self), count: strlen(resolved)), as: UTF8.self)
    else {
      throw CommandError.usage("the path of '\(given)' is not valid UTF-8 text", fix: "rename the directory")
    }
    if let problem = DirectoryRule.directoryProblem(path) {
      throw CommandError.usage(
        "the path of '\(given)' cannot be a rule's directory: it \(problem)",
        fix: "rename the directory to a name without control or invisible characters")
    }
    return path
  }

  /// `path` made absolute against `base` and normalised without touching the file system
  /// ("." and ".." components folded, slashes collapsed); nil when it is relative and there is
  /// no base.
  static func lexical(_ path: String, from base: String?) -> String? {
    let full: String
    if path.hasPrefix("/") { full = path } else if let base { full = base + "/" + path } else { return nil }
    var parts: [Substring] = []
    for part in full.split(separator: "/") {
      if part == "." { continue }
      if part == ".." { _ = parts.popLast() } else { parts.append(part) }
    }
    return "/" + parts.joined(separator: "/")
  }

  /// `~` and `~/x` as the shell would have expanded them (a quoted `'~/x'` in a script).
  static func expandingHome(_ path: String, home: String?) -> String {
    guard let home, path == "~" || path.hasPrefix("~/") else { return path }
    return home + path.dropFirst()
  }

  /// The physical home directory, so that rules (stored physical) show as `~/...`.
  static func home(_ environment: Environment) -> String? {
    guard let home = environment.variables["HOME"], home.hasPrefix("/") else { return nil }
    guard let resolved = realpath(home, nil) else { return home }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// `~/work/corp` for a directory below the home directory, else the path.
  static func display(_ path: String, home: String?) -> String {
    guard let home, home != "/" else { return path }
    if path == home { return "~" }
    if path.hasPrefix(home + "/") { return "~" + path.dropFirst(home.count) }
    return path
  }
}
