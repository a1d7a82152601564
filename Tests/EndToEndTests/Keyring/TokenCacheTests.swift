import Foundation
import TestSupport
import Testing

/// The token cache in the kernel keyring with the built binary, a real gnome-keyring and the
/// test backend: a hit is served without loading accounts' Secret Service library (seen in the
/// dynamic loader's own log), a lock taken by another client is honoured, an ended session is
/// never served, the entry is private and short-lived, and a kernel that refuses keyctl changes
/// nothing but speed.
@Suite(.blocking) struct TokenCacheTests {
  @Test(arguments: SecretServiceProvider.allCases)
  func aSecondReadIsServedFromTheKernelKeyringWithoutLibsecret(_ provider: SecretServiceProvider) throws {
    let (world, user) = try Fixture.loggedInUser(provider)
    defer { world.close() }
    let token = try world.printedToken(of: user)
    #expect(try world.kernelKey(of: user) == nil)
    let (first, firstLoaded) = try world.sandbox.runNotingPrivateLibrary(["token", user])
    #expect(first.status == 0 && first.standardOutput == token, "\(first)")
    #expect(!firstLoaded, "a readable token is read from the Secret Service directly, without libsecret")
    #expect(try world.kernelKey(of: user) != nil, "and kept")
    // The keyring's copy changed behind the cache's back: a hit still serves the copy it kept.
    // (KeePassXC holds secret-tool's replacing store for a confirmation of its own.)
    if provider == .gnomeKeyring { try world.replaceKeyringToken(of: user, with: "changed-in-the-keyring") }
    let (second, secondLoaded) = try world.sandbox.runNotingPrivateLibrary(["token", user])
    #expect(second.status == 0 && second.standardOutput == token, "served from the kernel keyring: \(second)")
    #expect(!secondLoaded, "a hit loads neither accounts' Secret Service library nor libsecret")
    let (exec, execLoaded) = try world.sandbox.runNotingPrivateLibrary(["exec", user, "--", "/bin/sh", "-c", "printf '%s\\n' \"$ACCOUNTS_TOKEN\""])
    #expect(exec.standardOutput == token && !execLoaded, "\(exec)")
  }

  /// A cached read with a frozen keyring waits once: the probe gets no answer within
  /// ACCOUNTS_SECRET_TIMEOUT and the read fails there (exit 7, the wait it made), without going
  /// on to libsecret for a second wait (seen as the library never loaded).
  @Test func aFrozenKeyringIsWaitedOnOnce() throws {
    let (world, user) = try Fixture.loggedInUser()
    defer { world.close() }
    let (first, _) = try world.sandbox.runNotingPrivateLibrary(["token", user])
    #expect(first.status == 0, "\(first)")
    let daemon = world.sandbox.keyring.daemonProcessID
    kill(daemon, SIGSTOP)
    defer { kill(daemon, SIGCONT) }
    let (frozen, loaded) = try world.sandbox.runNotingPrivateLibrary(["token", user], environment: ["ACCOUNTS_SECRET_TIMEOUT": "1"])
    #expect(frozen.status == 7 && frozen.standardOutput.isEmpty, "\(frozen)")
    #expect(
      frozen.standardError.hasPrefix(
        "accounts: the Secret Service did not answer (ask whether the keyring is locked) within 1 s; "), "\(frozen)")
    #expect(!loaded, "no second wait in libsecret: \(frozen)")
  }

  @Test func theEntryIsPrivateAndLastsNoLongerThanTheTokenNorFifteenMinutes() throws {
    for (lifetime, most) in [(7200, 15), (300, 5)] {
      let (world, user) = try Fixture.loggedInUser(tokenLifetime: lifetime)
      defer { world.close() }
      try world.sandbox.ok(["token", user])
      let line = try #require(try world.kernelKey(of: user), "a read keeps the token in the kernel keyring")
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      #expect(fields[4] == "3f3f0000", "possessor and user only, nothing for group and others: \(line)")
      let timeout = String(fields[3])
      let minutes = timeout.hasSuffix("m") ? Int(timeout.dropLast()) : timeout.hasSuffix("s") ? 0 : nil
      #expect(minutes.map { $0 <= most } == true, "token lifetime \(lifetime) s: the entry expires within \(most) min: \(line)")
    }
  }

  @Test(arguments: SecretServiceProvider.allCases) func aLockByAnotherClientIsHonouredAtOnce(_ provider: SecretServiceProvider) throws {
    let (world, user) = try Fixture.loggedInUser(provider)
    defer { world.close() }
    try world.sandbox.ok(["token", user])
    #expect(try world.kernelKey(of: user) != nil)
    try world.lockByAnotherClient()
    let (locked, _) = try world.sandbox.runNotingPrivateLibrary(["token", user])
    #expect(locked.status == 7, "\(locked)")
    #expect(locked.standardOutput.isEmpty, "no token while the collection is locked")
    #expect(locked.standardError.contains("is locked"), "\(locked)")
    #expect(world.kernelKeyIsGone(of: user), "a lock seen drops what is cached")
  }

  /// Seahorse's "Set as default" on another collection than the one that holds the token: a
  /// lock of the collection holding it is honoured all the same.
  @Test func aLockIsHonouredWhenTheDefaultAliasNamesAnotherCollection() throws {
    let (world, user) = try Fixture.loggedInUser()
    defer { world.close() }
    let collections = "/org/freedesktop/secrets/collection/"
    try world.call(
      "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.SetAlias", ["default", collections + "session"])
    try world.sandbox.ok(["token", user])
    try world.sandbox.ok(["token", user])
    try world.lockByAnotherClient(named: collections + "login")
    let locked = try world.sandbox.run(["token", user])
    #expect(locked.status == 7, "\(locked)")
    #expect(locked.standardOutput.isEmpty, "no token while the collection holding it is locked")
  }

  /// `accounts lock` after Seahorse's "Set as default" on another collection: the collection
  /// that holds accounts' items is locked too (asked afterwards over D-Bus), and named.
  @Test func accountsLockLocksTheCollectionHoldingTheItemsWhenTheAliasNamesAnother() throws {
    let (world, user) = try Fixture.loggedInUser()
    defer { world.close() }
    let collections = "/org/freedesktop/secrets/collection/"
    try world.call(
      "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.SetAlias", ["default", collections + "session"])
    let locked = try world.sandbox.ok(["lock"])
    let property = try world.call(
      collections + "login", "org.freedesktop.DBus.Properties.Get", ["org.freedesktop.Secret.Collection", "Locked"])
    #expect(property.contains("true"), "the collection holding the token is locked: \(property)")
    #expect(locked.standardError.contains("'Login'"), "\(locked)")
    let token = try world.sandbox.run(["token", user])
    #expect(token.status == 7 && token.standardOutput.isEmpty, "\(token)")
  }

  /// An item deleted by another client (secret-tool clear) is not served from the cache.
  @Test func anItemDeletedByAnotherClientIsNotServed() throws {
    let (world, user) = try Fixture.loggedInUser()
    defer { world.close() }
    try world.sandbox.ok(["token", user])
    #expect(try world.kernelKey(of: user) != nil)
    let clear = try runProcess(
      "/usr/bin/secret-tool", ["clear", "backend", "corp", "account", user, "kind", "token"],
      environment: world.sandbox.environment, timeout: 20)
    #expect(clear.status == 0, "\(clear)")
    let gone = try world.sandbox.run(["token", user])
    #expect(gone.status == 3, "\(gone)")
    #expect(gone.standardOutput.isEmpty, "no token once its item is deleted")
  }

  @Test func accountsLockDropsTheCache() throws {
    let (world, user) = try Fixture.loggedInUser()
    defer { world.close() }
    try world.sandbox.ok(["token", user])
    #expect(try world.kernelKey(of: user) != nil)
    try world.sandbox.ok(["lock"])
    #expect(world.kernelKeyIsGone(of: user))
    #expect(try world.sandbox.run(["token", user]).status == 7)
  }

  @Test func logoutDropsTheEntry() throws {
    let (world, user) = try Fixture.loggedInUser()
    defer { world.close() }
    try world.sandbox.ok(["token", user])
    #expect(try world.kernelKey(of: user) != nil)
    try world.sandbox.ok(["logout", user])
    #expect(world.kernelKeyIsGone(of: user))
    let (after, _) = try world.sandbox.runNotingPrivateLibrary(["token", user])
    #expect(after.status == 3, "no session and no password: login required: \(after)")
    #expect(after.standardOutput.isEmpty)
  }

  /// Robust by construction: an entry that outlives its session (here: logout and re-login ran
  /// where keyctl was blocked, so they could not drop it) is never served, because the index no
  /// longer claims the session it copied.
  @Test func anEntryThatOutlivesItsSessionIsNeverServed() throws {
    let (world, user) = try Fixture.loggedInUser()
    defer { world.close() }
    let blocked = ["LD_PRELOAD": Interposer.withoutKernelKeyring]
    try world.sandbox.ok(["token", user])
    let kept = try #require(try world.kernelKey(of: user))
    try world.sandbox.ok(["logout", user], environment: blocked)
    #expect(try world.kernelKey(of: user)?.prefix(8) == kept.prefix(8), "the same key (serial) is still there: \(kept)")
    let (ended, _) = try world.sandbox.runNotingPrivateLibrary(["token", user])
    #expect(ended.status == 3, "login required, not the old token: \(ended)")
    #expect(ended.standardOutput.isEmpty)

    try world.sandbox.ok(["token", user, "--password-stdin"], stdin: "123456\n")  // logs in, keeps it
    let first = try world.printedToken(of: user)
    try world.sandbox.ok(["login", user, "--password-stdin"], stdin: "123456\n", environment: blocked)
    let second = try world.printedToken(of: user)
    #expect(second != first)
    #expect(try world.sandbox.ok(["token", user]).standardOutput == second, "the new session's token")
  }

  @Test func turnedOffItIsNotUsed() throws {
    let (world, user) = try Fixture.loggedInUser()
    defer { world.close() }
    let off = ["ACCOUNTS_TOKEN_CACHE": "0"]
    let (first, _) = try world.sandbox.runNotingPrivateLibrary(["token", user], environment: off)
    #expect(first.status == 0)
    #expect(try world.kernelKey(of: user) == nil, "nothing is kept")
    try world.sandbox.ok(["token", user])  // kept now
    #expect(try world.kernelKey(of: user) != nil)
    try world.replaceKeyringToken(of: user, with: "changed-in-the-keyring")
    let second = try world.sandbox.run(["token", user], environment: off)
    #expect(
      second.status == 0 && second.standardOutput == "changed-in-the-keyring\n",
      "ACCOUNTS_TOKEN_CACHE=0 reads from the Secret Service even with an entry kept: \(second)")
  }

  @Test func aKernelThatRefusesKeyctlChangesNothingButSpeed() throws {
    let (world, user) = try Fixture.loggedInUser()
    defer { world.close() }
    let blocked = ["LD_PRELOAD": Interposer.withoutKernelKeyring]
    for marker in ["", "changed-in-the-keyring"] {
      if !marker.isEmpty { try world.replaceKeyringToken(of: user, with: marker) }
      let token = try world.printedToken(of: user)
      let result = try world.sandbox.run(["token", user], environment: blocked)
      #expect(result.status == 0 && result.standardOutput == token, "every read goes to the Secret Service: \(result)")
      #expect(result.standardError.isEmpty, "silently: \(result)")
    }
    #expect(try world.kernelKey(of: user) == nil)
    try world.sandbox.ok(["logout", user], environment: blocked)
    #expect(try world.sandbox.run(["token", user], environment: blocked).status == 3)
  }
}

extension Fixture {
  /// A user of the test's own logged in on corp, its password not remembered, on a test backend
  /// whose tokens last `tokenLifetime` seconds. Each test has its own user name: the kernel
  /// keyring is shared by every test of this uid, and /proc/keys is read by name.
  static func loggedInUser(_ provider: SecretServiceProvider = .gnomeKeyring, tokenLifetime: Int? = nil) throws
    -> (Fixture, user: String)
  {
    let user = "cache" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    let world = try Fixture(provider).serving(tokenLifetime: tokenLifetime, arguments: ["--user", "\(user):123456"])
      .addingServedBackend("corp")
    try world.sandbox.ok(["login", user, "--password-stdin"], stdin: "123456\n")
    return (world, user)
  }

  /// USER@corp's token in the keyring, read with secret-tool, and a newline: as `token` prints
  /// it.
  func printedToken(of user: String) throws -> String {
    let lookup = try runProcess(
      "/usr/bin/secret-tool", ["lookup", "backend", "corp", "account", user, "kind", "token"],
      environment: sandbox.environment, timeout: 20)
    #expect(lookup.status == 0 && !lookup.standardOutput.isEmpty, "\(lookup)")
    return lookup.standardOutput + "\n"
  }

  /// Replaces the secret of USER@corp's token in gnome-keyring in place (same item, same
  /// attributes), as another client could: a read that prints `marker` read the keyring, one
  /// that prints the token it replaced was served from the cache.
  func replaceKeyringToken(of user: String, with marker: String) throws {
    let store = try runProcess(
      "/usr/bin/secret-tool",
      ["store", "--label=accounts: \(user)@corp token", "xdg:schema", "io.accounts.Secret", "backend", "corp",
       "account", user, "kind", "token"],
      environment: sandbox.environment, standardInput: marker, timeout: 20)
    #expect(store.status == 0, "\(store)")
    #expect(try printedToken(of: user) == marker + "\n", "replaced in place")
  }

  /// The /proc/keys line of USER@corp's cached token, if there is one (a live key: neither
  /// invalidated, revoked nor dead).
  func kernelKey(of user: String) throws -> String? {
    // Read to its end: /proc/keys reports no size, and a single read may return one page only.
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/keys"))
    defer { try? handle.close() }
    let text = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    return text.split(separator: "\n").first { line in
      let flags = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""
      return line.contains(":token:\(user)@corp:") && !flags.contains(where: { "iRDN".contains($0) })
    }.map(String.init)
  }

  /// Waits (at most 10 s) until USER@corp's cached token is gone: the kernel drops unlinked keys
  /// from /proc/keys when its garbage collector has run.
  func kernelKeyIsGone(of user: String) -> Bool {
    waitUntil(seconds: 10) { (try? kernelKey(of: user)) == .some(nil) }
  }

  /// Locks the default collection as Seahorse or any other client would: over D-Bus, with
  /// the prompt KeePassXC answers with completed; returns once the collection says so.
  /// With `named`, that collection instead of the default one.
  func lockByAnotherClient(named: String? = nil) throws {
    let service = "/org/freedesktop/secrets"
    let alias = try call(service, "org.freedesktop.Secret.Service.ReadAlias", ["default"])
    let aliased = try #require(alias.split(separator: "'").dropFirst().first.map(String.init), "\(alias)")
    let collection = named ?? aliased
    let lock = try call(service, "org.freedesktop.Secret.Service.Lock", ["['\(collection)']"])
    // "([...], objectpath '/')": done; another path: a prompt to run first.
    if let prompt = lock.split(separator: "'").last(where: { $0.hasPrefix("/") }).map(String.init), prompt != "/" {
      _ = try call(prompt, "org.freedesktop.Secret.Prompt.Prompt", [""])
    }
    let locked = waitUntil(seconds: 10) {
      (try? call(collection, "org.freedesktop.DBus.Properties.Get", ["org.freedesktop.Secret.Collection", "Locked"]))?
        .contains("true") == true
    }
    #expect(locked, "the collection is locked")
  }

  /// A Secret Service method called with gdbus, as any other client would; its output.
  @discardableResult func call(_ path: String, _ method: String, _ arguments: [String]) throws -> String {
    let result = try runProcess(
      "/usr/bin/gdbus", ["call", "--session", "-d", "org.freedesktop.secrets", "-o", path, "-m", method] + arguments,
      environment: sandbox.environment, timeout: 20)
    #expect(result.status == 0, "\(method): \(result)")
    return result.standardOutput
  }
}
