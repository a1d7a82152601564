import AccountsJSON
import AccountsText

/// Where a login reply carries its results: `success_field`, `token_field`, `expires_field`.
public struct ReplyFields: Sendable {
  /// A JSON integer > 0 on success; becomes the session value `userId`.
  public var userID: String
  /// A non-empty string on success.
  public var token: String
  /// A non-negative integer, seconds; optional.
  public var expiresIn: String

  public init(userID: String, token: String, expiresIn: String) {
    self.userID = userID
    self.token = token
    self.expiresIn = expiresIn
  }

  /// `userId`, `token`, `expiresIn`: the seeds' names.
  public static let standard = ReplyFields(userID: "userId", token: "token", expiresIn: "expiresIn")
}

/// The backend's `err` object: `{"code": N, "msg": "...", "eventId": "..."}`.
public struct BackendError: Equatable, Sendable {
  /// nil when missing or not an integer.
  public var code: Int64?
  /// `msg` on one line; empty when missing.
  public var message: String
  /// `eventId` on one line; empty when missing. The update link for upgrade-required.
  public var eventID: String

  /// The `err` member of `object`, when it is an object.
  public init?(in object: JSONObject) {
    guard case .object(let error)? = object["err"] else { return nil }
    switch error["code"] {
    case .number(let number)?: code = number.int64
    case .string(let text)?: code = Int64(text)
    default: code = nil
    }
    message = Self.text(error["msg"])
    eventID = Self.text(error["eventId"])
  }

  private static func text(_ value: JSONValue?) -> String {
    guard case .string(let text)? = value else { return "" }
    return Message.oneLine(text)
  }
}

/// Redirects, which the host never follows.
public enum Redirect {
  /// The statuses that send the client elsewhere with a Location.
  static let statuses: Set<Int32> = [301, 302, 303, 307, 308]

  /// For a redirect, "WHO answered with a redirect (HTTP 302) to https://…, which …; check
  /// SETTING …"; nil for any other response. The target goes without user info, query and
  /// fragment: a GET login's query holds the password, and a redirect may repeat it.
  public static func message(_ response: Response, from who: String, check setting: String)
    -> String?
  {
    guard statuses.contains(response.status) else { return nil }
    let location = response.headers.first { $0.name == "location" }.map {
      URLText.withoutSecrets($0.value)
    }
    let target = location.flatMap { $0.isEmpty ? nil : " to " + Message.oneLine($0) } ?? ""
    return "\(who) answered with a redirect (HTTP \(response.status))\(target), which accounts "
      + "does not follow; check \(setting) (https instead of http? the right path?)"
  }
}

/// Turns a backend's reply into a step result, the same way for every built-in adapter.
///
/// In order: a redirect is an error that says where it leads (the host follows none); HTTP 401
/// means the session expired (at LOGIN: the credentials were rejected, whatever the body says;
/// at LOGOUT: fine, it is gone); a body that is not a JSON object is an error; an `err.code`
/// the `codes` setting maps decides the outcome; any other status outside 2xx is an error;
/// then each operation reads its own fields.
public struct ReplyInterpreter: Sendable {
  public var codes: ErrorCodes
  public var fields: ReplyFields

  public init(codes: ErrorCodes, fields: ReplyFields = .standard) {
    self.codes = codes
    self.fields = fields
  }

  static let rejected = "the backend rejected the user name or password"

  /// The result of `operation` given the backend's `response`.
  public func interpret(_ response: Response, for operation: Operation) -> StepResult {
    let status = response.status
    let isSuccess = (200...299).contains(status)
    let parsed = try? JSON.parse(response.body)
    let object: JSONObject? =
      if case .object(let object)? = parsed { object } else { nil }
    let backendError = object.flatMap { BackendError(in: $0) }

    if let redirect = Redirect.message(response, from: "the backend", check: "base_url") {
      return .error(redirect)
    }
    if status == 401 {
      switch operation {
      // No session exists yet: a body saying "token expired" must not be shown for exit 4.
      case .login: return .wrongPassword(Self.rejected + " (HTTP 401)")
      case .logout: return .ok
      default:
        return .sessionExpired(
          nonEmpty(backendError?.message, or: "the backend says the session expired (HTTP 401)"))
      }
    }
    guard let object else {
      if operation == .logout && isSuccess { return .ok }
      return .error(
        parsed == nil
          ? "the backend's reply is not JSON (HTTP \(status))"
          : "the backend's reply is not a JSON object (HTTP \(status))")
    }
    if let backendError, let code = backendError.code, let outcome = codes[code] {
      return mapped(outcome, backendError, for: operation)
    }
    guard isSuccess else {
      let detail = backendError.map(\.message).flatMap { $0.isEmpty ? nil : ": " + $0 } ?? ""
      return .error("the backend answered HTTP \(status)\(detail)")
    }
    switch operation {
    case .login:
      return login(object, backendError)
    case .check:
      if let backendError { return unmapped(backendError) }
      if case .number(let number)? = object[fields.expiresIn], let seconds = number.int64,
        seconds >= 0
      {
        return .ok(expiresIn: seconds)
      }
      return .ok
    case .logout, .validate:
      if let backendError { return unmapped(backendError) }
      return .ok
    case .call:
      if let backendError { return unmapped(backendError) }
      return .ok(body: response.body)
    case .refresh:
      return .error(AdapterError.noRefresh.message)
    }
  }

  private func mapped(_ outcome: CodeOutcome, _ error: BackendError, for operation: Operation)
    -> StepResult
  {
    if operation == .login, outcome == .expired || outcome == .kicked {
      // A login has no session to expire or lose: the code means something else here.
      let code = error.code.map { " \($0)" } ?? ""
      return .error("the backend refused the login with error\(code)" + (error.message.isEmpty ? "" : ": " + error.message))
    }
    switch outcome {
    case .expired:
      if operation == .logout { return .ok }
      return .sessionExpired(nonEmpty(error.message, or: "the backend says the session expired"))
    case .kicked:
      if operation == .logout { return .ok }
      return .kicked(nonEmpty(error.message, or: "signed in elsewhere"))
    case .upgrade:
      return .upgradeRequired(
        nonEmpty(error.message, or: "the backend wants a newer client"), link: error.eventID)
    case .wrongPassword:
      return .wrongPassword(nonEmpty(error.message, or: Self.rejected))
    }
  }

  private func unmapped(_ error: BackendError) -> StepResult {
    let code = error.code.map { " \($0)" } ?? ""
    return .error(nonEmpty(error.message, or: "the backend reported error\(code)"))
  }

  private func login(_ object: JSONObject, _ error: BackendError?) -> StepResult {
    let userID: Int64
    switch object[fields.userID] {
    case .number(let number)?:
      guard let integer = number.int64 else {
        return .error(wrongType(fields.userID, found: "the number \(clipped(number.text))"))
      }
      userID = integer
    case nil, .null?:
      // No user id and an error the codes do not map (mapped ones never get here): a bad
      // request (a wrong key, a bad signature), not a verdict on the password, which the host
      // would forget for it. A backend whose wrong-password reply has no user id maps its code
      // to wrong_password in the codes setting.
      if let error { return unmapped(error) }
      userID = 0
    case let other?:
      return .error(wrongType(fields.userID, found: other.kindDescription))
    }
    guard userID > 0 else {
      return .wrongPassword(nonEmpty(error?.message, or: Self.rejected))
    }

    guard case .string(let token)? = object[fields.token], !token.isEmpty else {
      let found = object[fields.token].map(\.kindDescription) ?? "nothing"
      return .error(
        "the backend's login reply has no token: \"\(Message.oneLine(fields.token))\" is "
          + (found == "a string" ? "empty" : found) + ", expected a non-empty string")
    }
    guard token.unicodeScalars.allSatisfy({ !Message.isControl($0) }) else {
      return .error("the backend's token contains control characters")
    }

    var expiresIn: Int64 = 0
    switch object[fields.expiresIn] {
    case nil, .null?:
      break
    case .number(let number)?:
      guard let seconds = number.int64, seconds >= 0 else {
        return .error(
          "the backend's login reply has \"\(Message.oneLine(fields.expiresIn))\" = "
            + "\(clipped(number.text)), expected a non-negative integer number of seconds")
      }
      expiresIn = seconds
    case let other?:
      return .error(
        wrongType(fields.expiresIn, found: other.kindDescription, expected: "a non-negative integer"))
    }
    return .ok(token: token, expiresIn: expiresIn, sessionValues: [Pair("userId", String(userID))])
  }

  private func wrongType(_ field: String, found: String, expected: String = "an integer") -> String
  {
    "the backend's login reply has \(found) in \"\(Message.oneLine(field))\", expected \(expected)"
  }

  private func nonEmpty(_ text: String?, or fallback: String) -> String {
    guard let text, !text.isEmpty else { return fallback }
    return text
  }

  private func clipped(_ text: String) -> String { Message.oneLine(text, limit: 40) }
}
