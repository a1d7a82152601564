import AccountsContract
import AccountsCore
@testable import AccountsServices
import AccountsSystem
import Foundation
import SecretMemory
import TestSupport
import Testing

/// The adapter host as the command line uses it (`LinkedAdapterHost`), called from many
/// threads at once, as `status --jobs` will.
@Suite(.blocking) struct LinkedAdapterHostTests {
  static let threads = 16
  static let rounds = 2
  static let appID = "170ib799dd511e7b66000163e033322"
  let backend: TestBackend

  init() throws { backend = try TestBackend() }

  /// The built-in adapters of the build directory, as `accounts` finds them there.
  var searchPath: AdapterSearchPath {
    AdapterSearchPath(directories: [.init(path: PackagePaths.products.path, onlyNames: AdapterSearchPath.builtInNames)])
  }

  static func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

  /// Worker `index`'s backend: the three built-in adapters in turn, two with a secret setting.
  func backendSettings(_ index: Int) -> (adapter: String, settings: [String: String], secrets: [String: SecretBytes]) {
    let paths = ["check_path": "check", "logout_path": "logout"]
    switch index % 3 {
    case 0:
      let plain = ["base_url": backend.url + "/plain/md5-salt", "encoding": "md5-salt", "salt": "pepper"]
      return ("plain", paths.merging(plain) { $1 }, [:])
    case 1:
      let hmac = ["base_url": backend.url + "/hmac", "time_zone": "UTC"]
      return ("hmac", paths.merging(hmac) { $1 }, ["hmac_key": Self.secret("qianqian")])
    default:
      return (
        "signed", paths.merging(["base_url": backend.url + "/signed/api", "app_id": Self.appID, "ver": "1.0"]) { $1 },
        ["private_key": Self.secret(Self.appID)]
      )
    }
  }

  /// One worker's whole story, `rounds` times, as user`index`: a wrong password, a login, a
  /// check, a call, a logout, a check of the ended session. Returns what went wrong.
  func story(_ index: Int, host: any AdapterHosting) -> [String] {
    var problems: [String] = []
    let user = "user\(index)"
    let (adapter, settings, secrets) = backendSettings(index)
    func run(_ operation: AdapterOperation, values: [String: String] = [:]) -> AdapterOutcome {
      let request = AdapterRequest(
        adapter: adapter, backend: "b\(index)", settings: settings, user: user, sessionValues: values,
        operation: operation, timeout: 30)
      do {
        return try host.run(request, secretSettings: secrets, in: searchPath)
      } catch {
        return .adapterFailed(message: "\(error)")
      }
    }
    func expect(_ condition: Bool, _ what: String, _ outcome: AdapterOutcome) {
      if !condition { problems.append("\(user) (\(adapter)) \(what): \(outcome)") }
    }
    do {
      let description = try host.describe(adapter, in: searchPath)
      if description.name != adapter { problems.append("\(user): described \(description.name)") }
    } catch {
      problems.append("\(user): describe \(adapter): \(error)")
    }
    for round in 0..<Self.rounds {
      let wrong = run(.login(password: Self.secret("not-pw-\(index)")))
      expect(wrong == .wrongPassword(message: "wrong username or password"), "wrong password", wrong)
      let login = run(.login(password: Self.secret("pw-\(index)")))
      guard case .ok(let success) = login, let token = success.token else {
        expect(false, "login", login)
        continue
      }
      expect(token.count == 32 && success.expiresIn == 3600, "token and lifetime", login)
      expect(success.sessionValues == ["userId": "\(2000 + index)"], "its own user id", login)
      let values = success.sessionValues
      let check = run(.check(token: token), values: values)
      guard case .ok(let checked) = check else {
        expect(false, "check", check)
        continue
      }
      expect(checked.token == nil && (3590...3600).contains(checked.expiresIn), "check", check)
      let mark = "\(index)-\(round)"
      let call = run(.call(token: token, method: "POST", path: "user/info", parameters: [("mark", mark)]), values: values)
      if case .ok(let reply) = call,
        let body = try? JSONSerialization.jsonObject(with: Data((reply.body ?? "").utf8)) as? [String: Any]
      {
        expect(body["userId"] as? Int == 2000 + index, "the call's user", call)
        expect((body["params"] as? [String: String])?["mark"] == mark, "the call's parameters", call)
      } else {
        expect(false, "call", call)
      }
      let logout = run(.logout(token: token), values: values)
      expect(logout == .ok(AdapterSuccess()), "logout", logout)
      let ended = run(.check(token: token), values: values)
      expect(ended == .sessionExpired(message: "token expired"), "check after logout", ended)
    }
    return problems
  }

  /// 16 threads, 12 operations each, through one host at once: every outcome is the one its
  /// own user, password, token and secret settings call for (nothing crosses between calls),
  /// and the backend saw the calls overlap. The backend holds each request 0.1 s, so a host
  /// that ran one operation at a time would show a concurrency of 1.
  @Test func manyThreadsRunOperationsThroughOneHostAtOnce() throws {
    // Not contained: the test process keeps its own stdout and stderr.
    let host: any AdapterHosting = LinkedAdapterHost(containing: false)
    for index in 0..<Self.threads {
      try backend.control("users", ["name": "user\(index)", "password": "pw-\(index)", "userId": 2000 + index])
    }
    try backend.delay(seconds: 0.1)
    try backend.resetConcurrency()

    let problems = ThreadSafeList<String>()
    let gate = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for index in 0..<Self.threads {
      done.enter()
      // Plain threads: Swift concurrency's pool has only as many threads as cores.
      Thread.detachNewThread {
        gate.wait()
        let found = story(index, host: host)
        problems.append(contentsOf: found)
        done.leave()
      }
    }
    for _ in 0..<Self.threads { gate.signal() }
    #expect(done.wait(timeout: .now() + 120) == .success, "every thread finished")
    #expect(problems.all == [])

    let (current, most) = try backend.concurrency()
    #expect(current == 0)
    #expect(most >= Self.threads / 2, "the operations overlapped: at most \(most) requests at once")
    #expect(most <= Self.threads, "one request in flight per thread at most")
    try backend.delay(seconds: 0)
  }
}
