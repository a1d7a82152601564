import AccountsCore
import AccountsJSON

/// `accounts tag USER TAG...` and `accounts untag USER TAG...`: labels in the index for test
/// runs (`list --tag qa`). Both are idempotent, touch no secret and no network, and change the
/// index under its writers' lock like every other change of it.
enum TagCommand {
  static let spec = CommandSpec(
    "tag",
    summary: "add tags to an account",
    discussion: """
      Adds each TAG to the account; a tag it has already stays once. A tag is one word of \
      \(Tags.rule); tags compare byte for byte (QA and qa are two tags). Nothing is written \
      when any TAG is not a valid tag. Tags live in the index: `accounts list --tag TAG` \
      shows the accounts that have it. Prints the account's tags on stderr; with --json \
      {"account": ..., "tags": [...]} on stdout.
      """,
    arguments: [SharedArguments.account, tags],
    examples: [("accounts tag qa1 qa smoke", "tag qa1 with qa and smoke")],
    handler: { try TagChange.run($0, $1, remove: false) })

  static let tags = ArgumentSpec(
    "TAG", completion: .tag, variadic: true, valueKind: .tag, help: "a tag: one word of \(Tags.rule)")

}

enum UntagCommand {
  static let spec = CommandSpec(
    "untag",
    summary: "remove tags from an account",
    discussion: """
      Removes each TAG from the account. A tag it does not have is no error, so untag can be \
      run again safely. Prints the account's tags on stderr; with --json {"account": ..., \
      "tags": [...]} on stdout.
      """,
    arguments: [SharedArguments.account, tags],
    examples: [("accounts untag qa1 smoke", "take the smoke tag off qa1")],
    handler: { try TagChange.run($0, $1, remove: true) })

  static let tags = ArgumentSpec(
    "TAG", completion: .accountTag, variadic: true, valueKind: .tag, help: "a tag the account has")

}

/// What `tag` and `untag` share.
private enum TagChange {
  static func run(_ invocation: Invocation, _ environment: Environment, remove: Bool) throws {
    let tags = invocation.arguments(remove ? UntagCommand.tags : TagCommand.tags)
    let query = invocation.argument(SharedArguments.account)!
    let id = try environment.resolveAccount(query, invocation, in: try environment.index.load())
    let now: [String]? = try environment.index.update { book in
      var result: [String]?
      book.update(id) { account in
        if remove { account.untag(tags) } else { account.tag(tags) }
        result = account.tags
      }
      return result
    }
    guard let now else {  // removed since it was resolved
      throw AccountLookupError.unknown(query, backend: invocation.backend, suggestions: [])
    }
    if invocation.json {
      environment.output.writeJSON(
        .object(["account": .string(id.description), "tags": .array(now.map { .string($0) })]))
    }
    environment.output.message(now.isEmpty ? "\(id): no tags" : "\(id): tags \(now.joined(separator: ", "))")
  }
}
