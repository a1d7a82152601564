import AccountsContract
import AccountsSystem
import SecretMemory

/// Where a login's one-time code comes from when the backend needs one: its adapter (ABI 1.1)
/// declares a setting flagged ONE_TIME_CODE and the backend gives it a value (`otp_field` of
/// plain and hmac, `otp_param` of signed). Asked in order: `stored`, then `ask` when the
/// command may ask a person; with neither, the login fails with exit 3.
public struct OneTimeCodeSource: Sendable {
  /// The current code from what is kept for the account (its TOTP seed, read through the
  /// flow's ledger at the flow's now); nil when nothing is kept. Asked first, right before
  /// each LOGIN that needs a code.
  public var stored: @Sendable (AccountID, Ledger, Timestamp) throws -> SecretBytes?
  /// A person's answer (a terminal prompt), checked by `OneTimeCode.checked`; nil when nobody
  /// can be asked. Never asked by the commands that never prompt (`status`, `login --stale`).
  public var ask: @Sendable (AccountID) throws -> SecretBytes?

  public init(
    stored: @escaping @Sendable (AccountID, Ledger, Timestamp) throws -> SecretBytes?,
    ask: @escaping @Sendable (AccountID) throws -> SecretBytes?
  ) {
    self.stored = stored
    self.ask = ask
  }

  /// Nothing kept, nobody asked: a backend that needs a code cannot be logged in to.
  public static let none = OneTimeCodeSource(stored: { _, _, _ in nil }, ask: { _ in nil })
}

/// Where a login's one-time code came from, for what a rejection tells to check.
public enum OneTimeCodeOrigin: Sendable, Equatable {
  /// Computed from the account's TOTP seed; `name`: how `accounts otp` names the account.
  case seed(name: String)
  /// Typed by a person at the prompt.
  case typed
}

/// The rule for a one-time code a person types: 6 to 8 ASCII digits (RFC 4226/6238 codes).
public enum OneTimeCode {
  public static let digits = 6...8

  /// `bytes` when they are such a code, else the usage error (exit 2) that says what a code is.
  public static func checked(_ bytes: SecretBytes) throws(CommandError) -> SecretBytes {
    let valid = bytes.withUnsafeBytes { code in
      digits.contains(code.count) && code.allSatisfy { (0x30...0x39).contains($0) }
    }
    guard valid else {
      throw .usage(
        "that is not a one-time code: a code is \(digits.lowerBound) to \(digits.upperBound) digits",
        fix: "type the code your authenticator shows now, digits only")
    }
    return bytes
  }
}

extension PasswordSource {
  /// Whether this command may ask a person (for a one-time code too): not with
  /// `.rememberedOnly` (`status`, `login --stale`, leases).
  var mayAsk: Bool {
    if case .rememberedOnly = self { false } else { true }
  }
}

extension SessionFlow {
  /// The one-time code a LOGIN of `id` on `backend` needs, and where it came from; nil when it
  /// needs none: the stored one, else a person's answer when `asking`; with neither,
  /// `oneTimeCodeRequired` (exit 3).
  func oneTimeCode(
    for id: AccountID, _ backend: PreparedBackend, asking: Bool
  ) throws -> (code: SecretBytes, origin: OneTimeCodeOrigin)? {
    guard backend.needsOneTimeCode else { return nil }
    let name = { (try? ledger.index.load().shortestName(for: id)) ?? id.description }
    if let code = try oneTimeCodes.stored(id, ledger, now()) { return (code, .seed(name: name())) }
    if asking, let code = try oneTimeCodes.ask(id) { return (code, .typed) }
    throw SessionFailure.oneTimeCodeRequired(id, name: name())
  }
}

extension SessionFlow.PreparedBackend {
  /// Whether its LOGIN needs a one-time code (a ONE_TIME_CODE setting the backend sets).
  public var needsOneTimeCode: Bool {
    adapter.needsOneTimeCode(settings: config.settings, secretNames: config.secretSettings)
  }
}
