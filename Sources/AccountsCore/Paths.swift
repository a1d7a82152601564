import AccountsContract
import AccountsSystem

/// Where accounts keeps its files (SPEC §2), from the XDG base directory variables.
public struct Paths: Sendable, Equatable {
  /// `$XDG_CONFIG_HOME/accounts`: config.json (backends; no secrets).
  public var configDirectory: String
  /// `$XDG_STATE_HOME/accounts`: accounts.json (the index).
  public var stateDirectory: String
  /// `$XDG_DATA_HOME/accounts`: adapters/ (third-party adapters).
  public var dataDirectory: String

  public init(configDirectory: String, stateDirectory: String, dataDirectory: String) {
    self.configDirectory = configDirectory
    self.stateDirectory = stateDirectory
    self.dataDirectory = dataDirectory
  }

  /// Reads `XDG_CONFIG_HOME`, `XDG_STATE_HOME`, `XDG_DATA_HOME` (ignored unless absolute, as the
  /// XDG specification says) with their defaults under `HOME`.
  public init(environment: [String: String]) throws(CommandError) {
    func base(_ variable: String, _ fallback: String) throws(CommandError) -> String {
      if let value = environment[variable], value.hasPrefix("/") { return value }
      guard let home = environment["HOME"].flatMap({ $0.hasPrefix("/") ? $0 : nil }) ?? passwordHome()
      else {
        throw CommandError(
          .failure, "neither \(variable) nor HOME is set", fix: "set HOME to your home directory")
      }
      return home + "/" + fallback
    }
    configDirectory = try base("XDG_CONFIG_HOME", ".config") + "/accounts"
    stateDirectory = try base("XDG_STATE_HOME", ".local/state") + "/accounts"
    dataDirectory = try base("XDG_DATA_HOME", ".local/share") + "/accounts"
  }

  /// The index of saved accounts.
  public var index: String { stateDirectory + "/accounts.json" }
  /// The backends.
  public var config: String { configDirectory + "/config.json" }
  /// Where a user drops third-party adapters.
  public var userAdapters: String { dataDirectory + "/adapters" }
}

private func passwordHome() -> String? { passwordDatabaseHome() }
