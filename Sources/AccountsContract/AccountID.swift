/// An account is a user on a backend, written `user@backend`. A user name may itself contain
/// `@` (an e-mail address); the backend is what follows the last `@`.
public struct AccountID: Hashable, Comparable, Sendable, CustomStringConvertible {
  public let user: String
  public let backend: String

  public init(user: String, backend: String) {
    self.user = user
    self.backend = backend
  }

  /// `user@backend`
  public var description: String { "\(user)@\(backend)" }

  /// `user@backend` read back: the backend is what follows the last `@`; nil without one, or
  /// with nothing on either side.
  public init?(parsing text: String) {
    guard let at = text.lastIndex(of: "@"), at != text.startIndex, text.index(after: at) != text.endIndex
    else { return nil }
    self.init(user: String(text[..<at]), backend: String(text[text.index(after: at)...]))
  }

  public static func < (lhs: AccountID, rhs: AccountID) -> Bool {
    (lhs.user, lhs.backend) < (rhs.user, rhs.backend)
  }
}
