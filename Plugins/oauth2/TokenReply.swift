import AccountsJSON
import AdapterKit
import SecretMemory

/// Which request a token endpoint answered: the outcome of an error depends on it.
enum TokenRequest: Equatable {
  case password
  case clientCredentials
  case deviceCode
  case refresh
}

/// A successful token response (RFC 6749 §5.1), checked.
struct IssuedTokens {
  let accessToken: String
  /// Seconds; 0 when the provider does not say.
  let expiresIn: Int64
  /// Empty when the provider issued none.
  let refreshToken: SecretBytes

  init(_ object: JSONObject) throws(AdapterError) {
    guard case .string(let token)? = object["access_token"], !token.isEmpty else {
      let found = object["access_token"].map(\.kindDescription) ?? "none"
      throw AdapterError(
        "the provider's token reply has no access_token (found \(found == "a string" ? "an empty string" : found))"
      )
    }
    guard Self.isHeaderSafe(token) else {
      throw AdapterError("the provider's access token contains control or non-ASCII characters")
    }
    switch object["token_type"] {
    case nil, .null?:
      break
    case .string(let type)? where type.lowercased() == "bearer":
      break
    case let other?:
      let shown: String =
        if case .string(let type) = other { Message.quoted(type, limit: 40) } else {
          other.kindDescription
        }
      throw AdapterError(
        "the provider issued a token of type \(shown), not Bearer; accounts sends bearer tokens only"
      )
    }
    expiresIn = try Self.seconds(object["expires_in"], of: "expires_in", in: "token reply")
    switch object["refresh_token"] {
    case nil, .null?:
      refreshToken = .empty
    case .string(let text)? where Self.isHeaderSafe(text):
      var bytes = Array(text.utf8)
      refreshToken = SecretBytes(consuming: &bytes)
    case .string?:
      throw AdapterError("the provider's refresh token contains control or non-ASCII characters")
    case let other?:
      throw AdapterError(
        "the provider's token reply has \(other.kindDescription) in refresh_token, expected a string"
      )
    }
    accessToken = token
  }

  /// A duration `member` of the provider's `reply`: a non-negative number of seconds, or such
  /// a number in a string (some providers quote it); a fraction is cut off. 0 when missing.
  static func seconds(_ value: JSONValue?, of member: String, in reply: String) throws(AdapterError)
    -> Int64
  {
    let text: String
    switch value {
    case nil, .null?: return 0
    case .number(let number)?: text = number.text
    case .string(let string)?: text = string
    case let other?:
      throw AdapterError(
        "the provider's \(reply) has \(other.kindDescription) in \(member), expected a number of seconds"
      )
    }
    let whole = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let digits = { (part: Substring) in
      !part.isEmpty && part.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
    guard whole.count <= 2, digits(whole[0]), whole.count == 1 || digits(whole[1]),
      let seconds = Int64(whole[0])
    else {
      throw AdapterError(
        "the provider's \(reply) has \(member) \(Message.quoted(text, limit: 40)), expected a number of seconds"
      )
    }
    return seconds
  }

  /// Visible ASCII without spaces: what an Authorization header carries as it is (RFC 6750
  /// §2.1).
  static func isHeaderSafe(_ text: String) -> Bool {
    text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
  }
}

/// What an OAuth error from the token endpoint (or the device authorization endpoint) means to
/// `accounts`: a verdict on the password, an ended session, a client to fix, or the provider's
/// own words.
enum TokenErrors {
  static func outcome(_ error: OAuthError, of request: TokenRequest?, grant: Grant) -> StepResult {
    switch (error.code, request) {
    case ("invalid_grant", .password?):
      return .wrongPassword("the provider rejected the user name or password (\(error.detail))")
    case ("invalid_grant", .refresh?):
      return .sessionExpired("the provider refused the refresh token (\(error.detail))")
    case ("invalid_client", .clientCredentials?):
      return .wrongPassword(
        "the provider rejected the client id or secret, the account's user name and password (\(error.detail))"
      )
    case ("invalid_client", _):
      return .error(
        "the provider rejected the client (\(error.detail)); check settings client_id and client_secret"
      )
    case ("unauthorized_client", _):
      return .error(
        "the provider does not allow this client grant \(grant.rawValue) (\(error.detail)); allow it for "
          + "the client at the provider, or check setting client_id")
    default:
      return .error("provider: \(error.detail)")
    }
  }

  /// A 401 without an OAuth error: the client's authentication failed (RFC 6749 §5.2).
  static func unauthorized(_ status: Int32) -> OAuthError {
    OAuthError(
      code: "invalid_client", shownCode: "invalid_client",
      description: "HTTP \(status) without an OAuth error",
      status: status)
  }
}
