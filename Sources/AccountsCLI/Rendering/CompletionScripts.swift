/// The completion scripts, generated from the command table.
package enum CompletionScripts {
  package static func script(for shell: String) -> String? {
    let model = CompletionModel(commands: CommandTable.all)
    switch shell {
    case "bash": return BashCompletion.render(model)
    case "zsh": return ZshCompletion.render(model)
    case "fish": return FishCompletion.render(model)
    default: return nil
    }
  }
}
