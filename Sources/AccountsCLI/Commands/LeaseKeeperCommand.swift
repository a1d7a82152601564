import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc

/// `accounts __lease-keeper`: keeps a held lease of a shared store alive while its holders run
/// (see `LeaseKeeper`). Started by `launch`, never by people.
enum LeaseKeeperCommand {
  static let spec = CommandSpec.helper(
    "__lease-keeper", summary: "keep a held lease of a shared store alive while its holders run (used by lease)"
  ) { _ in
    LeaseKeeper.run(input: .standardInput) { line in
      try? FileDescriptor.standardError.writeAll(Array((line + "\n").utf8))
    }
  }

  /// Starts a keeper with `order` and returns the write end of the pipe it watches
  /// (close-on-exec: `LeaseGrant.inheritAcrossExec` hands it to the command).
  static func launch(_ order: [UInt8]) throws -> FileDescriptor {
    try HelperProcess.launch(spec.name, what: "the lease keeper", order: order)
  }
}
