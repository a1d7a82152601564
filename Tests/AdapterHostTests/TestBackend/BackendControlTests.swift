import Foundation
import Testing
import TestSupport

@testable import AdapterHost

/// The test backend's timing controls, which the concurrency tests and the `status --jobs`
/// bench rely on: a delay before every answer, and a count of the requests it serves at once.
@Suite(.blocking) struct BackendControlTests {
  let backend: TestBackend

  init() throws { backend = try TestBackend() }

  /// One GET through libcurl; its status.
  func get(_ path: String) throws -> Int32 {
    try CurlTransport().perform(HTTPRequest(method: "GET", url: backend.url + path), timeout: 20, responseLimit: 1 << 20).status
  }

  /// Starts `count` GETs of `path`, each on its own thread; the returned group ends with them.
  func start(_ count: Int, _ path: String, statuses: ThreadSafeList<Int32>) -> DispatchGroup {
    let group = DispatchGroup()
    for _ in 0..<count {
      group.enter()
      Thread.detachNewThread {
        let status = (try? get(path)) ?? -1
        statuses.append(status)
        group.leave()
      }
    }
    return group
  }

  /// Polls until the backend handles `count` requests at once (the counter is asked, not the
  /// scheduler: requests held by the delay stay in flight until it has seen them all).
  func waitUntilHandling(_ count: Int) throws -> Bool {
    for _ in 0..<200 {
      if try backend.concurrency().current == count { return true }
      usleep(25_000)
    }
    return false
  }

  @Test func theCounterSeesDelayedRequestsInFlightAndNotControlOnes() throws {
    #expect(try backend.concurrency() == (0, 0))
    try backend.delay(seconds: 3)
    let statuses = ThreadSafeList<Int32>()
    let group = start(5, "/plain/plain/check", statuses: statuses)
    // The polls themselves are control requests: were they counted, current would pass 5.
    #expect(try waitUntilHandling(5), "five delayed requests are handled at once")
    #expect(try backend.concurrency() == (5, 5))
    try backend.delay(seconds: 0)  // later requests only: the five keep their delay
    #expect(group.wait(timeout: .now() + 20) == .success)
    #expect(statuses.all == Array(repeating: 401, count: 5), "answered after the delay")
    #expect(try backend.concurrency() == (0, 5), "the most at once is kept until a reset")
    try backend.resetConcurrency()
    #expect(try backend.concurrency() == (0, 0))
    #expect(try get("/plain/plain/check") == 401)
    #expect(try backend.concurrency() == (0, 1))
  }

  @Test func theDelayHoldsEveryAnswerUntilItIsTurnedOff() throws {
    try backend.delay(seconds: 0.6)
    var started = Date()
    #expect(try get("/plain/plain/check") == 401)
    #expect(Date().timeIntervalSince(started) >= 0.6)
    started = Date()
    try backend.control("users", ["name": "dave", "password": "pw"])  // control requests do not wait
    #expect(Date().timeIntervalSince(started) < 0.6)
    try backend.delay(seconds: 0)
    started = Date()
    #expect(try get("/plain/plain/check") == 401)
    #expect(Date().timeIntervalSince(started) < 0.6)
  }

  @Test func badDelaysAreRefused() throws {
    for seconds: Any in [-0.5, 31, "1", true] {
      let reply = try backend.control("delay", ["seconds": seconds])
      #expect(reply["ok"] == nil && reply["err"] != nil, "\(seconds)")
    }
    #expect(try backend.control("delay", ["seconds": 30])["ok"] as? Bool == true, "30 s is the limit")
    try backend.delay(seconds: 0)
  }
}

