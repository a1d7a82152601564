import AccountsContract
import AccountsJSON

/// Reads the index straight from its bytes into accounts, without a JSON tree, when it has the
/// shape accounts writes: known members only, each once; strings of printable ASCII without
/// escapes; every name and time valid. `list` and completion read the index of thousands of
/// accounts on every run, and the tree (one object, one array and several strings per account,
/// built and then freed) was most of their time.
///
/// Anything else (a member a newer version wrote, a name in another script, an escape, a
/// mistake) gives nil, and `IndexFormat` reads the file the general way, which keeps unknown
/// members and names every error. So this reader decides nothing: what it accepts, the general
/// reader accepts with the same result (IndexFastReaderTests checks both on the same files).
struct IndexFastReader {
  private let bytes: UnsafeBufferPointer<UInt8>
  private var index = 0

  static func read(_ bytes: [UInt8]) -> AccountBook? {
    bytes.withUnsafeBufferPointer { buffer in
      var reader = IndexFastReader(bytes: buffer)
      return reader.book()
    }
  }

  private init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  private mutating func book() -> AccountBook? {
    var version = false
    var accounts: [Account]?
    var autoLogin: AccountID??
    var previousAutoLogin: AccountID??
    var unsettled: [AccountID]?
    var secretService: String??
    let complete = members { key, reader in
      switch reader.known(key) {
      case .version where !version:
        version = reader.literal("1") && !reader.digitFollows()
        return version
      case .autoLogin where autoLogin == nil:
        autoLogin = reader.optionalAccountID()
        return autoLogin != nil
      case .previousAutoLogin where previousAutoLogin == nil:
        previousAutoLogin = reader.optionalAccountID()
        return previousAutoLogin != nil
      case .accounts where accounts == nil:
        // Room for as many accounts as the file could hold (each takes more than 64 bytes):
        // pages never written cost nothing, and the array is not copied as it grows.
        accounts = reader.elements(reserving: reader.bytes.count / 64) { $0.account() }
        return accounts != nil
      case .unsettled where unsettled == nil:
        if reader.literal("null") {
          unsettled = []
        } else {
          unsettled = reader.elements { reader in reader.string().flatMap(IndexFormat.validAccountID) }
        }
        return unsettled != nil
      case .secretService where secretService == nil:
        secretService = reader.optionalString()
        return secretService != nil
      default:
        return false
      }
    }
    skipWhitespace()
    guard complete, index == bytes.count, version, let accounts else { return nil }
    return try? AccountBook(
      accounts: accounts, autoLogin: autoLogin ?? nil, previousAutoLogin: previousAutoLogin ?? nil,
      unsettled: unsettled ?? [], secretService: secretService ?? nil)
  }

  private mutating func account() -> Account? {
    var user: String?
    var backend: String?
    var remembered: Bool?
    var addedAt: Timestamp??
    var lastLogin: Timestamp??
    var token: TokenRecord??
    var session: [String: String]?
    var tags: [String]?
    var otp: Bool?
    let complete = members { key, reader in
      switch reader.known(key) {
      case .user where user == nil:
        user = reader.string()
        return user.map(Names.isValidUser) ?? false
      case .backend where backend == nil:
        backend = reader.string()
        return backend.map(Names.isBackendName) ?? false
      case .remembered where remembered == nil:
        remembered = reader.literal("true") ? true : reader.literal("false") ? false : nil
        return remembered != nil
      case .addedAt where addedAt == nil:
        addedAt = reader.optionalTimestamp()
        return addedAt != nil
      case .lastLogin where lastLogin == nil:
        lastLogin = reader.optionalTimestamp()
        return lastLogin != nil
      case .token where token == nil:
        token = reader.literal("null") ? .some(nil) : reader.token().map { .some($0) }
        return token != nil
      case .session where session == nil:
        session = reader.literal("null") ? [:] : reader.session()
        return session != nil
      case .tags where tags == nil:
        tags = reader.literal("null") ? [] : reader.elements { $0.string().flatMap { Tags.isValid($0) ? $0 : nil } }
        return tags != nil
      case .otp where otp == nil:
        otp = reader.literal("true") ? true : reader.literal("false") ? false : nil
        return otp != nil
      default:
        return false
      }
    }
    guard complete, let user, let backend, let remembered, let addedAt = addedAt ?? nil else { return nil }
    return Account(
      id: AccountID(user: user, backend: backend), remembered: remembered, token: token ?? nil,
      lastLogin: lastLogin ?? nil, addedAt: addedAt, session: session ?? [:], tags: tags ?? [], otp: otp ?? false)
  }

  private mutating func token() -> TokenRecord? {
    var expiresAt: Timestamp??
    var generation: String??
    var refreshable: Bool?
    let complete = members { key, reader in
      switch reader.known(key) {
      case .expiresAt where expiresAt == nil:
        expiresAt = reader.optionalTimestamp()
        return expiresAt != nil
      case .generation where generation == nil:
        generation = reader.optionalString()
        return generation != nil
      case .refresh where refreshable == nil:
        refreshable = reader.literal("true") ? true : reader.literal("false") ? false : nil
        return refreshable != nil
      default:
        return false
      }
    }
    guard complete else { return nil }
    return TokenRecord(expiresAt: expiresAt ?? nil, generation: generation ?? nil, refreshable: refreshable ?? false)
  }

  private mutating func session() -> [String: String]? {
    var session: [String: String] = [:]
    let complete = members { key, reader in
      guard let value = reader.string() else { return false }
      return session.updateValue(value, forKey: reader.text(key)) == nil
    }
    return complete ? session : nil
  }

  // MARK: Grammar

  /// The members the index has, by name.
  private enum Key: String, CaseIterable {
    case version, accounts, unsettled, user, backend, remembered, token, session, generation, tags, otp, refresh
    case autoLogin = "auto_login", previousAutoLogin = "previous_auto_login", secretService = "secret_service"
    case addedAt = "added_at", lastLogin = "last_login", expiresAt = "expires_at"

    /// The keys by their length in bytes, spelled as bytes.
    static let byLength: [[(key: Key, bytes: [UInt8])]] = {
      var table = [[(key: Key, bytes: [UInt8])]](repeating: [], count: 20)
      for key in allCases { table[key.rawValue.utf8.count].append((key, Array(key.rawValue.utf8))) }
      return table
    }()
  }

  /// The member a key names, compared as bytes: no string is made for a key.
  private func known(_ key: Range<Int>) -> Key? {
    guard key.count < Key.byLength.count else { return nil }
    search: for candidate in Key.byLength[key.count] {
      for (offset, byte) in candidate.bytes.enumerated() where bytes[key.lowerBound + offset] != byte {
        continue search
      }
      return candidate.key
    }
    return nil
  }

  private func text(_ range: Range<Int>) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  /// `{ "key": value, ... }`: `member` reads each value and fails for a key it does not take.
  private mutating func members(_ member: (Range<Int>, inout IndexFastReader) -> Bool) -> Bool {
    guard take(UInt8(ascii: "{")) else { return false }
    if take(UInt8(ascii: "}")) { return true }
    repeat {
      guard let key = stringBytes(), take(UInt8(ascii: ":")) else { return false }
      skipWhitespace()
      guard member(key, &self) else { return false }
    } while take(UInt8(ascii: ","))
    return take(UInt8(ascii: "}"))
  }

  /// `[ element, ... ]`
  private mutating func elements<Element>(
    reserving capacity: Int = 0, _ element: (inout IndexFastReader) -> Element?
  ) -> [Element]? {
    guard take(UInt8(ascii: "[")) else { return nil }
    var result: [Element] = []
    result.reserveCapacity(capacity)
    if take(UInt8(ascii: "]")) { return result }
    repeat {
      skipWhitespace()
      guard let next = element(&self) else { return nil }
      result.append(next)
    } while take(UInt8(ascii: ","))
    return take(UInt8(ascii: "]")) ? result : nil
  }

  /// A string of printable ASCII other than `"` and `\`.
  private mutating func string() -> String? {
    stringBytes().map(text)
  }

  private mutating func stringBytes() -> Range<Int>? {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
    let start = index + 1
    var end = start
    while end < bytes.count {
      let byte = bytes[end]
      if byte == UInt8(ascii: "\"") {
        index = end + 1
        return start..<end
      }
      guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
      end += 1
    }
    return nil
  }

  /// A string or null: .some(nil) for null, nil when it is neither.
  private mutating func optionalString() -> String?? {
    literal("null") ? .some(nil) : string().map { .some($0) }
  }

  private mutating func optionalTimestamp() -> Timestamp?? {
    if literal("null") { return .some(nil) }
    guard let range = stringBytes(), let seconds = Timestamp.parse(UnsafeBufferPointer(rebasing: bytes[range])) else {
      return nil
    }
    return .some(Timestamp(secondsSince1970: seconds))
  }

  private mutating func optionalAccountID() -> AccountID?? {
    if literal("null") { return .some(nil) }
    return string().flatMap(IndexFormat.validAccountID).map { .some($0) }
  }

  /// Takes `word` (`null`, `true`, `1`) when it comes next.
  private mutating func literal(_ word: StaticString) -> Bool {
    skipWhitespace()
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count else { return false }
    for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
    if word.utf8Start[0] >= UInt8(ascii: "a"), index + count < bytes.count, isLetter(bytes[index + count]) {
      return false  // `nullx`
    }
    index += count
    return true
  }

  private func digitFollows() -> Bool {
    index < bytes.count && (bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
      || bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e"))
  }

  private func isLetter(_ byte: UInt8) -> Bool { byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z") }

  /// Takes `byte`, after any whitespace, when it comes next.
  private mutating func take(_ byte: UInt8) -> Bool {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x0A, 0x0D, 0x09: index += 1
      default: return
      }
    }
  }
}
