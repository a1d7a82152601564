import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem

/// What `accounts lease` was asked for, checked before anything is taken.
struct LeaseRequest {
  /// The accounts to lease from, in the order they are tried: the named ones, or every saved
  /// account with each --tag (in the index's order).
  let candidates: [AccountID]
  let count: Int
  let waitMilliseconds: Int64
  /// The ttl the store is given (see below); nil for a lease held by CMD.
  let ttlSeconds: Double?
  /// How long a lease held by CMD in a shared store outlives a holder killed with SIGKILL:
  /// --ttl with CMD, else 30 s (the keeper renews it every third of it).
  let heldTTLMilliseconds: Int64
  let command: [String]
  /// `--refresh`: the leased sessions kept live while CMD runs.
  let refresh: SessionRefresh?

  init(_ invocation: Invocation, _ environment: Environment) throws {
    command = invocation.arguments(LeaseCommand.command)
    let selection = try AccountSelection(
      names: invocation.arguments(LeaseCommand.users), tags: invocation.values(LeaseCommand.tag),
      backend: invocation.backend)
    refresh = try SessionRefresh(invocation)
    if refresh != nil, command.isEmpty {
      throw CommandError.usage(
        "--refresh keeps sessions live while a command runs, and a detached lease has none",
        fix: "give the command to run after --, or refresh it with "
          + "`ACCOUNTS_LEASE_ID=ID accounts login --stale ACCOUNT` (the id the lease prints)")
    }
    count = invocation.number(LeaseCommand.count) ?? 1
    waitMilliseconds = invocation.milliseconds(LeaseCommand.wait) ?? 0
    let ttl = invocation.milliseconds(LeaseCommand.ttl)
    if ttl == 0 { throw CommandError.usage("--ttl 0 would end the lease at once", fix: "give --ttl like 30m") }
    if command.isEmpty, ttl == nil {
      throw CommandError.usage(
        "a lease without a command to run needs --ttl", fix: "give --ttl 30m, or the command to run after --")
    }
    // A held lease lasts as long as CMD (this machine's store has no ttl for it). A detached
    // one's `now` is counted in whole seconds, and the lease is taken up to a second after it:
    // one second more keeps it at least --ttl long, never ending while its holder counts on it.
    ttlSeconds = command.isEmpty ? ttl.map { Double($0) / 1000 + 1 } : nil
    heldTTLMilliseconds = command.isEmpty ? LeaseStores.defaultHeldTTLMilliseconds : max(ttl ?? LeaseStores.defaultHeldTTLMilliseconds, 300)
    candidates = try selection.ids(
      in: try environment.index.load(), configuration: try environment.config.load(), everyAccount: false,
      command: "lease", trailing: " -- CMD...")
    guard count <= candidates.count else {
      throw CommandError.usage(
        "cannot lease \(count) of \(counted(candidates.count, "account"))", fix: "lower --count or add accounts to the pool")
    }
  }
}
