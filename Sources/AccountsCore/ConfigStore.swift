import AccountsJSON
import Glibc

/// The configuration, `$XDG_CONFIG_HOME/accounts/config.json`: the backends, without secrets.
public struct ConfigStore: Sendable {
  public let file: DocumentFile

  public init(paths: Paths) {
    file = DocumentFile(path: paths.config)
  }

  /// The configuration; empty when the file does not exist yet. No lock is taken.
  public func load() throws -> Configuration {
    try decode(file.read())
  }

  /// Changes the configuration under the writers' lock (see `DocumentFile`).
  @discardableResult
  public func update<Result>(_ change: (inout Configuration) throws -> Result) throws -> Result {
    try file.update { bytes in
      let old = try decode(bytes)
      var configuration = old
      let result = try change(&configuration)
      return (configuration == old ? nil : Array(ConfigFormat.encode(configuration).utf8), result)
    }
  }

  private func decode(_ bytes: [UInt8]?) throws -> Configuration {
    guard let bytes else { return try Configuration() }
    return try ConfigFormat.decode(bytes, file: file)
  }
}

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
///       }
///     }
enum ConfigFormat {
  static let version: Int64 = 1

  static func encode(_ configuration: Configuration) -> String {
    var backends = JSONObject()
    for backend in configuration.backends {
      var settings = JSONObject()
      for key in backend.settings.keys.sorted() { settings[key] = .string(backend.settings[key]!) }
      backends[backend.name] = .object([
        "adapter": .string(backend.adapter),
        "settings": .object(settings),
        "secret_settings": .array(backend.secretSettings.map { .string($0) }),
      ])
    }
    let root: JSONObject = ["version": .number(JSONNumber(version)), "backends": .object(backends)]
    return JSON.serialize(.object(root), pretty: true) + "\n"
  }

  static func decode(_ bytes: [UInt8], file: DocumentFile) throws -> Configuration {
    func malformed(_ detail: String) -> FileError {
      .malformed(
        path: file.path, detail: detail,
        backup: access(file.backupPath, R_OK) == 0 ? file.backupPath : nil)
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
        var settings: [String: String] = [:]
        let settingsReader = try entry.object("settings")
        for (key, _) in try settingsReader.asObject() { settings[key] = try settingsReader.string(key) }
        backends.append(
          BackendConfig(
            name: name, adapter: try entry.string("adapter"), settings: settings,
            secretSettings: try (entry.optionalArray("secret_settings") ?? []).map { try $0.asString() }))
      }
      return try Configuration(backends: backends)
    } catch let error as JSONParseError {
      throw malformed(error.description)
    } catch let error as JSONShapeError {
      throw malformed(error.description)
    } catch let error as ConfigurationError {
      throw malformed(error.message)
    }
  }
}
