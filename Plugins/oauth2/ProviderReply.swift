import AccountsJSON
import AdapterKit
import SecretMemory

/// An OAuth endpoint's answer, sorted: a JSON object, an OAuth error (RFC 6749 §5.2), or
/// something else, said in one line.
///
/// Everything the provider wrote is untrusted: it reaches messages on one line, bounded, with
/// the request's secrets cut out.
enum ProviderReply {
  /// A 2xx answer whose body is a JSON object without `error`.
  case object(JSONObject)
  /// `{"error": CODE, "error_description": TEXT}`, whatever the status.
  case error(OAuthError)
  /// A redirect, HTML, not JSON, nothing, or an error status without an OAuth error.
  case unreadable(String)

  /// Sorts the answer `who` (e.g. "the token endpoint") gave; `setting` is what to check when
  /// it redirects.
  static func read(
    _ response: Response, from who: String, check setting: String, secrets: [SecretBytes]
  )
    -> ProviderReply
  {
    if let redirect = Redirect.message(response, from: who, check: setting) {
      return .unreadable(redirect)
    }
    let parsed = try? JSON.parse(response.body)
    if case .object(let object)? = parsed {
      if case .string(let code)? = object["error"] {
        let description: String =
          if case .string(let text)? = object["error_description"] { text } else { "" }
        return .error(
          OAuthError(
            code: code, shownCode: clean(code, limit: 80, secrets),
            description: clean(description, limit: 300, secrets), status: response.status))
      }
      if (200...299).contains(response.status) { return .object(object) }
      return .unreadable(
        "\(who) answered \(whatCame(response, secrets: secrets)) without an OAuth error")
    }
    let kind = parsed == nil ? "JSON" : "a JSON object"
    return .unreadable("\(who) answered \(whatCame(response, secrets: secrets)), not \(kind)")
  }

  /// "HTTP 502 (text/html): "<html> <head>…"", or "HTTP 200 with an empty body".
  static func whatCame(_ response: Response, secrets: [SecretBytes]) -> String {
    let type = response.headers.first { $0.name == "content-type" }.map {
      Message.oneLine($0.value, limit: 60)
    }
    var text = "HTTP \(response.status)"
    if let type, !type.isEmpty { text += " (\(type))" }
    let excerpt = Message.excerpt(response.body, limit: 80, redacting: secrets)
    return text
      + (excerpt.isEmpty ? " with an empty body" : ": " + Message.quoted(excerpt, limit: 90))
  }

  /// Provider text for a message: one line, bounded, secrets cut out.
  static func clean(_ text: String, limit: Int, _ secrets: [SecretBytes]) -> String {
    Message.excerpt(Array(text.utf8), limit: limit, redacting: secrets)
  }
}

/// An OAuth error response (RFC 6749 §5.2).
struct OAuthError: Equatable {
  /// As the provider wrote it, to compare with the codes the RFCs define; never shown.
  let code: String
  /// The code cleaned for a message.
  let shownCode: String
  /// Cleaned for a message.
  let description: String
  let status: Int32

  /// "invalid_grant: Invalid credentials given.", or the code alone.
  var detail: String { description.isEmpty ? shownCode : "\(shownCode): \(description)" }
}
