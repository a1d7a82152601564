import AccountsContract
import AccountsJSON
import AccountsSystem

/// The configuration, `$XDG_CONFIG_HOME/accounts/config.json`: the backends, without secrets.
public typealias ConfigStore = DocumentStore<ConfigFormat>

/// config.json, version 1:
///
///     {
///       "version": 1,
///       "backends": {
///         "corp": {
///           "adapter": "signed",
///           "settings": { "base_url": "https://api.corp.example", "app_id": "..." },
///           "secret_settings": [ "private_key" ]
///         }
///       },
///       "rules": { "/home/alice/work/corp": "alice@corp" },
///       "hooks": [
///         { "event": "switch", "command": "...", "backend": "corp", "with_token": false, "timeout": 10 }
///       ]
///     }
///
/// `rules` maps a physical absolute directory to USER@BACKEND (see `DirectoryRule`). A hook has
/// at most one of `backend` and `account`. Each is written only when there are some, so older
/// versions keep reading the file.
public enum ConfigFormat: DocumentFormat {
  static let version: Int64 = 1
  public static func path(in paths: Paths) -> String { paths.config }
  static let rootKeys: Set<String> = ["version", "backends", "unsettled", "secret_service", "rules", "hooks"]
  static let backendKeys: Set<String> = ["adapter", "settings", "secret_settings"]

  public static func emptyContent() throws -> Configuration { try Configuration() }

  public static func encode(_ configuration: Configuration) -> String {
    var backends = JSONObject()
    for backend in configuration.backends {
      var settings = JSONObject()
      for key in backend.settings.keys.sorted() { settings[key] = .string(backend.settings[key]!) }
      var object: JSONObject = [
        "adapter": .string(backend.adapter),
        "settings": .object(settings),
        "secret_settings": .array(backend.secretSettings.map { .string($0) }),
      ]
      for (key, value) in backend.unknownFields where object[key] == nil { object[key] = value }
      backends[backend.name] = .object(object)
    }
    var root: JSONObject = ["version": .number(JSONNumber(version)), "backends": .object(backends)]
    if !configuration.unsettled.isEmpty { root["unsettled"] = .array(configuration.unsettled.map { .string($0) }) }
    if let provider = configuration.secretService { root["secret_service"] = .string(provider) }
    if !configuration.rules.isEmpty {
      var rules = JSONObject()
      for rule in configuration.rules { rules[rule.directory] = .string(rule.account.description) }
      root["rules"] = .object(rules)
    }
    if !configuration.hooks.isEmpty { root["hooks"] = .array(configuration.hooks.map(HookFormat.encode)) }
    for (key, value) in configuration.unknownFields where root[key] == nil { root[key] = value }
    return JSON.serialize(.object(root), pretty: true) + "\n"
  }

  public static func decode(_ bytes: [UInt8], file: DocumentFile) throws -> Configuration {
    func malformed(_ detail: String) -> FileError {
      .malformed(
        path: file.path, detail: detail,
        backup: isReadable(file.backupPath) ? file.backupPath : nil)
    }
    do {
      let root = JSONReader(try JSON.parse(bytes))
      let version = try root.int64("version")
      if version > ConfigFormat.version {
        throw FileError.newerFormat(path: file.path, version: version)
      }
      let backendsReader = try root.object("backends")
      var backends: [BackendConfig] = []
      for (name, _) in try backendsReader.asObject() {
        let entry = try backendsReader.object(name)
        guard Names.isBackendName(name) else {
          throw JSONShapeError(path: entry.path, problem: "not a valid backend name")
        }
        let adapter = try entry.string("adapter")
        guard Names.isBackendName(adapter) else {
          throw JSONShapeError(path: join(entry.path, "adapter"), problem: "not a valid adapter name")
        }
        var settings: [String: String] = [:]
        let settingsReader = try entry.object("settings")
        for (key, _) in try settingsReader.asObject() {
          guard AdapterSetting.isValidName(key) else {
            throw JSONShapeError(path: join(settingsReader.path, key), problem: "not a valid setting name")
          }
          settings[key] = try settingsReader.string(key)
        }
        var secretSettings: [String] = []
        for item in try entry.optionalArray("secret_settings") ?? [] {
          let key = try item.asString()
          guard AdapterSetting.isValidName(key) else {
            throw JSONShapeError(path: item.path, problem: "not a valid setting name")
          }
          secretSettings.append(key)
        }
        var unknown = JSONObject()
        for (key, value) in try entry.asObject() where !backendKeys.contains(key) { unknown[key] = value }
        backends.append(
          BackendConfig(
            name: name, adapter: adapter, settings: settings, secretSettings: secretSettings,
            unknownFields: unknown))
      }
      var unsettled: [String] = []
      for item in try root.optionalArray("unsettled") ?? [] {
        let name = try item.asString()
        guard Names.isBackendName(name) else { throw JSONShapeError(path: item.path, problem: "not a valid backend name") }
        unsettled.append(name)
      }
      var rules: [DirectoryRule] = []
      if let rulesReader = try root.optionalObject("rules") {
        for (directory, _) in try rulesReader.asObject() {
          let path = join(rulesReader.path, directory)
          if let problem = DirectoryRule.directoryProblem(directory) {
            throw JSONShapeError(path: path, problem: "the directory: \(problem)")
          }
          let name = try rulesReader.string(directory)
          guard let at = name.lastIndex(of: "@"), Names.isValidUser(String(name[..<at])),
            Names.isBackendName(String(name[name.index(after: at)...]))
          else {
            throw JSONShapeError(path: path, problem: "not an account written USER@BACKEND")
          }
          let account = AccountID(user: String(name[..<at]), backend: String(name[name.index(after: at)...]))
          rules.append(DirectoryRule(directory: directory, account: account))
        }
      }
      var unknown = JSONObject()
      for (key, value) in try root.asObject() where !rootKeys.contains(key) { unknown[key] = value }
      let hooks = try (root.optionalArray("hooks") ?? []).map(HookFormat.decode)
      return try Configuration(
        backends: backends, unsettled: unsettled, secretService: try root.optionalString("secret_service"),
        rules: rules, hooks: hooks, unknownFields: unknown)
    } catch let error as JSONParseError {
      throw malformed(error.description)
    } catch let error as JSONShapeError {
      throw malformed(error.description)
    } catch let error as ConfigurationError {
      throw malformed(error.message)
    }
  }
}
