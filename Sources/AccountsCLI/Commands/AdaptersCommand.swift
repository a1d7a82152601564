import AccountsContract
import AccountsCore
import AccountsServices
import AccountsJSON
import AccountsSystem

/// `accounts adapters [NAME]`: every adapter found, loaded or refused, and what it needs.
enum AdaptersCommand {
  static let spec = CommandSpec(
    "adapters",
    summary: "list the login adapters found, or why one was refused",
    discussion: """
      Looks in $ACCOUNTS_ADAPTER_PATH, then $XDG_DATA_HOME/accounts/adapters, then the \
      built-in adapters (plain, hmac, signed), and shows each adapter's name, version, ABI, \
      path and settings. A file that is not safe to load (writable by others, owned by \
      another user, reached through a link others control, bringing in libraries from such \
      places, built for another machine or ABI) is shown with the reason and the fix. Each \
      adapter is loaded in a separate process: one that crashes or hangs while loading is \
      shown as such, and the others are still listed. Exit status 9 when no adapter at all \
      can be loaded (0 when some are refused and others load); with NAME, only that adapter, \
      and exit status 9 when it cannot be loaded. man 7 accounts-adapter explains how to \
      write one.
      """,
    arguments: [name],
    examples: [
      ("accounts adapters", "every adapter found"),
      ("accounts adapters signed", "the settings a signed backend needs"),
    ],
    handler: run)

  static let name = ArgumentSpec(
    "NAME", completion: .adapter, optional: true, help: "show only this adapter, with its settings")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let searchPath = environment.adapterSearchPath
    // Loaded in child processes, never in this one: this command must outlive a broken adapter.
    let probe = AdapterProbe(timeout: try environment.adapterLoadTimeout())
    if let wanted = invocation.argument(name) {
      let description = try probe.describe(wanted, in: searchPath)
      if invocation.json {
        environment.output.writeJSON(json(AdapterEntry(path: description.path, name: wanted, description: description)))
      } else {
        environment.output.write(detail(description))
      }
      return
    }
    let entries = try probe.entries(searchPath)
    let refused = entries.filter { $0.refusal != nil }.count
    let loaded = entries.contains { $0.description != nil }
    if invocation.json {
      environment.output.writeJSON(.array(entries.map(json)))
    } else if !entries.isEmpty {
      environment.output.write(entries.map(summary).joined(separator: "\n"))
    }
    // Not one adapter to log in with is a failure, whatever the reasons (exit 9); some refused
    // beside others that load is a warning.
    guard loaded else {
      if entries.isEmpty {
        throw CommandError(
          .adapterFailed, "no adapters found in \(searchPath.directories.map(\.path).joined(separator: ", "))",
          fix: "reinstall accounts (`make install`), or put adapters in \(environment.paths.userAdapters)")
      }
      throw CommandError(.adapterFailed, "no adapter could be loaded", fix: "see the reasons above")
    }
    if refused > 0, !invocation.json {
      environment.output.message("\(counted(refused, "adapter")) refused; the others work")
    }
  }

  /// A few lines per adapter. File names, paths and what an adapter says about itself come
  /// from files anyone may name, and through a pipe the adapter could write too: every field
  /// reaches the terminal through `Names.printable`.
  static func summary(_ entry: AdapterEntry) -> String {
    let heading = "\(printable(entry.name))  \(printable(entry.path))"
    if let shadowed = entry.shadowedBy {
      return "\(heading)\n  not used: \(printable(shadowed)) comes first in the search path\n"
    }
    guard let description = entry.description else {
      return "\(heading)\n  refused: \(printable(entry.refusal ?? "unknown reason"))\n"
    }
    let settings = description.settings.map { setting in
      let notes = [
        setting.isSecret ? "secret" : nil, setting.isOptional ? nil : "required",
        setting.isOneTimeCode ? "one-time code" : nil,
      ].compactMap { $0 }
      let value = setting.isOptional && !setting.defaultValue.isEmpty ? "=\(setting.defaultValue)" : ""
      return setting.name + value + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
    }
    var lines = [
      "\(printable(description.name)) \(printable(description.version))  ABI \(description.abiText)  \(printable(description.path))",
      "  \(printable(description.summary))",
    ]
    lines += TextWrap.wrap(printable("settings: " + settings.joined(separator: ", ")), width: 100, indent: 2)
    return lines.joined(separator: "\n") + "\n"
  }

  /// `Names.printable` with room for a path or a refusal that names one.
  static func printable(_ text: String) -> String { Names.printable(text, limit: 4096) }

  /// One adapter in full: a row per setting.
  static func detail(_ description: AdapterDescription) -> String {
    var text = """
      \(printable(description.name)) \(printable(description.version)) (ABI \(description.abiText))
      \(printable(description.summary))
      path: \(printable(description.path))


      """
    var rows = [["SETTING", "KIND", "DEFAULT", "MEANING"]]
    for setting in description.settings {
      let kind = [
        setting.isSecret ? "secret" : nil, setting.isOptional ? "optional" : "required",
        setting.isOneTimeCode ? "one-time code" : nil,
      ].compactMap { $0 }.joined(separator: ", ")
      rows.append([
        printable(setting.name), kind, setting.defaultValue.isEmpty ? "-" : printable(setting.defaultValue),
        printable(setting.label),
      ])
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
      "one_time_code": .bool(setting.isOneTimeCode),
      "default": setting.defaultValue.isEmpty ? .null : .string(setting.defaultValue),
    ])
  }
}
