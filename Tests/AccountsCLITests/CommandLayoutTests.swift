import AccountsCore
import Testing

@testable import AccountsCLI

@Suite struct CommandLayoutTests {
  func layout(_ arguments: [ArgumentSpec], options: [OptionSpec] = []) -> [String] {
    CommandSpec(
      "shape", summary: "a shape", arguments: arguments, options: options, handler: Shapes.noop
    )
    .layoutProblems
  }

  let word = ArgumentSpec("A", help: "a")
  let optional = ArgumentSpec("B", optional: true, help: "b")
  let otherOptional = ArgumentSpec("C", optional: true, help: "c")
  let variadic = ArgumentSpec("D", variadic: true, help: "d")
  let optionalVariadic = ArgumentSpec("E", optional: true, variadic: true, help: "e")
  let method = ArgumentSpec.method(help: "m")
  let command = ArgumentSpec.trailingCommand(help: "c")

  @Test func everyCommandOfTheTableCanBeBound() {
    for path in CommandTable.paths {
      #expect(path.command.layoutProblems == [], "accounts \(path.name)")
    }
    for group in CommandTable.all where group.isGroup {
      #expect(group.layoutProblems == [], "accounts \(group.name)")
    }
  }

  @Test func theShapesOfSPECCanBeBound() {
    for shape in Shapes.all {
      #expect(shape.layoutProblems == [], "accounts \(shape.name)")
    }
    #expect(layout([optional, method, otherOptional, word]) == [], "[B] METHOD [C] A")
    #expect(layout([word, optional]) == [])
    #expect(layout([optional, word, word.renamed("F")]) == [], "[B] A F: counted")
    #expect(layout([optionalVariadic, command]) == [])
    #expect(layout([SwitchCommand.target]) == [], "[USER] picked on the terminal needs no --account")
  }

  @Test func layoutsThatCannotBeBoundAreRefused() {
    let refused: [(String, [ArgumentSpec], String)] = [
      ("two optionals in a row", [optional, otherOptional], "[B] cannot be told apart from [C]"),
      (
        "optionals apart, no METHOD", [optional, word, otherOptional],
        "[B] cannot be told apart from [C]"
      ),
      (
        "two optionals before a METHOD", [optional, otherOptional, method],
        "[B] cannot be told apart"
      ),
      (
        "an optional before a variadic", [optional, variadic], "[B] cannot be told apart from D..."
      ),
      (
        "an optional before an optional variadic", [optional, optionalVariadic],
        "cannot be told apart from [E...]"
      ),
      ("a variadic not last", [variadic, word], "D... takes every remaining word"),
      ("an optional after a variadic", [variadic, optional], "D... takes every remaining word"),
      (
        "two variadics", [variadic, optionalVariadic], "more than one argument takes several words"
      ),
      ("CMD not last", [command, word], "-- CMD... must be the last argument"),
      ("two CMDs", [command, command.renamed("CMD2")], "-- CMD... must be the last argument"),
      (
        "an optional CMD not last",
        [ArgumentSpec.trailingCommand(optional: true, help: "c"), word], "-- CMD...] must be the last argument"
      ),
      (
        "a one-word CMD", [ArgumentSpec("CMD", kind: .trailingCommand, help: "c")],
        "must take every word after --"
      ),
      (
        "an optional METHOD",
        [ArgumentSpec("METHOD", kind: .method, optional: true, help: "m"), word],
        "must be required and take one word"
      ),
      (
        "a variadic METHOD", [ArgumentSpec("METHOD", kind: .method, variadic: true, help: "m")],
        "must be required and take one word"
      ),
      ("one name twice", [word, word], "two arguments are named A"),
      ("[USER] without --account", [SharedArguments.optionalAccount], "without --account USER"),
    ]
    for (what, arguments, problem) in refused {
      let problems = layout(arguments)
      #expect(problems.contains { $0.contains(problem) }, "\(what): \(problems)")
    }
  }

  @Test func optionsThatShadowOthersAreRefused() {
    let force = OptionSpec("force", help: "f")
    #expect(
      layout([], options: [force, force]).contains { $0.contains("--force is declared twice") })
    let backend = OptionSpec("backend", value: "B", help: "b")
    #expect(layout([], options: [backend]).contains { $0.contains("--backend is declared twice") })
    #expect(layout([], options: [force]) == [])
  }
}

extension ArgumentSpec {
  /// The same argument under another name.
  func renamed(_ name: String) -> ArgumentSpec {
    ArgumentSpec(
      name, kind: kind, completion: completion, optional: optional, variadic: variadic, help: help)
  }
}
