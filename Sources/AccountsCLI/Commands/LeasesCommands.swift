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
      held by a running command) and its fencing number.

      A held lease of a shared store whose keeper process has missed its renewals (less than \
      half its ttl left: the keeper was killed, stopped, or cut off from the store) shows \
      "TIME (keeper overdue)" as its expiry, the moment it runs out unless renewed, and is \
      warned about on stderr: after that another holder may take its account. A key under a \
      store's prefix that holds no lease accounts wrote (another type, a value longer than \
      any record, which is never read whole, a name that is not UTF-8, shown escaped) is shown \
      as an unreadable row and warned about, \
      naming the key and the fix; the other leases are shown all the same. A shared store \
      must answer all that reading its leases asks within ACCOUNTS_NETWORK_TIMEOUT: else \
      exit 8.

      With --json: an array of objects with the keys account, lease, holder, since, \
      expires_at (null for a held lease), fence, keeper ("renewing" or "overdue" for a held \
      lease of a shared store, else null) and lapses_at (when an overdue lease runs out, \
      else null); an unreadable key is an object with key and unreadable (why, and the fix) \
      and the other keys null.
      """,
    examples: [("accounts leases", "who holds which account")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let now = environment.now()
    let surveys = try environment.leaseStores().all().map { try $0.survey(now: now) }
    let records = surveys.flatMap(\.records).sorted { $0.account < $1.account }
    let unreadable = surveys.flatMap(\.unreadable)
    for lost in unreadable {
      environment.output.warning(lost.problem.explanation)
    }
    for record in records {
      guard let lapsesAt = record.lapsesAt else { continue }
      environment.output.warning(
        "lease \(record.lease) of \(record.account): its keeper has not renewed it (it was killed, stopped, or cut "
          + "off from the store); it runs out at \(LocalTime.format(lapsesAt)), and another holder may then take the "
          + "account (ACCOUNTS_LEASE_FENCE tells)")
    }
    if invocation.json {
      environment.output.writeJSON(.array(records.map(json) + unreadable.map(json)))
    } else if records.isEmpty && unreadable.isEmpty {
      environment.output.message("no leases")
    } else {
      var rows = [["ACCOUNT", "LEASE", "HOLDER", "SINCE", "EXPIRES", "FENCE"]]
      for record in records {
        let expiry = record.expiresAt ?? record.lapsesAt
        rows.append([
          record.account.description, record.lease, record.holder.description, LocalTime.format(record.since),
          expiry.map { LocalTime.format($0) + (record.lapsesAt == nil ? "" : " (keeper overdue)") } ?? "-",
          String(record.fence),
        ])
      }
      for lost in unreadable { rows.append([lost.place, "unreadable", "-", "-", "-", "-"]) }
      environment.output.write(TextTable.render(rows))
    }
  }

  static func json(_ record: LeaseRecord) -> JSONValue {
    let keeper: JSONValue =
      record.keeperTTLMilliseconds == nil ? .null : .string(record.lapsesAt == nil ? "renewing" : "overdue")
    return .object([
      "account": .string(record.account.description), "lease": .string(record.lease),
      "holder": .string(record.holder.description), "since": .string(record.since.iso8601),
      "expires_at": record.expiresAt.map { .string($0.iso8601) } ?? .null, "fence": .number(JSONNumber(Int64(record.fence))),
      "keeper": keeper, "lapses_at": record.lapsesAt.map { .string($0.iso8601) } ?? .null,
    ])
  }

  static func json(_ lost: UnreadableLease) -> JSONValue {
    var object: JSONObject = [:]
    for key in ["account", "lease", "holder", "since", "expires_at", "fence", "keeper", "lapses_at"] { object[key] = .null }
    object["key"] = .string(lost.place)
    object["unreadable"] = .string(lost.problem.explanation)
    return .object(object)
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
