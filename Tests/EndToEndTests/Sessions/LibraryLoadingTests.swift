import Foundation
import TestSupport
import Testing

/// What a command loads, as the dynamic loader's own log shows: a one-time code (libgcrypt's
/// HMAC) and a request with a cached token (the adapter host is in the executable, its digests
/// from libgcrypt, its HTTP from libcurl) need neither libsecret nor GLib; `lease` and `status`
/// prove a session by its expiry without loading an adapter whose CHECK asks nothing.
@Suite(.blocking) struct LibraryLoadingTests {
  static let glibAndLibsecret = ["libAccountsPrivate.so", "libsecret-1.so.0", "libglib-2.0.so.0", "libgio-2.0.so.0"]

  @Test func aOneTimeCodeLoadsLibgcryptAndNeitherLibsecretNorGLib() throws {
    let world = try Fixture().addingBackend("corp").saving("alice")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["otp", "set", "alice"], stdin: "jbsw y3dp ehpk 3pxp\n")
    let (code, loaded) = try sandbox.runNotingLibraries(["otp", "alice", "--at", "59"])
    #expect(code.status == 0 && code.standardOutput.count == 7, "\(code)")
    #expect(loaded.contains("libgcrypt.so.20"), "\(loaded.sorted())")
    for library in Self.glibAndLibsecret {
      #expect(!loaded.contains(library), "otp loaded \(library)")
    }
  }

  @Test func aRequestWithACachedTokenLoadsNeitherLibsecretNorGLib() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice"])
    let (reply, loaded) = try sandbox.runNotingLibraries(["request", "alice", "GET", "me"])
    #expect(reply.status == 0 && reply.standardOutput.contains("1001"), "\(reply)")
    #expect(loaded.contains("libcurl.so.4"), "\(loaded.sorted())")
    for library in Self.glibAndLibsecret {
      #expect(!loaded.contains(library), "request loaded \(library)")
    }
  }

  /// `request` starts loading libcurl on a thread while it reads the session; when it fails
  /// before sending (no session, nothing remembered, no terminal: exit 3), it still waits for
  /// that loading to end before exit(), whose handlers (OpenSSL's, registered while libcurl
  /// initialises) would otherwise run beside the initialisation and crash it (seen: 3 of 300
  /// runs ended with SIGSEGV). The interposer holds the loading thread right after it
  /// registers an exit handler.
  @Test func aRequestThatFailsBeforeSendingWaitsForLibcurlBeforeItExits() throws {
    let world = try Fixture().addingBackend("corp").saving("bob")
    defer { world.close() }
    let sandbox = world.sandbox
    let log = sandbox.keyring.root + "/atexit.log"
    let result = try sandbox.run(
      ["request", "bob", "GET", "me"],
      environment: ["LD_PRELOAD": Interposer.slowThreadExitHandlers, "SLOW_ATEXIT_LOG": log], timeout: 30)
    #expect(result.status == 3, "\(result)")
    #expect(result.standardError.hasPrefix("accounts: bob@corp: login required"), "\(result)")
    let events = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
    #expect(events.first == "thread registered an exit handler" && events.last == "main thread exits", "\(events)")
  }

  /// plain asks the backend only with check_path (ABI 1.2): without it, once a command has
  /// loaded plain, `lease` and `status` prove alice's session without loading it again; with it,
  /// they load it and the backend is asked.
  @Test(arguments: [false, true])
  func aSessionWhoseCheckAsksNothingIsProvedWithoutLoadingTheAdapter(checkPath: Bool) throws {
    let world = try Fixture().serving()
      .addingServedBackend("corp", settings: checkPath ? ["check_path=check"] : []).saving("alice", password: "123456")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice"])
    _ = try world.seen()
    for command in [["lease", "alice", "--", "true"], ["status"]] {
      let (result, loaded) = try sandbox.runNotingLibraries(command)
      #expect(result.status == 0, "\(command): \(result)")
      #expect(loaded.contains("libplain.so") == checkPath, "\(command) loaded \(loaded.sorted())")
    }
    let checks = try world.seen().filter { $0.contains("check") }
    #expect(checks.count == (checkPath ? 2 : 0), "\(checks)")
  }
}
