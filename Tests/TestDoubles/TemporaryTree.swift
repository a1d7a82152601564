import AccountsCore
import Foundation

/// A fresh XDG tree under the system's temporary directory, removed at the end: the
/// configuration, state and data directories accounts uses, none created yet.
public final class TemporaryTree {
  public let root: String
  public let paths: Paths

  public init() throws {
    root = NSTemporaryDirectory() + "accounts-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    paths = Paths(
      configDirectory: root + "/config/accounts", stateDirectory: root + "/state/accounts",
      dataDirectory: root + "/data/accounts")
  }

  deinit { try? FileManager.default.removeItem(atPath: root) }

  /// The permission bits of `path`.
  public func mode(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
  }
}
