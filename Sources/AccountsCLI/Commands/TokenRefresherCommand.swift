import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc

/// `accounts __token-refresher`: keeps the sessions of `exec --refresh` and `lease --refresh`
/// live while their command runs (see `TokenRefresher`). Started by `SessionRefresh`, never by
/// people.
enum TokenRefresherCommand {
  static let spec = CommandSpec.helper(
    "__token-refresher",
    summary: "keep sessions and their token files live while a command runs (used by exec and lease --refresh)"
  ) { environment in
    TokenRefresher.run(
      input: .standardInput,
      makeFlow: { order in
        // Renewals are the point, not news: only failures are said (by the refresher).
        var flow = try environment.sessionFlow(timeout: Double(order.timeoutMilliseconds) / 1000, notice: { _ in })
        flow.heldLeases.merge(order.heldLeases) { _, ordered in ordered }
        return flow
      },
      // Through the command's own stderr: fd 2 is the adapters' once one is loaded.
      say: { environment.output.failure($0) })
  }
}
