import AccountsServices
import Glibc

extension CommandSpec {
  /// A helper process accounts starts itself (never listed): it leaves the caller's terminal
  /// and process group, runs `body` and ends the process with the status `body` returns.
  static func helper(
    _ name: String, summary: String, body: @escaping @Sendable (Environment) -> Int32
  ) -> CommandSpec {
    CommandSpec(name, summary: summary, hidden: true) { _, environment in
      HelperProcess.detach()
      _exit(body(environment))
    }
  }
}
