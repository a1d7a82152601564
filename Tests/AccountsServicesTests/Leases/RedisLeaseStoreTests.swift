@testable import AccountsContract
@testable import AccountsCore
@testable import AccountsServices
import AccountsSystem
import Foundation
import TestSupport
import Testing

/// The Redis lease store and its keeper against a private `redis-server` on 127.0.0.1: every
/// change compares each key's value first, so nobody touches another holder's lease.
@Suite(.blocking) struct RedisLeaseStoreTests {
  /// A redis-server, and the keepers' pipes (no keeper process: the tests play its part).
  final class World {
    let directory: String
    let redis: RedisServer
    let address: RedisAddress
    var pipes: [FileDescriptor] = []

    init() throws {
      var template = Array(((ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/redis-lease.XXXXXX").utf8CString)
      guard let made = mkdtemp(&template) else { throw Errno.current }
      directory = String(cString: made)
      redis = try RedisServer(directory: directory)
      address = RedisAddress(endpoint: .tcp(host: "127.0.0.1", port: redis.port))
    }

    deinit {
      pipes.forEach { $0.close() }
      redis.stop()
      try? FileManager.default.removeItem(atPath: directory)
    }

    /// A store of backend corp's accounts whose held leases last `heldTTL` seconds unrenewed.
    func store(heldTTL: Int64 = 30) -> RedisLeaseStore {
      RedisLeaseStore(
        address: address, password: nil, timeoutMilliseconds: 5000, prefix: { _ in "accounts:lease:corp" },
        prefixes: ["accounts:lease:corp"], heldTTLMilliseconds: heldTTL * 1000,
        launchKeeper: { [self] _ in
          let (reading, writing) = try closeOnExecPipe()
          pipes.append(reading)
          return writing
        })
    }

    func call(_ words: String...) throws -> RedisValue {
      try RedisConnection(address, password: nil, timeoutMilliseconds: 5000).call(words)
    }

    func key(_ account: AccountID) -> String { "accounts:lease:corp:" + account.user }
  }

  @Test func detachingALeaseThatLostAKeyFailsWholeAndChangesNoKey() throws {
    let world = try World()
    let store = world.store()
    let grant = try #require(try store.take([qa(1), qa(2)]))
    let kept = try world.call("GET", world.key(qa(1)))
    let lifetime = try world.call("PTTL", world.key(qa(1)))
    _ = try world.call("DEL", world.key(qa(2)))  // expired while this command logged in

    #expect(throws: LeaseStoreUnavailable.self) { try store.detach(grant, ttl: 3600, now: leaseNow) }
    #expect(try world.call("GET", world.key(qa(1))) == kept, "qa1 still holds the held lease's record")
    guard case .integer(let before) = lifetime, case .integer(let after) = try world.call("PTTL", world.key(qa(1))) else {
      Issue.record("no ttl")
      return
    }
    #expect(after <= before && after <= 30_000, "qa1 keeps the held lease's ttl, not the detached lease's hour")
    #expect(try world.call("EXISTS", world.key(qa(2))) == .integer(0), "nothing wrote qa2 back")
  }

  @Test func theKeeperLeavesAKeyAnotherHolderTookAndSaysItLostTheLease() throws {
    let world = try World()
    let grant = try #require(try world.store().take([qa(1), qa(2)]))
    let values = try [qa(1), qa(2)].map { account in
      guard case .string(let bytes) = try world.call("GET", world.key(account)) else { throw Errno(ENOENT) }
      return bytes
    }
    // qa2's key expired and another holder took the account.
    _ = try world.call("SET", world.key(qa(2)), "{\"lease\":\"theirs\"}", "PX", "60000")
    var said: [String] = []
    var keeper = LeaseKeeper.Keeper(
      order: LeaseKeeper.Order(
        address: world.address, password: nil, ttlMilliseconds: 30_000, setAtNanoseconds: monotonicNanoseconds(),
        timeoutMilliseconds: 5000, lease: grant.lease, keys: [world.key(qa(1)), world.key(qa(2))], values: values),
      say: { said.append($0) })
    let renewed = keeper.renew()
    #expect(renewed, "the store answered")
    #expect(try world.call("GET", world.key(qa(2))) == .string(Array("{\"lease\":\"theirs\"}".utf8)), "left alone")
    if case .integer(let left) = try world.call("PTTL", world.key(qa(2))) {
      #expect(left > 30_000, "their expiry untouched, not the keeper's 30 s")
    } else {
      Issue.record("their key has no expiry")
    }
    #expect(try world.call("GET", world.key(qa(1))) == .string(values[0]), "its own key renewed")
    #expect(keeper.kept == [true, false])
    #expect(said.count == 1 && said[0].contains("lost the lease of accounts:lease:corp:qa2 (\(grant.lease))"), "\(said)")

    keeper.release()
    #expect(try world.call("EXISTS", world.key(qa(1))) == .integer(0), "its own key deleted at the end")
    #expect(try world.call("GET", world.key(qa(2))) == .string(Array("{\"lease\":\"theirs\"}".utf8)), "theirs stays")
    #expect(said.count == 1)
  }
}
