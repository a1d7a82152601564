import AccountsCore
import AccountsJSON

/// `accounts adapters [NAME]`: every adapter found, loaded or refused, and what it needs.
enum AdaptersCommand {
  static let name = ArgumentSpec(
    "NAME", completion: .adapter, optional: true, help: "show only this adapter, with its settings")

  static let spec = CommandSpec(
    "adapters",
    summary: "list the login adapters found, or why one was refused",
    discussion: """
      Looks in $ACCOUNTS_ADAPTER_PATH, then $XDG_DATA_HOME/accounts/adapters, then the \
      built-in adapters (plain, hmac, signed), and shows each adapter's name, version, ABI, \
      path and settings. A file that is not safe to load (writable by others, owned by \
      another user, not an ELF library, another ABI) is shown with the reason and the fix. \
      With NAME, only that adapter, and exit status 9 when it cannot be loaded. \
      man 7 accounts-adapter explains how to write one.
      """,
    arguments: [name],
    examples: [
      ("accounts adapters", "every adapter found"),
      ("accounts adapters signed", "the settings a signed backend needs"),
    ],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let searchPath = environment.adapterSearchPath
    let host = try environment.adapterHost()
    if let wanted = invocation.argument(name) {
      let description = try host.describe(wanted, in: searchPath)
      if invocation.json {
        environment.output.writeJSON(json(AdapterEntry(path: description.path, name: wanted, description: description)))
      } else {
        environment.output.write(detail(description))
      }
      return
    }
    let entries = try host.catalog(searchPath)
    if invocation.json {
      environment.output.writeJSON(.array(entries.map(json)))
      return
    }
    guard !entries.isEmpty else {
      environment.output.message(
        "no adapters found in \(searchPath.directories.map(\.path).joined(separator: ", "))")
      return
    }
    environment.output.write(entries.map(summary).joined(separator: "\n"))
    let refused = entries.filter { $0.refusal != nil }.count
    if refused == entries.count {
      environment.output.message("no adapter could be loaded")
    } else if refused > 0 {
      environment.output.message("\(counted(refused, "adapter")) refused; the others work")
    }
  }

  /// A few lines per adapter.
  static func summary(_ entry: AdapterEntry) -> String {
    if let shadowed = entry.shadowedBy {
      return "\(entry.name)  \(entry.path)\n  not used: \(shadowed) comes first in the search path\n"
    }
    guard let description = entry.description else {
      return "\(entry.name)  \(entry.path)\n  refused: \(entry.refusal ?? "unknown reason")\n"
    }
    let settings = description.settings.map { setting in
      let notes = [setting.isSecret ? "secret" : nil, setting.isOptional ? nil : "required"].compactMap { $0 }
      let value = setting.isOptional && !setting.defaultValue.isEmpty ? "=\(setting.defaultValue)" : ""
      return setting.name + value + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
    }
    var lines = [
      "\(description.name) \(description.version)  ABI \(description.abiText)  \(description.path)",
      "  \(description.summary)",
    ]
    lines += TextWrap.wrap("settings: " + settings.joined(separator: ", "), width: 100, indent: 2)
    return lines.joined(separator: "\n") + "\n"
  }

  /// One adapter in full: a row per setting.
  static func detail(_ description: AdapterDescription) -> String {
    var text = """
      \(description.name) \(description.version) (ABI \(description.abiText))
      \(description.summary)
      path: \(description.path)


      """
    var rows = [["SETTING", "KIND", "DEFAULT", "MEANING"]]
    for setting in description.settings {
      let kind = [setting.isSecret ? "secret" : nil, setting.isOptional ? "optional" : "required"]
        .compactMap { $0 }.joined(separator: ", ")
      rows.append([setting.name, kind, setting.defaultValue.isEmpty ? "-" : setting.defaultValue, setting.label])
    }
    text += TextTable.render(rows)
    return text
  }

  static func json(_ entry: AdapterEntry) -> JSONValue {
    let description = entry.description
    return .object([
      "name": .string(entry.name),
      "path": .string(entry.path),
      "version": description.map { .string($0.version) } ?? .null,
      "abi": description.map { .string($0.abiText) } ?? .null,
      "description": description.map { .string($0.summary) } ?? .null,
      "settings": description.map { .array($0.settings.map(settingJSON)) } ?? .null,
      "refused": entry.refusal.map { .string($0) } ?? .null,
      "shadowed_by": entry.shadowedBy.map { .string($0) } ?? .null,
    ])
  }

  static func settingJSON(_ setting: AdapterSetting) -> JSONValue {
    .object([
      "name": .string(setting.name),
      "label": .string(setting.label),
      "secret": .bool(setting.isSecret),
      "optional": .bool(setting.isOptional),
      "per_account": .bool(setting.isPerAccount),
      "default": setting.defaultValue.isEmpty ? .null : .string(setting.defaultValue),
    ])
  }
}
