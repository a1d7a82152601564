import Foundation
import TestSupport
import Testing

extension Fixture {
  /// Machines that share one lease store: a private redis-server and one test backend (with its
  /// single sign-on), and per machine a sandbox (its own HOME, keyring and runtime directory)
  /// with backend corp on that backend, lease_store naming the Redis, and `users` saved with
  /// remembered passwords, each tagged qa. With `password`, Redis asks for it (requirepass) and
  /// each machine keeps it as corp's secret setting lease_store_password.
  static func sharingRedis(machines: Int = 2, users: [String] = ["qa1", "qa2"], password: String? = nil) throws
    -> Fixture
  {
    try Fixture(machines: machines).serving(users: users)
      .addingServedBackend("corp", settings: ["check_path=check"])
      .runningRedis(password: password).leasingInRedis().saving(users, tags: ["qa"])
  }

  /// The first machine.
  var a: Sandbox { machines[0] }

  /// Machine A holding qa1 for a command, the held lease's ttl `ttl`, once its keeper renews it
  /// (it connects to Redis at its first renewal); `release` ends the command and waits for it.
  func renewedLease(ttl: String) throws -> (holder: Holder, release: () -> Void) {
    let root = a.keyring.root
    let holder = try a.holding(["qa1", "--ttl", ttl], ready: root + "/ready", release: root + "/go")
    let release = {
      FileManager.default.createFile(atPath: root + "/go", contents: nil)
      _ = try? holder.finish()
    }
    #expect(waitUntil(seconds: 30) { ((try? connectionsToRedis()) ?? []).count >= 1 }, "renewing")
    return (holder, release)
  }

  /// The second machine.
  var b: Sandbox { machines[1] }

  /// The descriptors (`socket:[INODE]`) of the established TCP connections to the Redis, from
  /// /proc/net/tcp.
  func connectionsToRedis() throws -> Set<String> {
    let port = String(format: ":%04X", redis.port)
    let table = procFile("/proc/net/tcp").split(separator: "\n").dropFirst()
    return Set(
      table.map { $0.split(separator: " ") }.filter { $0.count > 9 && $0[2].hasSuffix(port) && $0[3] == "01" }.map {
        "socket:[\($0[9])]"
      })
  }

  /// Waits (10 s at most) until no lease key is left: a keeper deletes its keys a moment after
  /// the lease's processes have exited.
  func leaseKeysGone() -> Bool {
    waitUntil(seconds: 10) { (try? leaseKeys()) == [] }
  }

  /// PTTL of `key`: the milliseconds it has left, -2 when it is gone.
  func millisecondsLeft(_ key: String) -> Int {
    Int((try? redis.cli(["PTTL", key]))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -3
  }

  /// The lease keys in Redis (fence counters aside).
  func leaseKeys() throws -> [String] {
    try redis.cli(["--scan", "--pattern", "accounts:lease:*"]).split(separator: "\n").map(String.init)
      .filter { !$0.hasSuffix(":fence") }.sorted()
  }
}

extension Sandbox {
  /// `leases --json`.
  func leases() throws -> [[String: Any]] {
    try #require(try json(["leases", "--json"]) as? [[String: Any]])
  }

  /// `lease ARGUMENTS -- sh -c SCRIPT` in the background: its command writes its account and
  /// fence to `ready`, then waits until `release` exists (60 s at most) and exits `status`.
  func holding(_ arguments: [String], ready: String, release: String, status: Int = 0) throws -> Holder {
    let script = """
      printf '%s %s\\n' "$ACCOUNTS_ACCOUNT" "$ACCOUNTS_LEASE_FENCE" > "$0.tmp" && mv "$0.tmp" "$0"
      i=0; while [ ! -e "$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
      exit "$2"
      """
    let holder = try Holder(
      self, ["lease"] + arguments + ["--", "/bin/sh", "-c", script, ready, release, String(status)])
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: ready) || !holder.process.isRunning })
    return holder
  }
}
