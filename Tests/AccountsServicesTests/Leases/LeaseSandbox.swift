@testable import AccountsServices
@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Foundation
import TestSupport
import Testing

/// The suites of this machine's lease store, one at a time: a child spawned by one test holds
/// copies of this process's descriptors from fork to exec, close-on-exec or not, and for that
/// instant keeps another test's just-ended lease alive. (`accounts` spawns its commands from one
/// thread.)
@Suite(.serialized) struct LocalLeaseTests {}

/// A fresh lease directory per test, under the private temporary directory: its parent is made
/// 0700 so that the store's checks of the directories above pass.
struct LeaseSandbox {
  let root: String
  var directory: String { root + "/leases" }

  init() throws {
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array((base + "/lease-test.XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw Errno.current }
    root = String(cString: made)
  }

  /// A store whose fences count from 1 (`fenceFloor`: the clock they are at least, 0 here).
  func store(fenceFloor: @escaping () -> Int64 = { 0 }) -> LocalLeaseStore {
    LocalLeaseStore(directory: directory, fenceFloor: fenceFloor)
  }

  func remove() { try? FileManager.default.removeItem(atPath: root) }
}

let leaseNow = Timestamp(secondsSince1970: 1_800_000_000)
let probeHolder = LeaseHolder(host: "test-host", pid: 4242)

func qa(_ number: Int) -> AccountID { AccountID(user: "qa\(number)", backend: "corp") }

extension LeaseStore {
  /// A held (ttl nil) or detached lease of `count` of `accounts`, or nil when busy.
  func take(
    _ accounts: [AccountID], count: Int? = nil, ttl: Double? = nil, now: Timestamp = leaseNow
  ) throws -> LeaseGrant? {
    guard
      case .granted(let grant) = try tryAcquire(
        accounts, count: count ?? accounts.count, holder: probeHolder, ttl: ttl, now: now)
    else { return nil }
    return grant
  }

  /// The busy candidates of an attempt that must fail.
  func busy(_ accounts: [AccountID], count: Int? = nil, now: Timestamp = leaseNow) throws -> [BusyAccount]? {
    guard
      case .busy(let busy) = try tryAcquire(
        accounts, count: count ?? accounts.count, holder: probeHolder, ttl: nil, now: now)
    else { return nil }
    return busy
  }
}

/// Starts `arguments[0]` with `descriptors` inherited (dup2 onto themselves: close-on-exec is
/// cleared in the child only, so no other test's child inherits them); its stdin and stdout
/// are `input` and `output` when given, else /dev/null, its stderr /dev/null. posix_spawn
/// rather than Foundation's Process, which would reap the child itself.
func spawnInheriting(
  _ descriptors: [Int32], _ arguments: [String], input: Int32? = nil, output: Int32? = nil
) throws -> pid_t {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  for (standard, given) in [(Int32(0), input), (1, output), (2, nil)] {
    if let given {
      posix_spawn_file_actions_adddup2(&actions, given, standard)
    } else {
      posix_spawn_file_actions_addopen(&actions, standard, "/dev/null", standard == 0 ? O_RDONLY : O_WRONLY, 0)
    }
  }
  for descriptor in descriptors { posix_spawn_file_actions_adddup2(&actions, descriptor, descriptor) }
  // Signals as a fresh program expects them, whatever the test thread blocks.
  var attributes = posix_spawnattr_t()
  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var none = sigset_t()
  sigemptyset(&none)
  posix_spawnattr_setsigmask(&attributes, &none)
  posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
  let argv = arguments.map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var child = pid_t()
  let result = posix_spawn(&child, arguments[0], &actions, &attributes, argv, environ)
  guard result == 0 else { throw Errno(result) }
  return child
}

/// A pipe whose ends are close-on-exec (a child gets an end only through dup2), as raw numbers.
func closeOnExecPipeEnds() throws -> (read: Int32, write: Int32) {
  let (reading, writing) = try closeOnExecPipe()
  return (reading.rawValue, writing.rawValue)
}

/// Everything a descriptor gives until its end.
func readToEnd(_ descriptor: Int32) throws -> String {
  String(decoding: try FileDescriptor(rawValue: descriptor).readAll(limit: 1 << 20) ?? [], as: UTF8.self)
}

/// Waits for a child of this process and returns its wait status.
@discardableResult
func reap(_ pid: pid_t) -> Int32 {
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0, errno == EINTR {}
  return status
}

/// The built LeaseProbe executable.
var leaseProbe: String { PackagePaths.products.appendingPathComponent("LeaseProbe").path }
