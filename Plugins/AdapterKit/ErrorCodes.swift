/// What a backend error code means to `accounts`.
public enum CodeOutcome: String, Sendable, CaseIterable {
  case expired
  case kicked
  case upgrade
  case wrongPassword = "wrong_password"
}

/// The `codes` setting: backend error codes (`err.code`) mapped to outcomes.
///
/// Written `CODE=OUTCOME,CODE=OUTCOME`, e.g. `-100=expired,-101=kicked,-99=upgrade` (the
/// default). Entries given are merged over the defaults: a backend that only renumbers
/// "kicked" writes `-102=kicked` and keeps the rest.
public struct ErrorCodes: Equatable, Sendable {
  /// The default mapping, which the seeds' backends use.
  public static let defaults = ErrorCodes(outcomes: [
    -100: .expired, -101: .kicked, -99: .upgrade,
  ])

  public private(set) var outcomes: [Int64: CodeOutcome]

  public init(outcomes: [Int64: CodeOutcome]) {
    self.outcomes = outcomes
  }

  /// The defaults with the entries of `text` merged over them. Spaces around entries, codes
  /// and outcomes are ignored, and so are empty entries (a trailing comma).
  public init(parsing text: String) throws(AdapterError) {
    self = .defaults
    for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
      let trimmedEntry = Self.trimmed(entry)
      if trimmedEntry.isEmpty { continue }
      let parts = trimmedEntry.split(separator: "=", omittingEmptySubsequences: false)
      guard parts.count == 2, let code = Self.code(Self.trimmed(parts[0])),
        let outcome = CodeOutcome(rawValue: Self.trimmed(parts[1]))
      else {
        throw AdapterError(
          "setting codes has the unknown entry \(Message.quoted(trimmedEntry)); accepted: "
            + "CODE=OUTCOME with an integer CODE and OUTCOME one of "
            + CodeOutcome.allCases.map(\.rawValue).joined(separator: ", "))
      }
      outcomes[code] = outcome
    }
  }

  /// The outcome `code` stands for, or nil when it is not mapped.
  public subscript(code: Int64) -> CodeOutcome? { outcomes[code] }

  /// An optional "-", then decimal digits that fit in 64 bits.
  private static func code(_ text: String) -> Int64? {
    let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
      return nil
    }
    return Int64(text)
  }

  private static func trimmed(_ text: some StringProtocol) -> String {
    var scalars = Substring(text).unicodeScalars
    while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
    while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
    return String(scalars)
  }
}
