/// How large a secret accounts takes, whichever way it comes in (`add`, `passwd`,
/// `otp set --seed-stdin`, each row of `import`): one rule, so that what one command stores
/// another can read back.
public enum SecretLimits {
  /// The most bytes of a password or an OTP seed.
  public static let bytes = 64 << 10
  /// `bytes` for messages.
  public static let text = "64 KiB"
}
