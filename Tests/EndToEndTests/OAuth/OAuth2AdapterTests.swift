import Foundation
import TestSupport
import Testing

/// The built-in oauth2 adapter against a real OAuth 2.0 / OpenID Connect provider
/// (django-oauth-toolkit on 127.0.0.1, whose access tokens last 3 seconds here): every grant,
/// refresh tokens kept in the keyring and rotated, revocation at logout, session checks, the
/// device flow on a real pseudo-terminal, leases and `login --stale` renewing by refresh.
@Suite(.blocking, .oauthProvider(accessTokenLifetime: 3)) struct OAuth2AdapterTests {
  let provider: OAuthProvider
  /// An access token's lifetime here, and a little more.
  let pastExpiry = 3.6

  init() throws {
    provider = try #require(OAuthProvider.current)
  }

  @Test func thePasswordGrantLogsInRequestsWithTheBearerAndAWrongPasswordIsExit4() throws {
    let client = try provider.userAndClient("pat")
    let world = try Fixture().addingOAuthBackend("id", provider: provider, client: client)
    defer { world.close() }
    try world.logIn("pat@id", password: "pw-pat")
    let token = try world.sandbox.ok(["token", "pat@id"]).standardOutput.trimmingCharacters(in: .newlines)
    #expect(try world.keyringItem("pat", backend: "id", kind: "token") == token)
    #expect(try world.keyringItem("pat", backend: "id", kind: "refresh_token") != nil)
    #expect(try provider.liveTokens(of: "pat").access.map(\.token) == [token])
    let me = try world.sandbox.ok(["request", "pat@id", "GET", "userinfo/"]).standardOutput
    #expect(me.contains("\"preferred_username\": \"pat\"") || me.contains("\"preferred_username\":\"pat\""), "\(me)")

    let wrong = try world.sandbox.run(["login", "pat@id", "--password-stdin"], stdin: "not-her-password\n")
    #expect(wrong.status == 4, "\(wrong)")
    #expect(wrong.standardError.contains("invalid_grant") || wrong.standardError.contains("Invalid credentials"), "\(wrong)")
    #expect(!wrong.standardError.contains("not-her-password") && !wrong.standardOutput.contains("not-her-password"))
    #expect(try world.keyringItem("pat", backend: "id", kind: "token") == token, "a mistyped password ends nothing")
  }

  /// The user's password changes at the provider after the login: the refresh still renews the
  /// session, and the rotated refresh token replaces the old one. Then the provider revokes
  /// everything: the remembered password logs in. Logout leaves the provider nothing live.
  @Test func anExpiredSessionIsRenewedByRefreshWithoutThePasswordThenByThePassword() throws {
    let client = try provider.userAndClient("rita")
    let world = try Fixture().addingOAuthBackend("id", provider: provider, client: client)
    defer { world.close() }
    let loggedIn = Date()
    try world.logIn("rita@id", password: "pw-rita", ["--remember"])
    let firstToken = try #require(try world.keyringItem("rita", backend: "id", kind: "token"))
    let firstRefresh = try #require(try world.keyringItem("rita", backend: "id", kind: "refresh_token"))
    try provider.setPassword(of: "rita", to: "changed-elsewhere")

    waitUntil(pastExpiry, after: loggedIn)
    let renewed = try world.sandbox.ok(["token", "rita@id"])
    #expect(renewed.standardOutput.trimmingCharacters(in: .newlines) != firstToken)
    #expect(renewed.standardError.contains("renewed with the refresh token"), "\(renewed)")
    let secondRefresh = try #require(try world.keyringItem("rita", backend: "id", kind: "refresh_token"))
    #expect(secondRefresh != firstRefresh, "the provider rotated it, and the new one replaced the old")
    #expect(try provider.liveTokens(of: "rita").refresh.map(\.token) == [secondRefresh])
    #expect(try world.remembered("rita@id") == true, "the password was not asked for, nor forgotten")

    // Everything revoked at the provider: the refresh token is refused, the password logs in.
    try provider.setPassword(of: "rita", to: "pw-rita")
    try provider.revokeTokens(of: "rita")
    let revokedAt = Date()
    waitUntil(pastExpiry, after: revokedAt)
    let again = try world.sandbox.ok(["token", "rita@id"])
    #expect(again.standardError.contains("refused the refresh token"), "\(again)")
    #expect(again.standardError.contains("logging in again with the remembered password"), "\(again)")
    let thirdRefresh = try #require(try world.keyringItem("rita", backend: "id", kind: "refresh_token"))
    #expect(try provider.liveTokens(of: "rita").refresh.map(\.token) == [thirdRefresh])

    let out = try world.sandbox.run(["logout", "rita@id"])
    #expect(out.status == 0 && !out.standardError.contains("warning"), "\(out)")
    let live = try provider.liveTokens(of: "rita")
    #expect(live.isEmpty, "\(live)")
    #expect(try world.keyringItem("rita", backend: "id", kind: "refresh_token") == nil)
    #expect(try world.keyringItem("rita", backend: "id", kind: "token") == nil)
  }

  /// Forgetting an account revokes its session at the provider first, and so does a new
  /// login for the session it replaces.
  @Test func removeAndANewLoginLeaveTheProviderNoOrphanedTokens() throws {
    let client = try provider.userAndClient("otto")
    let world = try Fixture().addingOAuthBackend("id", provider: provider, client: client)
    defer { world.close() }
    try world.logIn("otto@id", password: "pw-otto")
    try world.logIn("otto@id", password: "pw-otto")
    let live = try provider.liveTokens(of: "otto")
    let kept = try world.keyringItem("otto", backend: "id", kind: "refresh_token")
    #expect(live.refresh.map(\.token) == [kept!], "the replaced session was revoked: \(live)")
    let removed = try world.sandbox.run(["remove", "otto@id"])
    #expect(removed.status == 0 && !removed.standardError.contains("warning"), "\(removed)")
    let after = try provider.liveTokens(of: "otto")
    #expect(after.isEmpty, "\(after)")
  }

  /// `exec --refresh` over a command that lives through three access-token lifetimes: the
  /// token file always holds a token the provider accepts, renewed by refresh (the password
  /// changed at the provider, so a login with it would fail).
  @Test func execRefreshKeepsACommandGoingThroughThreeLifetimes() throws {
    let client = try provider.userAndClient("eve")
    let world = try Fixture().addingOAuthBackend("id", provider: provider, client: client)
    defer { world.close() }
    try world.logIn("eve@id", password: "pw-eve", ["--remember"])
    try provider.setPassword(of: "eve", to: "changed-elsewhere")
    let seen = world.root + "/seen"
    let script = """
      i=0
      while [ $i -lt 11 ]; do
        cat "$ACCOUNTS_TOKEN_FILE" >> "\(seen)"; echo >> "\(seen)"
        sleep 1; i=$((i + 1))
      done
      printf 'Authorization: Bearer %s' "$(cat "$ACCOUNTS_TOKEN_FILE")" > "\(world.root)/header"
      curl -s -o /dev/null -w '%{http_code}' -H @"\(world.root)/header" '\(provider.userinfoEndpoint)'
      """
    let result = try world.sandbox.run(["exec", "eve@id", "--refresh", "--", "/bin/sh", "-c", script], timeout: 60)
    #expect(result.status == 0 && result.standardOutput == "200", "\(result)")
    let tokens = Set(try String(contentsOfFile: seen, encoding: .utf8).split(separator: "\n"))
    #expect(tokens.count >= 3, "renewed at least twice: \(tokens.count) tokens")
    #expect(!result.standardError.contains("logging in again with the remembered password"), "\(result)")
  }

  @Test func theClientCredentialsGrantLogsInAClientWithItsSecret() throws {
    let service = try provider.addClient("svc-\(UUID().uuidString.prefix(6).lowercased())", grant: .clientCredentials)
    let secret = try #require(service.secret)
    let world = try Fixture().addingOAuthBackend(
      "svc", provider: provider, client: OAuthProvider.Client(id: service.id, secret: nil), grant: "client_credentials")
    defer { world.close() }
    try world.logIn("\(service.id)@svc", password: secret, ["--remember"])
    let token = try world.sandbox.ok(["token", "\(service.id)@svc"]).standardOutput.trimmingCharacters(in: .newlines)
    #expect(try provider.liveTokens(ofClient: service.id).access.map(\.token).contains(token))
    let wrong = try world.sandbox.run(["login", "\(service.id)@svc", "--password-stdin"], stdin: "wrong\n")
    #expect(wrong.status == 4 || wrong.status == 8, "\(wrong)")
    #expect(wrong.standardError.contains("invalid_client") || wrong.standardError.contains("client"), "\(wrong)")
  }

  /// `accounts login` of a device_code backend on a real terminal while the test plays the
  /// person at the provider's own pages: approved, denied, and a code that expired.
  @Test(arguments: ["approve", "deny", "expire"])
  func theDeviceFlowShowsTheCodeAndEndsWithThePersonsAnswer(_ answer: String) throws {
    let user = "dana-\(answer)"
    try provider.addUser(user, password: "pw-" + user)
    let client = try provider.addClient(user + "-tv", grant: .deviceCode, confidential: false)
    let world = try Fixture().addingOAuthBackend(
      "tv", provider: provider, client: client, grant: "device_code",
      settings: ["device_authorization_endpoint=\(provider.deviceAuthorizationEndpoint)"])
    defer { world.close() }
    let transcript = world.root + "/transcript"
    let outcome = ThreadSafeList<ProcessResult>()
    nonisolated(unsafe) let sandbox = world.sandbox
    let login = Thread {
      if let result = try? sandbox.terminal(["login", "\(user)@tv"], timeout: 40, transcript: transcript) {
        outcome.append(result)
      }
    }
    login.start()
    let code = try #require(waitForUserCode(in: transcript), "the terminal showed no code")
    switch answer {
    case "approve": try provider.approveDevice(userCode: code, as: user)
    case "deny": try provider.denyDevice(userCode: code, as: user)
    default: try provider.expireDeviceCode(userCode: code)
    }
    let deadline = Date().addingTimeInterval(45)
    while outcome.all.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
    let result = try #require(outcome.all.first)
    #expect(result.standardOutput.contains("open \(provider.verificationURI)"), "\(result)")
    #expect(!result.standardOutput.lowercased().contains("password"), "no password is asked for nor named: \(result)")
    switch answer {
    case "approve":
      #expect(result.status == 0, "\(result)")
      #expect(try world.keyringItem(user, backend: "tv", kind: "token") != nil)
      #expect(try world.keyringItem(user, backend: "tv", kind: "refresh_token") != nil)
      #expect(try world.keyringItem(user, backend: "tv", kind: "password") == nil)
    case "deny":
      #expect(result.status == 4 && result.standardOutput.contains("denied"), "\(result)")
      #expect(try world.keyringItem(user, backend: "tv", kind: "token") == nil)
    default:
      #expect(result.status == 5 && result.standardOutput.contains("expired"), "\(result)")
      #expect(try world.keyringItem(user, backend: "tv", kind: "token") == nil)
    }
  }

  @Test func withoutATerminalTheDeviceFlowExits3NamingTheCommand() throws {
    try provider.addUser("tom", password: "pw-tom")
    let client = try provider.addClient("tom-tv", grant: .deviceCode, confidential: false)
    let world = try Fixture().addingOAuthBackend(
      "tv", provider: provider, client: client, grant: "device_code",
      settings: ["device_authorization_endpoint=\(provider.deviceAuthorizationEndpoint)"])
    defer { world.close() }
    let result = try world.sandbox.run(["login", "tom@tv"])
    #expect(result.status == 3, "\(result)")
    #expect(result.standardError.contains("run `accounts login tom@tv` on a terminal"), "\(result)")
    #expect(try provider.liveTokens(ofClient: client.id).isEmpty)
  }

  /// A token revoked at the provider is seen as ended by a check through introspection and
  /// through userinfo: with no password to log in again, `token --check` exits 5. Both secret
  /// settings come on stdin, one line each.
  @Test(arguments: ["introspection", "userinfo"])
  func aTokenRevokedAtTheProviderIsSeenAsEnded(_ check: String) throws {
    let user = "ivy-\(check)"
    let client = try provider.userAndClient(user)
    let server = try provider.addClient("rs-\(check)", grant: .clientCredentials)
    var settings = ["check=\(check)"]
    if check == "introspection" {
      settings += ["introspection_endpoint=\(provider.introspectionEndpoint)", "introspection_client_id=\(server.id)"]
    }
    let world = try Fixture()
    defer { world.close() }
    try world.sandbox.ok(
      ["backend", "add", "id", "--adapter", "oauth2"]
        + (["issuer=\(provider.issuer)", "client_id=\(client.id)", "api_base=\(provider.issuer)"] + settings)
        .flatMap { ["--set", $0] }
        + ["--secret-stdin", "client_secret"] + (check == "introspection" ? ["--secret-stdin", "introspection_client_secret"] : []),
      stdin: client.secret! + "\n" + (check == "introspection" ? server.secret! + "\n" : ""))
    try world.logIn("\(user)@id", password: "pw-" + user)
    let fine = try world.sandbox.run(["token", "\(user)@id", "--check"])
    #expect(fine.status == 0, "\(fine)")
    try provider.revokeTokens(of: user)
    let ended = try world.sandbox.run(["token", "\(user)@id", "--check"])
    #expect(ended.status == 5, "\(ended)")
    #expect(try world.keyringItem(user, backend: "id", kind: "token") == nil)
    #expect(try world.keyringItem(user, backend: "id", kind: "refresh_token") == nil)
  }

  /// A pool of the provider's users: two leased at once, then renewed by `login --stale` with
  /// their refresh tokens (their passwords changed at the provider meanwhile).
  @Test func aPoolIsLeasedAndRenewedByLoginStaleThroughRefresh() throws {
    let client = try provider.addClient("pool-app", grant: .password)
    let world = try Fixture().addingOAuthBackend("qa", provider: provider, client: client)
    defer { world.close() }
    let users = ["qa-a", "qa-b", "qa-c"]
    let loggedIn = Date()
    for user in users {
      try provider.addUser(user, password: "pw-" + user)
      try world.logIn("\(user)@qa", password: "pw-" + user, ["--remember"])
      try world.sandbox.ok(["tag", "\(user)@qa", "qa"])
    }
    let leased = try world.sandbox.ok(
      ["lease", "--tag", "qa", "--count", "2", "--", "/bin/sh", "-c", "printf '%s' \"$ACCOUNTS_LEASED\""])
    #expect(Set(leased.standardOutput.split(separator: "\n")).count == 2, "\(leased)")

    for user in users { try provider.setPassword(of: user, to: "changed-elsewhere") }
    let before = try users.map { try world.keyringItem($0, backend: "qa", kind: "refresh_token") }
    waitUntil(pastExpiry, after: loggedIn)
    let stale = try world.sandbox.run(["login", "--stale", "--tag", "qa", "--json"])
    #expect(stale.status == 0, "\(stale)")
    let entries = try #require(try JSONSerialization.jsonObject(with: Data(stale.standardOutput.utf8)) as? [[String: Any]])
    #expect(entries.map { $0["action"] as? String } == ["logged_in", "logged_in", "logged_in"], "\(entries)")
    for (index, user) in users.enumerated() {
      let refresh = try world.keyringItem(user, backend: "qa", kind: "refresh_token")
      #expect(refresh != nil && refresh != before[index], "\(user)'s refresh token rotated")
      #expect(try provider.liveTokens(of: user).refresh.map(\.token) == [refresh!])
    }
  }

  /// The terminal's transcript until it shows "enter the code CODE" (bounded): CODE.
  private func waitForUserCode(in transcript: String) -> String? {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if let text = try? String(contentsOfFile: transcript, encoding: .utf8),
        let range = text.range(of: "enter the code ")
      {
        let code = text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
        if code.count >= 4, text[range.upperBound...].dropFirst(code.count).first?.isWhitespace == true {
          return String(code)
        }
      }
      Thread.sleep(forTimeInterval: 0.1)
    }
    return nil
  }
}
