import AdapterKit
import CAccountsAdapter

/// The library's one export: the descriptor of the hmac adapter.
@_cdecl("accounts_adapter_v1")
public func accountsAdapterV1(_ hostABIVersion: UInt32) -> UnsafePointer<acc_adapter>? {
  exported.descriptor(forHost: hostABIVersion)
}

private let exported = ExportedAdapter(HMACAdapter.self) { config in
  newSession(HMACAdapter.self, config)
}

/// Form login whose password field carries a time-bound HMAC-MD5 proof instead of the
/// password: the seeds' "md5 + HMAC + timestamp" login.
enum HMACAdapter: Adapter {
  static let name: StaticString = "hmac"
  static let version: StaticString = "1.0.0"
  static let summary: StaticString =
    "Form login with an HMAC-MD5 proof of the password and the current minute"

  /// CHECK asks the backend only when check_path is set (`BackendSettings`).
  static let declaresSessionCheck = true
  static let settings =
    BackendSettings.definitions + FormLoginSettings.definitions + [
      SettingDefinition("hmac_key", "Key shared with the backend for the proof", flags: .secret),
      SettingDefinition(
        "time_zone", "Zone of the proof's minute: local, UTC, +HH:MM or -HH:MM",
        flags: .optional, default: "local"),
    ]

  static func makeSession(for configuration: SessionConfiguration, host: any HostServices)
    throws(AdapterError) -> any AdapterSession
  {
    let settings = configuration.settings
    let formLogin = try FormLoginSettings(settings)
    let key = try settings.requiredSecret("hmac_key")
    let zoneText = settings.value("time_zone")
    guard let zone = TimeZoneSetting(zoneText) else {
      throw Settings.unknownValue("time_zone", zoneText, accepted: TimeZoneSetting.accepted)
    }
    return FormLoginSession(configuration: configuration, settings: formLogin) {
      password throws(AdapterError) in
      let minute = try host.civilTimeNow(in: zone).hmacMinute
      return try HMACProof.make(password: password, key: key, minute: minute, host: host)
    }
  }
}
