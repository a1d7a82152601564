import AccountsContract
import AccountsCore
import AccountsSystem

/// `accounts request [USER] METHOD PATH [KEY=VALUE...]`
enum RequestCommand {
  static let spec = CommandSpec(
    "request",
    summary: "call a backend API with the account's session",
    discussion: """
      Sends one call through the backend's adapter (signed when the adapter signs) with the \
      account's session and prints the reply's body on stdout. When the backend says the \
      session expired, it logs in again once with the remembered password and sends the call \
      once more. When it wants a newer client, it exits 6 with the backend's message and \
      update link. USER comes first only when the first word is not an HTTP method. PATH is \
      relative to the backend's base_url and stays below it (no '..', no query: parameters \
      go as KEY=VALUE).
      """,
    picksAccount: true, arguments: [method, path, parameters],
    options: [SharedArguments.passwordStdin, SessionArguments.timeout],
    examples: [
      ("accounts request POST user/info remark=hello", "a call as the current account"),
      ("accounts request bob GET me", "the same, as bob"),
    ],
    handler: run)

  static let method = ArgumentSpec.method(help: "GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS")
  static let path = ArgumentSpec("PATH", help: "the API path, relative to the backend's base_url (e.g. user/info)")
  static let parameters = ArgumentSpec(
    "KEY=VALUE", optional: true, variadic: true, help: "the call's parameters (signed with the rest when the adapter signs)")

  /// PATH stays below the backend's base_url and carries no parameters of its own: a script
  /// that builds PATH from its input cannot send the token to another endpoint of the host, and
  /// every parameter goes where the adapter signs it.
  static func checkPath(_ text: String) throws(CommandError) {
    let segments = text.split(separator: "/", omittingEmptySubsequences: false)
    if text.includes("://") || text.hasPrefix("//") || segments.contains(where: { $0 == ".." || $0 == "." }) {
      throw .usage(
        "PATH '\(Names.printable(text))' leaves the backend's API base (base_url; api_base for oauth2)",
        fix: "give a path below it, e.g. user/info")
    }
    if text.contains("?") || text.contains("#") {
      throw .usage("PATH '\(Names.printable(text))' holds a query", fix: "give parameters as KEY=VALUE words after PATH")
    }
    if text.isEmpty || text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
      throw .usage("PATH '\(Names.printable(text))' is empty or holds control characters", fix: "give a path below base_url, e.g. user/info")
    }
  }

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let id = try environment.pickAccount(invocation, in: try environment.index.load()).id
    var pairs: [(String, String)] = []
    for word in invocation.arguments(parameters) {
      guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
        throw CommandError.usage("'\(Names.printable(word))' is not KEY=VALUE", fix: "write each parameter as KEY=VALUE, e.g. remark=hello")
      }
      pairs.append((String(word[..<equals]), String(word[word.index(after: equals)...])))
    }
    try checkPath(invocation.argument(path)!)
    let reply = try environment.sessionFlow(invocation).call(
      id, method: invocation.argument(method)!, path: invocation.argument(path)!, parameters: pairs,
      password: try environment.passwordSource(invocation))
    let body = reply.body ?? ""
    environment.output.write(body.hasSuffix("\n") || body.isEmpty ? body : body + "\n")
  }
}
