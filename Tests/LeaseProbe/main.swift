// A process that takes leases, for the lease store's tests: the properties under test are about
// processes (a lock inherited by a child, an acquirer that exits), so the tests run these.
//
//   LeaseProbe take DIR WITNESS ACCOUNT...   retries until it holds one of the accounts, then
//                                            appends "enter ACCOUNT PID" and "leave ACCOUNT PID"
//                                            lines to WITNESS (O_APPEND) around a brief hold
//   LeaseProbe spawn DIR ACCOUNT PROGRAM ARG...  takes ACCOUNT (exit 10 when busy), starts
//                                            PROGRAM inheriting the lease's descriptors (stdin
//                                            shared, stdout and stderr /dev/null), prints
//                                            "FENCE CHILD_PID" and exits without waiting
//   LeaseProbe release DIR LEASE NOW         releases LEASE at NOW (seconds since 1970); prints
//                                            the accounts freed, or the error (exit 1)
import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc

func account(_ text: String) -> AccountID {
  let at = text.lastIndex(of: "@")!
  return AccountID(user: String(text[..<at]), backend: String(text[text.index(after: at)...]))
}

func pause(milliseconds: Int) {
  var request = timespec(tv_sec: 0, tv_nsec: milliseconds * 1_000_000)
  nanosleep(&request, nil)
}

func append(_ line: String, to file: FileDescriptor) {
  try! file.writeAll(Array(line.utf8))  // one write(2) per line: O_APPEND keeps lines whole
}

let arguments = CommandLine.arguments
let store = LocalLeaseStore(directory: arguments[2])
switch arguments[1] {
case "take":
  let witness = try! FileDescriptor.open(arguments[3], O_WRONLY | O_APPEND)
  let candidates = arguments[4...].map(account)
  for _ in 0..<20_000 {
    guard
      case .granted(let grant) = try! store.tryAcquire(
        candidates, count: 1, holder: .current(), ttl: nil, now: .now())
    else {
      pause(milliseconds: 1)
      continue
    }
    let name = grant.accounts[0].description
    append("enter \(name) \(getpid())\n", to: witness)
    pause(milliseconds: 2)
    append("leave \(name) \(getpid())\n", to: witness)
    grant.end()
    exit(0)
  }
  exit(3)
case "spawn":
  guard
    case .granted(let grant) = try! store.tryAcquire(
      [account(arguments[3])], count: 1, holder: .current(), ttl: nil, now: .now())
  else { exit(10) }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  // dup2 onto itself clears close-on-exec in the child only.
  for descriptor in grant.inheritedDescriptors {
    posix_spawn_file_actions_adddup2(&actions, descriptor, descriptor)
  }
  let argv = arguments[4...].map { strdup($0) } + [nil]
  var child = pid_t()
  guard posix_spawn(&child, arguments[4], &actions, nil, argv, environ) == 0 else { exit(4) }
  print("\(grant.records[0].fence) \(child)")
  exit(0)
case "release":
  do {
    let freed = try store.release(lease: arguments[3], now: Timestamp(secondsSince1970: Int64(arguments[4])!))
    print(freed.map(\.description).joined(separator: " "))
    exit(0)
  } catch {
    print("\(error)")
    exit(1)
  }
default:
  exit(2)
}
