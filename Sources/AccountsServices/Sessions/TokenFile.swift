import AccountsCore
import AccountsSystem
import Glibc
import SecretMemory

/// The file `--refresh` keeps a session's current token in, for the command it runs
/// ($ACCOUNTS_TOKEN_FILE): the token's bytes alone (no newline), 0600, replaced atomically at
/// every renewal (a reader sees the old token or the new, never a mix), in `tokens` of the
/// runtime directory (`RuntimeDirectory`: 0700, cleared at logout), and removed by the
/// refresher as soon as it sees the command has ended (a moment after, not before the
/// command's caller goes on).
public struct TokenFile: Sendable, Equatable {
  /// The variable that names the first (or only) file.
  public static let variable = "ACCOUNTS_TOKEN_FILE"
  /// `lease --refresh`: every leased account's file, one per line, in the order of ACCOUNTS_LEASED.
  public static let listVariable = "ACCOUNTS_TOKEN_FILES"

  public let path: String

  public init(path: String) { self.path = path }

  /// A new name in the token directory of `environment`, the directory checked (and created).
  public static func create(environment: [String: String], userID: uid_t = getuid()) throws -> TokenFile {
    let directory = try prepareDirectory(environment: environment, userID: userID)
    let name = SessionFlow.newGeneration()  // 16 random hex digits
    return TokenFile(path: directory + "/" + name + ".token")
  }

  /// The token directory of `environment`, checked and created 0700 when missing: the user's
  /// own, open to nobody else (one found with any access for group or others is refused, not
  /// changed: who made it so is not known), below directories only the user or root can change.
  @discardableResult
  public static func prepareDirectory(environment: [String: String], userID: uid_t = getuid()) throws -> String {
    let directory = try RuntimeDirectory.path(environment: environment, userID: userID) + "/tokens"
    _ = try PrivateDirectory(path: directory, userID: userID, closed: true).prepare(create: true)
    return directory
  }

  /// Replaces the file's content with `token`: a temporary file beside it (0600), fsync, rename.
  public func write(_ token: SecretBytes) throws(FileError) {
    var bytes = token.withUnsafeBytes { Array($0) }
    defer { wipe(&bytes) }
    try replaceDurably(path, with: bytes, syncingDirectory: false)  // the file lives as long as its command
  }

  /// Removes the file (and a temporary one a killed writer left); nothing there is fine.
  public func remove() {
    unlink(path + ".tmp")
    unlink(path)
  }
}
