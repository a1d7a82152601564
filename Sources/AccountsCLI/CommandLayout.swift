/// The layouts `ArgumentBinding` can bind without guessing, checked when a command is written
/// (a test runs it over the whole table), as swift-argument-parser validates the positionals
/// of a command when it is defined.
extension CommandSpec {
  /// Why the parser could not bind this command's arguments and options unambiguously, one
  /// sentence each; empty when it can.
  var layoutProblems: [String] {
    var problems: [String] = []
    let names = arguments.map(\.name)
    for name in Set(names) where names.filter({ $0 == name }).count > 1 {
      problems.append("two arguments are named \(name): their values would be one")
    }
    for (position, argument) in arguments.enumerated() {
      problems += Self.problems(of: argument, followedBy: arguments[(position + 1)...])
    }
    let ordinary = arguments.filter { $0.kind != .trailingCommand }
    if ordinary.filter(\.variadic).count > 1 {
      problems.append(
        "more than one argument takes several words: "
          + ordinary.filter(\.variadic).map(\.usage).joined(separator: ", "))
    }
    // The one account a command uses may come from --account too; a list of accounts
    // (`lease [USER...]`, a pool to choose from) is not that account.
    if arguments.contains(where: { $0.optional && !$0.variadic && $0.completion == .account && !$0.pickedWhenAbsent }),
      !options.contains(SharedArguments.accountOption)
    {
      problems.append("[USER] without --account USER: make it with `picksAccount: true`")
    }
    let longNames = (options + GlobalOptions.all).map(\.long)
    for name in Set(longNames) where longNames.filter({ $0 == name }).count > 1 {
      problems.append("--\(name) is declared twice (or is a global option)")
    }
    return problems
  }

  private static func problems(
    of argument: ArgumentSpec, followedBy following: ArraySlice<ArgumentSpec>
  ) -> [String] {
    let usage = argument.usage
    switch argument.kind {
    case .trailingCommand:
      var problems: [String] = []
      if !following.isEmpty { problems.append("\(usage) must be the last argument") }
      if !argument.variadic { problems.append("\(usage) must take every word after --") }
      return problems
    case .method:
      return argument.optional || argument.variadic
        ? ["\(usage) must be required and take one word: a METHOD is what tells the words apart"]
        : []
    case .word:
      let beforeSeparator = following.filter { $0.kind != .trailingCommand }
      if argument.variadic {
        return beforeSeparator.isEmpty
          ? [] : ["\(usage) takes every remaining word, so nothing but -- CMD... may follow it"]
      }
      // An optional is told from what follows by counting words, or by a METHOD right after.
      guard argument.optional, following.first?.kind != .method else { return [] }
      if let varying = beforeSeparator.first(where: { $0.optional || $0.variadic }) {
        return [
          "\(usage) cannot be told apart from \(varying.usage), which does not always take "
            + "one word: put a METHOD right after \(usage), or make one of them an option"
        ]
      }
      return []
    }
  }
}
