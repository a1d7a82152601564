import AdapterKit
import SecretMemory

/// How requests to the provider's endpoints say which client sends them (RFC 6749 §2.3).
enum ClientAuthentication {
  /// A form POST to `url` authenticated as `client`: HTTP Basic when it has a secret
  /// (client_secret_basic), else client_id in the body (a public client); nil sends neither.
  /// `namesClient` puts client_id in the body even beside Basic, as RFC 8628's requests show it.
  static func post(
    _ url: String, _ fields: [FormField], as client: Client?, namesClient: Bool = false
  )
    -> Request
  {
    var fields = fields
    var credentials: [SecretPair] = []
    if let client {
      if let secret = client.secret {
        credentials.append(basic(id: client.id, secret: secret))
        if namesClient { fields.append(FormField("client_id", client.id)) }
      } else {
        fields.append(FormField("client_id", client.id))
      }
    }
    var request = FormRequest.make(method: "POST", url: url, fields)
    request.headers.append(accept)
    request.secretHeaders = credentials
    return request
  }

  /// `Authorization: Basic base64(id:secret)`, each form-encoded first (RFC 6749 §2.3.1), so a
  /// ":" in the id cannot split it.
  static func basic(id: String, secret: SecretBytes) -> SecretPair {
    SecretPair("Authorization", SecretBytes(concatenating: ["Basic ", basicCredentials(id: id, secret: secret)]))
  }

  /// What follows "Basic ": base64 of the form-encoded id and secret, itself a secret (a
  /// provider may echo the header back in its error text).
  static func basicCredentials(id: String, secret: SecretBytes) -> SecretBytes {
    Base64.encode(SecretBytes(concatenating: [FormEncoding.escaped(id), ":", FormEncoding.escaped(secret)]))
  }

  /// `Authorization: Bearer TOKEN` (RFC 6750 §2.1).
  static func bearer(_ token: String) -> SecretPair {
    SecretPair("Authorization", SecretBytes(concatenating: ["Bearer ", token]))
  }

  /// OAuth endpoints answer JSON; asking for it keeps some from answering HTML.
  static let accept = Pair("Accept", "application/json")
}
