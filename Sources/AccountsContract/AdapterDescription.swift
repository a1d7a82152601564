/// One setting an adapter declares (`acc_setting` in the ABI header).
public struct AdapterSetting: Equatable, Sendable {
  public var name: String
  public var label: String
  /// Kept in the Secret Service, prompted for, never taken from `--set`, never printed.
  public var isSecret: Bool
  public var isOptional: Bool
  public var isPerAccount: Bool
  /// (ABI 1.1) When the backend gives it a value, LOGIN needs a one-time code. Never set for an
  /// adapter built against 1.0.
  public var isOneTimeCode: Bool
  /// The adapter's documented default, for display; empty when it has none.
  public var defaultValue: String

  /// The ABI's rule for setting names: 1 to 64 of lowercase [a-z0-9_].
  public static func isValidName(_ name: String) -> Bool {
    (1...64).contains(name.utf8.count)
      && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
  }

  public init(
    name: String, label: String, isSecret: Bool = false, isOptional: Bool = false,
    isPerAccount: Bool = false, isOneTimeCode: Bool = false, defaultValue: String = ""
  ) {
    self.name = name
    self.label = label
    self.isSecret = isSecret
    self.isOptional = isOptional
    self.isPerAccount = isPerAccount
    self.isOneTimeCode = isOneTimeCode
    self.defaultValue = defaultValue
  }
}

/// What a loaded adapter says about itself.
public struct AdapterDescription: Equatable, Sendable {
  public var name: String
  public var version: String
  public var summary: String
  /// `major << 16 | minor` of the header the adapter was built with.
  public var abiVersion: UInt32
  public var settings: [AdapterSetting]
  public var path: String
  /// When its CHECK asks the backend (ABI 1.2).
  public var sessionCheck: SessionCheck

  /// When an adapter's CHECK asks the backend.
  public enum SessionCheck: Equatable, Sendable {
    /// The adapter does not say (built before 1.2, or without ACC_ADAPTER_CHECK_DECLARED):
    /// every CHECK is run.
    case undeclared
    /// Only when one of these settings has a value; with none, CHECK answers OK at once.
    case onlyWith([String])

    /// Whether a CHECK of a backend with these settings may ask the backend: false only when
    /// the adapter declared the settings that make it ask and none has a value (`settings`) or
    /// is a secret the backend keeps (`secretNames`).
    public func asks(settings given: [String: String], secretNames: [String] = []) -> Bool {
      guard case .onlyWith(let names) = self else { return true }
      return names.contains { name in given[name].map { !$0.isEmpty } ?? false || secretNames.contains(name) }
    }
  }

  public init(
    name: String, version: String, summary: String, abiVersion: UInt32,
    settings: [AdapterSetting], path: String, sessionCheck: SessionCheck = .undeclared
  ) {
    self.name = name
    self.version = version
    self.summary = summary
    self.abiVersion = abiVersion
    self.settings = settings
    self.path = path
    self.sessionCheck = sessionCheck
  }


  /// "1.0".
  public var abiText: String { Self.abiText(abiVersion) }

  /// "major.minor" of an ABI version `major << 16 | minor`.
  public static func abiText(_ version: UInt32) -> String { "\(version >> 16).\(version & 0xFFFF)" }

  public func setting(named name: String) -> AdapterSetting? {
    settings.first { $0.name == name }
  }

  /// Whether a LOGIN of a backend with these settings needs a one-time code: a setting flagged
  /// ONE_TIME_CODE has a non-empty value (`settings`), or is a secret setting the backend keeps
  /// (`secretNames`).
  public func needsOneTimeCode(settings given: [String: String], secretNames: [String] = []) -> Bool {
    settings.contains { setting in
      setting.isOneTimeCode
        && (given[setting.name].map { !$0.isEmpty } ?? false || secretNames.contains(setting.name))
    }
  }
}

/// One file `accounts adapters` found: loaded, refused, or hidden by an earlier one.
public struct AdapterEntry: Equatable, Sendable {
  public var path: String
  /// The name the file stands for (`plain` for plain.so and libplain.so).
  public var name: String
  public var description: AdapterDescription?
  /// Why the file was not loaded, e.g. "writable by group or others (mode 0666)".
  public var refusal: String?
  /// The path of the earlier file with the same name that wins.
  public var shadowedBy: String?

  public init(
    path: String, name: String, description: AdapterDescription? = nil, refusal: String? = nil,
    shadowedBy: String? = nil
  ) {
    self.path = path
    self.name = name
    self.description = description
    self.refusal = refusal
    self.shadowedBy = shadowedBy
  }
}
