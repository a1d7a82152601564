import Foundation
import TestSupport
import Testing

/// A server in Redis's place that answers with more than any lease store's reply: a streamed
/// 3 GiB bulk string, an array of 20 million integers, a `*2147483647` header, arrays each
/// within the element limit but over it together. Each is refused on its length header, before
/// what it announces is read or allocated: `lease` exits 8 with the fix, the command not run,
/// within ACCOUNTS_NETWORK_TIMEOUT and with a small resident size (measured by GNU time).
/// Before, they took 1.57 GB, 3.33 GB and 23 s, and 19 s.
@Suite(.blocking) struct RedisHostileReplyTests {
  static let server = """
    import socket, sys, threading, time
    mode = sys.argv[1]
    server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(8)
    print(server.getsockname()[1], flush=True)
    def serve(connection):
        try:
            asked = connection.recv(65536)
            if mode == "scan":
                # Every SCAN: "more to come" and nothing, a moment later; anything else: an
                # empty array (CONFIG refused, as a managed Redis does).
                while asked:
                    if b"SCAN" in asked:
                        time.sleep(0.3)
                        connection.sendall(b"*2\\r\\n$1\\r\\n1\\r\\n*0\\r\\n")
                    else:
                        connection.sendall(b"*0\\r\\n")
                    asked = connection.recv(65536)
            elif mode == "bulk":
                connection.sendall(b"$3221225472\\r\\n")
                chunk = b"x" * 65536
                for _ in range(3 * 16384):
                    connection.sendall(chunk)
            elif mode == "integers":
                connection.sendall(b"*20000000\\r\\n")
                chunk = b":1\\r\\n" * 16384
                for _ in range(20000000 // 16384 + 1):
                    connection.sendall(chunk)
            elif mode == "header":
                connection.sendall(b"*2147483647\\r\\n")
                connection.recv(1)
            elif mode == "arrays":
                connection.sendall(b"*3\\r\\n" + (b"*65536\\r\\n" + b":1\\r\\n" * 65536) * 3)
                connection.recv(1)
            elif mode.startswith("bulk "):
                length = int(mode.split()[1])
                reply = b"$%d\\r\\n" % length + b"x" * length + b"\\r\\n"
            elif mode.startswith("elements "):
                count = int(mode.split()[1])
                reply = b"*%d\\r\\n" % count + b":1\\r\\n" * count
            if mode.startswith(("bulk ", "elements ")):
                # One such reply to every command (each arrives whole on 127.0.0.1).
                while True:
                    connection.sendall(reply)
                    if not connection.recv(65536):
                        break
        except OSError:
            pass
        connection.close()
    server.settimeout(120)
    while True:
        threading.Thread(target=serve, args=(server.accept()[0],), daemon=True).start()
    """

  /// Each limit, both sides of it: a reply of 16 MiB exactly (a bulk string of 16777203 bytes
  /// and its 13 bytes of framing) and one of 131072 elements are read (and are garbage to the
  /// acquire script: "acquire"); a byte or an element more is refused.
  @Test(arguments: [
    ("bulk 16777203", "acquire"), ("bulk 16777204", "a reply over 16 MiB"),
    ("elements 131072", "acquire"), ("elements 131073", "a reply of over 131072 elements"),
  ])
  func aReplyAtTheLimitsIsReadAndOneOverThemIsNot(mode: String, refusal: String) throws {
    let store = try FakeStore(mode)
    defer { store.close() }
    let lease = try store.world.a.run(["lease", "qa1", "--", "true"], environment: ["ACCOUNTS_NETWORK_TIMEOUT": "20"])
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains("it answered what Redis would not (\(refusal))"), "\(lease.standardError)")
  }

  @Test(arguments: [
    ("bulk", "a reply over 16 MiB"), ("integers", "a reply of over 131072 elements"),
    ("header", "a reply of over 131072 elements"), ("arrays", "a reply of over 131072 elements"),
  ])
  func aReplyOverTheLimitsIsRefusedBeforeItIsRead(mode: String, refusal: String) throws {
    let store = try FakeStore(mode)
    defer { store.close() }
    let world = store.world
    let marker = world.a.keyring.root + "/ran"
    var environment = world.a.environment
    environment["ACCOUNTS_NETWORK_TIMEOUT"] = "5"
    let measured = try runProcess(
      "/usr/bin/time",
      ["-f", "measured %M KiB %e s", PackagePaths.accounts, "lease", "qa1", "--", "/bin/sh", "-c", "touch \"$0\"", marker],
      environment: environment, timeout: 60)
    #expect(measured.status == 8, "\(measured)")
    #expect(measured.standardError.contains("it answered what Redis would not (\(refusal))"), "\(measured.standardError)")
    #expect(measured.standardError.contains("check that the address names a Redis server"), "\(measured.standardError)")
    #expect(!FileManager.default.fileExists(atPath: marker), "the command did not run")
    let line = try #require(measured.standardError.split(separator: "\n").last { $0.hasPrefix("measured ") })
    let words = line.split(separator: " ")
    let kibibytes = try #require(Int(words[1]))
    let seconds = try #require(Double(words[3]))
    #expect(kibibytes < 100 * 1024, "resident size \(kibibytes) KiB")
    #expect(seconds < 5, "within the timeout: \(seconds) s")
  }
}

extension RedisHostileReplyTests {
  /// A server that answers every SCAN with "more to come" and no key, each call well within
  /// the timeout: `leases` gives up once ACCOUNTS_NETWORK_TIMEOUT has passed for all its calls
  /// together (exit 8, naming it), where each call had the timeout of its own and it went on
  /// for up to 10,000 rounds (over 40 s at a timeout of 2 s).
  @Test func aScanThatNeverEndsIsGivenUpOnAtTheDeadline() throws {
    let store = try FakeStore("scan")
    defer { store.close() }
    let leases = try store.world.a.run(["leases"], environment: ["ACCOUNTS_NETWORK_TIMEOUT": "2"], timeout: 30)
    #expect(leases.status == 8, "\(leases)")
    #expect(
      leases.standardError.contains("it did not answer everything asked within 2 s (ACCOUNTS_NETWORK_TIMEOUT)"),
      "\(leases.standardError)")
  }
}

/// Machine A of a pool whose backend corp keeps its leases on a fake server in Redis's place,
/// answering as `RedisHostileReplyTests.server` does in `mode`.
final class FakeStore {
  let world: Fixture
  let process: SpawnedProcess

  init(_ mode: String) throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    do {
      process = try SpawnedProcess(
        "/usr/bin/python3", ["-c", RedisHostileReplyTests.server, mode], environment: ProcessInfo.processInfo.environment,
        standardOutput: .pipe)
    } catch {
      world.close()
      throw error
    }
    self.world = world
    do {
      let announced = String(decoding: readSome(from: process.outputDescriptor), as: UTF8.self)
      guard let port = announced.split(separator: "\n").first else {
        throw RedisServerError.didNotStart("the fake server (\(mode)) announced no port")
      }
      try world.a.ok(["backend", "set", "corp", "lease_store=redis://127.0.0.1:\(port)"])
    } catch {
      close()
      throw error
    }
  }

  func close() {
    process.terminate()
    process.waitUntilExit()
    world.close()
  }
}
