import AccountsJSON
import AdapterKit
import SecretMemory

/// A device authorization (RFC 8628 §3.2): what the person is shown, and the polling of the
/// token endpoint until they approve, deny, or the code expires.
struct DeviceAuthorization {
  /// A secret: whoever has it gets the tokens once the person approves.
  let deviceCode: SecretBytes
  /// What the person enters, on one line.
  let userCode: String
  /// verification_uri_complete when the provider gives a good one, else verification_uri.
  let link: String
  /// How long the person has, 1 to 3600 seconds (the bounds of a SHOW).
  let expiresIn: Int64
  /// Seconds between polls: the provider's, 5 when it gives none, more after each slow_down.
  private(set) var interval: Int64
  /// When the code expires, on the host's clock.
  let deadline: Int64
  private var polls = 0

  static let defaultInterval: Int64 = 5
  /// The person's time when the provider leaves expires_in out (RFC 8628 requires it): ten
  /// minutes, a common lifetime, rather than none.
  static let defaultLifetime: Int64 = 600
  /// What slow_down adds to the interval (RFC 8628 §3.5).
  static let slowDownStep: Int64 = 5
  /// The longest pause a SEND may ask for.
  static let longestInterval = Int64(StepResult.maximumDelayMilliseconds / 1000)

  init(_ reply: JSONObject, transport: TransportPolicy, now: Int64) throws(AdapterError) {
    guard case .string(let code)? = reply["device_code"], !code.isEmpty,
      IssuedTokens.isHeaderSafe(code)
    else {
      throw Self.missing("device_code")
    }
    var bytes = Array(code.utf8)
    deviceCode = SecretBytes(consuming: &bytes)
    guard case .string(let user)? = reply["user_code"],
      case let shown = Message.oneLine(user, limit: 64),
      !shown.isEmpty
    else { throw Self.missing("user_code") }
    userCode = shown
    // verification_url: the name in the draft Google still answers with.
    guard let uri = Self.link(reply["verification_uri"]) ?? Self.link(reply["verification_url"])
    else {
      throw Self.missing("verification_uri")
    }
    guard transport.permits(uri) else {
      throw transport.refusal(uri, what: "the provider's verification_uri")
    }
    let complete = Self.link(reply["verification_uri_complete"]).flatMap {
      transport.permits($0) ? $0 : nil
    }
    link = complete ?? uri
    let lifetime = reply["expires_in"] ?? .null
    let seconds =
      lifetime == .null
      ? Self.defaultLifetime
      : try IssuedTokens.seconds(lifetime, of: "expires_in", in: "device authorization reply")
    expiresIn = min(max(seconds, StepResult.showSeconds.lowerBound), StepResult.showSeconds.upperBound)
    let given = try IssuedTokens.seconds(
      reply["interval"], of: "interval", in: "device authorization reply")
    interval = given == 0 ? Self.defaultInterval : min(given, Self.longestInterval)
    deadline = now + expiresIn
  }

  /// What the host shows the person.
  var show: StepResult {
    .show(message: "enter the code \(userCode)", link: link, expiresIn: expiresIn)
  }

  /// The pause before the next poll.
  var delayMilliseconds: UInt32 { UInt32(interval * 1000) }

  /// The provider asks for slower polling.
  mutating func slowDown() {
    interval = min(interval + Self.slowDownStep, Self.longestInterval)
  }

  /// Counts one more poll; false when the code has expired: by the clock, or by the count (at
  /// most one poll a second, so a clock that stands still cannot keep it polling).
  mutating func mayPoll(now: Int64) -> Bool {
    polls += 1
    return now < deadline && Int64(polls) <= expiresIn
  }

  /// The token request that polls (RFC 8628 §3.4).
  func pollFields() -> [FormField] {
    [
      FormField("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
      FormField("device_code", secret: deviceCode),
    ]
  }

  /// An http(s) URL a person may open: visible ASCII, a query allowed (the complete URI has
  /// the code in it).
  private static func link(_ value: JSONValue?) -> String? {
    guard case .string(let text)? = value, text.utf8.count <= 2000 else { return nil }
    let lowercased = text.lowercased()
    guard lowercased.hasPrefix("https://") || lowercased.hasPrefix("http://"),
      text.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
    else { return nil }
    return text
  }

  private static func missing(_ member: String) -> AdapterError {
    AdapterError("the provider's device authorization reply has no usable \(member)")
  }
}
