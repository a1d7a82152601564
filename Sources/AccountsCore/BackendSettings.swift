/// A backend's settings held against its adapter's declaration (`backend add`, `backend show`).
public struct BackendSettingsCheck: Sendable {
  public let adapter: AdapterDescription

  public init(adapter: AdapterDescription) { self.adapter = adapter }

  /// One mismatch between a backend and its adapter, as a user-facing line.
  public enum Problem: Equatable, Sendable, CustomStringConvertible {
    case unknown(name: String, suggestions: [String])
    case secretGivenInClear(name: String)
    case missing(name: String, label: String)
    case missingSecret(name: String, label: String)

    public var description: String {
      switch self {
      case .unknown(let name, let suggestions):
        "adapter has no setting '\(name)'"
          + (suggestions.isEmpty ? "" : "; did you mean \(Suggestions.phrase(suggestions))?")
      case .secretGivenInClear(let name):
        "'\(name)' is a secret setting: it is asked for without echo (or read with --secret-stdin \(name)) and kept in the keyring, never given with --set"
      case .missing(let name, let label): "setting \(name) is required (\(label))"
      case .missingSecret(let name, let label): "secret setting \(name) is required (\(label))"
      }
    }
  }

  /// Every problem of `settings` (non-secret, by value) and `secretNames` (kept in the keyring).
  public func problems(settings: [String: String], secretNames: [String]) -> [Problem] {
    var problems: [Problem] = []
    let declared = adapter.settings.map(\.name)
    for name in (Array(settings.keys) + secretNames).sorted() {
      guard let setting = adapter.setting(named: name) else {
        problems.append(.unknown(name: name, suggestions: Suggestions.closest(to: name, in: declared)))
        continue
      }
      if setting.isSecret, settings[name] != nil { problems.append(.secretGivenInClear(name: name)) }
    }
    for setting in adapter.settings where !setting.isOptional {
      if setting.isSecret, !secretNames.contains(setting.name) {
        problems.append(.missingSecret(name: setting.name, label: setting.label))
      } else if !setting.isSecret, settings[setting.name] == nil {
        problems.append(.missing(name: setting.name, label: setting.label))
      }
    }
    return problems
  }

  /// The secret settings to ask for: every required one, and the optional ones `wanted`.
  public func secretsToAsk(wanted: [String]) -> [AdapterSetting] {
    adapter.settings.filter { $0.isSecret && (!$0.isOptional || wanted.contains($0.name)) }
  }
}
