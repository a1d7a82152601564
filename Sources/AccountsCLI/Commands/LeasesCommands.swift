import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import AccountsJSON

/// `accounts release LEASE_ID`: ends a detached lease early.
enum ReleaseCommand {
  static let spec = CommandSpec(
    "release",
    summary: "end a detached lease early",
    discussion: """
      Ends the detached lease LEASE_ID (from `accounts lease --ttl`) and frees its accounts. An \
      id that names no live detached lease (unknown, mistyped, expired, or a lease held by a \
      running command, which ends with it) is an error, and nothing is freed. With --json: \
      {"lease": ID, "accounts": [...]}.
      """,
    arguments: [lease],
    examples: [("accounts release \"$LEASE\"", "give the accounts back")],
    handler: run)

  static let lease = ArgumentSpec("LEASE_ID", help: "the id `accounts lease --ttl` printed")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let id = invocation.argument(lease)!
    let freed = try release(id, in: environment.leaseStores().all(), now: environment.now())
    if invocation.json {
      environment.output.writeJSON(
        .object(["lease": .string(id), "accounts": .array(freed.map { .string($0.description) })]))
    } else {
      environment.output.message("released \(freed.map(\.description).joined(separator: ", "))")
    }
  }

  /// Releases `id` in the store that knows it. A store that cannot be asked is an error only
  /// when no other store knows the lease.
  static func release(_ id: String, in stores: [LeaseStore], now: Timestamp) throws -> [AccountID] {
    var unavailable: (any Error)?
    var answer: (any Error)?
    for store in stores {
      do {
        return try store.release(lease: id, now: now)
      } catch LeaseError.unknown {
        continue
      } catch let error as LeaseStoreUnavailable {
        unavailable = unavailable ?? error
      } catch {
        answer = answer ?? error
      }
    }
    throw answer ?? unavailable ?? LeaseError.unknown(lease: id)
  }
}

/// `accounts leases`: who holds what.
enum LeasesCommand {
  static let spec = CommandSpec(
    "leases",
    summary: "show the live leases: account, lease, holder, since, expiry, fence",
    discussion: """
      Shows every live lease of this machine's store and of each shared store a backend or \
      ACCOUNTS_LEASE_STORE names (only that one when it is set), one line per account held: the lease's id, its \
      holder (host:pid of the process that took it), since when, until when (- for a lease \
      held by a running command) and its fencing number. With --json: an array of objects \
      with the keys account, lease, holder, since, expires_at (null for a held lease) and \
      fence.
      """,
    examples: [("accounts leases", "who holds which account")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let now = environment.now()
    let records = try environment.leaseStores().all().flatMap { try $0.leases(now: now) }.sorted { $0.account < $1.account }
    if invocation.json {
      environment.output.writeJSON(.array(records.map(json)))
    } else if records.isEmpty {
      environment.output.message("no leases")
    } else {
      var rows = [["ACCOUNT", "LEASE", "HOLDER", "SINCE", "EXPIRES", "FENCE"]]
      for record in records {
        rows.append([
          record.account.description, record.lease, record.holder.description, LocalTime.format(record.since),
          record.expiresAt.map { LocalTime.format($0) } ?? "-", String(record.fence),
        ])
      }
      environment.output.write(TextTable.render(rows))
    }
  }

  static func json(_ record: LeaseRecord) -> JSONValue {
    .object([
      "account": .string(record.account.description), "lease": .string(record.lease),
      "holder": .string(record.holder.description), "since": .string(record.since.iso8601),
      "expires_at": record.expiresAt.map { .string($0.iso8601) } ?? .null, "fence": .number(JSONNumber(Int64(record.fence))),
    ])
  }
}

/// `--force` of `remove` and `clear`: forget leased accounts too.
enum LeaseGuard {
  static let force = OptionSpec("force", help: "forget leased accounts too (their holders keep running)")

  /// Refuses to forget accounts a live lease holds (exit 1, naming the holder), unless --force
  /// (`SessionRules`). A store that cannot be read refuses too: forgetting an account a worker
  /// holds breaks it.
  static func check(_ ids: [AccountID], _ invocation: Invocation, _ environment: Environment) throws {
    let forced = invocation.isSet(force)
    guard !forced else { return }
    let leases = try environment.leaseStores().leases(of: ids, now: environment.now())
    let refusals = ids.compactMap { id in
      SessionFailure(
        refusing: .forget, of: id,
        next: SessionRules.refusal(of: .forget, lease: LeaseStanding(of: id, record: leases[id], held: [:]), forced: forced),
        forcing: .thisCommand)
    }
    guard let first = refusals.first else { return }
    guard refusals.count > 1 else { throw first }
    throw CommandError(first.status, first.message + " (and \(counted(refusals.count - 1, "more account")))", fix: first.fix)
  }
}
