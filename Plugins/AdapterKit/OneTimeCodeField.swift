/// The field a LOGIN's one-time code goes in (`otp_field` of the form-login family,
/// `otp_param` of the signed adapter): a setting flagged ONE_TIME_CODE, so that the host knows
/// to get a code whenever the backend gives it a value.
public struct OneTimeCodeField: Sendable {
  /// The field's name, as the backend gives it.
  public let name: String

  /// The definition of a setting `name` that names the code's field.
  public static func definition(_ name: StaticString, _ label: StaticString) -> SettingDefinition {
    SettingDefinition(name, label, flags: [.optional, .oneTimeCode])
  }

  /// The field the backend names in `setting`, or nil when it gives none (then no code is
  /// sent). `taken`: field names the login already sends, which the code may not reuse.
  public init?(_ settings: Settings, setting: String, taken: [String]) throws(AdapterError) {
    guard let name = settings.given(setting) else { return nil }
    guard !taken.contains(name) else {
      throw AdapterError(
        "setting \(setting) has the value \(Message.quoted(name)), a field the login already "
          + "sends; choose another field name")
    }
    self.name = name
  }

  /// The form field carrying `configuration`'s code. A LOGIN without one is an ERROR: the host
  /// gives a code whenever this setting has a value, so a missing one means a host too old to
  /// know the field (ABI 1.0).
  public func field(_ configuration: SessionConfiguration) throws(AdapterError) -> FormField {
    guard !configuration.oneTimeCode.isEmpty else {
      throw AdapterError(
        "the backend needs a one-time code in field \(Message.quoted(name)), but the host gave "
          + "none (update accounts to a host of adapter ABI 1.1 or later)")
    }
    return FormField(name, secret: configuration.oneTimeCode)
  }
}
