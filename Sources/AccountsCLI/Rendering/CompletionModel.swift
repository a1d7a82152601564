import AccountsCore
import AccountsSystem

/// The command table reduced to what a completion script needs: for each command path, what
/// can follow it. The three scripts are generated from this.
struct CompletionModel {
  struct Node {
    /// "" for the top level, "add", "backend", "backend add"
    let path: String
    let subcommands: [CommandSpec]
    /// The node's own options; global options are added by every script.
    let options: [OptionSpec]
    let arguments: [ArgumentSpec]
  }

  struct Step {
    let from: String
    let word: String
    let to: String
  }

  let nodes: [Node]
  /// How a word moves from one path to the next (names and aliases). A step with the empty
  /// word leads from a group to its default subcommand when that takes words (`otp alice` is
  /// `otp code alice`): the scripts take it for a word that names no subcommand.
  let steps: [Step]
  /// Every option that takes a value, once per name: scripts must skip its value when walking.
  let valueOptions: [OptionSpec]

  init(commands: [CommandSpec]) {
    let visible = commands.filter { !$0.hidden }
    var nodes = [Node(path: "", subcommands: visible, options: [], arguments: [])]
    var steps: [Step] = []
    var valueOptions = GlobalOptions.all.filter(\.takesValue)
    func visit(_ command: CommandSpec, under parent: String) {
      let path = parent.isEmpty ? command.name : "\(parent) \(command.name)"
      for word in [command.name] + command.aliases { steps.append(Step(from: parent, word: word, to: path)) }
      if let name = command.defaultSubcommand, let sub = command.subcommand(named: name), !sub.arguments.isEmpty {
        steps.append(Step(from: path, word: "", to: "\(path) \(sub.name)"))
      }
      nodes.append(
        Node(
          path: path, subcommands: command.visibleSubcommands, options: command.options,
          arguments: command.arguments))
      for option in command.options where option.takesValue && !valueOptions.contains(where: { $0.long == option.long }) {
        valueOptions.append(option)
      }
      for sub in command.visibleSubcommands { visit(sub, under: path) }
    }
    for command in visible { visit(command, under: "") }
    self.nodes = nodes
    self.steps = steps
    self.valueOptions = valueOptions
  }

  /// Every option name a node accepts, its own then the global ones.
  func optionNames(_ node: Node) -> [String] {
    (node.options + GlobalOptions.all).flatMap(spellings)
  }

  /// "--jobs", "-j": how an option may be written.
  func spellings(_ option: OptionSpec) -> [String] {
    ["--\(option.long)"] + (option.short.map { ["-\($0)"] } ?? [])
  }

  /// The argument kinds of a node as the scripts spell them: "account", "command...", and
  /// "account|method" for an optional argument that a METHOD word skips (`request [USER]
  /// METHOD`: a method word there is the METHOD, as `ArgumentBinding` reads it).
  func argumentKinds(_ node: Node) -> [String] {
    node.arguments.indices.map { index in
      let argument = node.arguments[index]
      var kind = argument.completion.rawValue
      if let next = methodAfter(node, index) { kind += "|" + next.completion.rawValue }
      return kind + (argument.variadic ? "..." : "")
    }
  }

  /// The METHOD argument right after argument `index` of `node` when that one is optional.
  func methodAfter(_ node: Node, _ index: Int) -> ArgumentSpec? {
    guard node.arguments[index].optional, index + 1 < node.arguments.count,
      node.arguments[index + 1].kind == .method
    else { return nil }
    return node.arguments[index + 1]
  }

  /// The `accounts __complete` word for a kind, nil for kinds completed from a fixed list.
  static func completeWord(_ kind: CompletionKind) -> String? {
    switch kind {
    case .account: "accounts"
    case .backend: "backends"
    case .adapter: "adapters"
    case .setting: "settings"
    case .secretSetting: "secret-settings"
    case .unsettableSetting: "unsettable-settings"
    case .command: "commands"
    // account-tag: the scripts add `--account` and the account word from the line.
    case .tag, .accountTag: "tags"
    case .shell, .hookEvent, .method, .credentialAction, .directory, .file, .commandLine, .none: nil
    }
  }

  static let shells = ["bash", "zsh", "fish"]

  /// The candidates of a kind completed from a fixed list, nil for the others.
  static func fixedCandidates(_ kind: CompletionKind) -> [String]? {
    switch kind {
    case .shell: shells
    case .hookEvent: HookEvent.allCases.map(\.rawValue)
    case .method: HTTPMethod.all
    case .credentialAction: GitCredentialCommand.actions
    case .account, .backend, .adapter, .setting, .secretSetting, .unsettableSetting, .command, .tag, .accountTag,
      .directory, .file, .commandLine, .none:
      nil
    }
  }
}

