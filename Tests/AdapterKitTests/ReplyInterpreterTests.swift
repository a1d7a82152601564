import Testing

@testable import AdapterKit

@Suite struct ReplyInterpreterTests {
  let interpreter = ReplyInterpreter(codes: .defaults)

  func login(_ json: String, status: Int32 = 200) -> StepResult {
    interpreter.interpret(.json(json, status: status), for: .login)
  }

  @Test func aGoodLoginGivesTokenExpiryAndUserID() {
    #expect(
      login(#"{"userId": 1001, "token": "abc", "expiresIn": 3600}"#)
        == .ok(token: "abc", expiresIn: 3600, sessionValues: [Pair("userId", "1001")]))
    #expect(
      login(#"{"userId": 7, "token": "abc"}"#)
        == .ok(token: "abc", expiresIn: 0, sessionValues: [Pair("userId", "7")]),
      "a missing expiry is unknown (0)")
    #expect(
      login(#"{"userId": 7, "token": "abc", "expiresIn": null}"#)
        == .ok(token: "abc", sessionValues: [Pair("userId", "7")]))
  }

  @Test func theConfiguredFieldNamesAreRead() {
    let custom = ReplyInterpreter(
      codes: .defaults, fields: ReplyFields(userID: "uid", token: "sid", expiresIn: "ttl"))
    #expect(
      custom.interpret(.json(#"{"uid": 3, "sid": "s", "ttl": 9, "userId": 0}"#), for: .login)
        == .ok(token: "s", expiresIn: 9, sessionValues: [Pair("userId", "3")]))
  }

  @Test func noPositiveUserIDIsAWrongPassword() {
    #expect(
      login(#"{"userId": 0, "err": {"code": -1, "msg": "wrong username or password"}}"#)
        == .wrongPassword("wrong username or password"))
    #expect(login(#"{"userId": -5}"#) == .wrongPassword(ReplyInterpreter.rejected))
    #expect(login("{}") == .wrongPassword(ReplyInterpreter.rejected))
    #expect(login(#"{"userId": null}"#) == .wrongPassword(ReplyInterpreter.rejected))
  }

  @Test func anUnmappedErrorWithoutAUserIDIsAnErrorNotAVerdictOnThePassword() throws {
    #expect(login(#"{"err": {"code": -2, "msg": "bad signature"}}"#) == .error("bad signature"))
    #expect(
      ReplyInterpreter(codes: try ErrorCodes(parsing: "1001=wrong_password"))
        .interpret(.json(#"{"err": {"code": 1001, "msg": "nope"}}"#), for: .login)
        == .wrongPassword("nope"), "unless the codes say it is")
  }

  @Test(arguments: [
    (#"{"userId": "1001", "token": "t"}"#, #"a string in "userId", expected an integer"#),
    (#"{"userId": 1.5, "token": "t"}"#, #"the number 1.5 in "userId""#),
    (#"{"userId": 1e3, "token": "t"}"#, #"the number 1e3 in "userId""#),
    (#"{"userId": 99999999999999999999, "token": "t"}"#, "the number 99999999999999999999"),
    (#"{"userId": true, "token": "t"}"#, "a boolean in \"userId\""),
    (#"{"userId": [1], "token": "t"}"#, "an array in \"userId\""),
    (#"{"userId": 1}"#, #""token" is nothing, expected a non-empty string"#),
    (#"{"userId": 1, "token": ""}"#, #""token" is empty"#),
    (#"{"userId": 1, "token": 42}"#, #""token" is a number"#),
    (#"{"userId": 1, "token": "a\u0000b"}"#, "token contains control characters"),
    (#"{"userId": 1, "token": "t", "expiresIn": -1}"#, "expected a non-negative integer"),
    (#"{"userId": 1, "token": "t", "expiresIn": "soon"}"#, #"a string in "expiresIn""#),
    (#"{"userId": 1, "token": "t", "expiresIn": 1e400}"#, "= 1e400"),
  ])
  func wrongTypesAreErrorsThatNameTheField(json: String, fragment: String) {
    guard case .error(let message) = login(json) else {
      Issue.record("\(json) gave \(login(json))")
      return
    }
    #expect(message.contains(fragment), "\(message)")
  }

  @Test func notJSONOrNotAnObjectIsAnErrorWithTheStatus() {
    #expect(login("<html>not json</html>") == .error("the backend's reply is not JSON (HTTP 200)"))
    #expect(login("", status: 502) == .error("the backend's reply is not JSON (HTTP 502)"))
    #expect(login(String(repeating: "[", count: 100_000)).isFinal)
    #expect(login("[1]") == .error("the backend's reply is not a JSON object (HTTP 200)"))
    #expect(
      interpreter.interpret(Response(status: 200, body: [0xFF, 0xFE]), for: .call)
        == .error("the backend's reply is not JSON (HTTP 200)"))
  }

  @Test func http401DependsOnTheOperation() {
    let reply = Response.json(#"{"err": {"code": -100, "msg": "token expired"}}"#, status: 401)
    // At LOGIN there is no session to expire: whatever the body says, the credentials were
    // rejected (exit 4), and the message must not say otherwise.
    #expect(interpreter.interpret(reply, for: .login) == .wrongPassword(ReplyInterpreter.rejected + " (HTTP 401)"))
    #expect(interpreter.interpret(reply, for: .check) == .sessionExpired("token expired"))
    #expect(interpreter.interpret(reply, for: .call) == .sessionExpired("token expired"))
    #expect(interpreter.interpret(reply, for: .logout) == .ok)
    let bare = Response(status: 401, body: Array("Unauthorized".utf8))
    #expect(interpreter.interpret(bare, for: .login) == .wrongPassword(ReplyInterpreter.rejected + " (HTTP 401)"))
    #expect(
      interpreter.interpret(bare, for: .check)
        == .sessionExpired("the backend says the session expired (HTTP 401)"))
  }

  @Test func mappedCodesDecideBeforeTheStatus() {
    let kicked = Response.json(#"{"err": {"code": -101, "msg": "signed in on another device"}}"#)
    #expect(interpreter.interpret(kicked, for: .check) == .kicked("signed in on another device"))
    #expect(interpreter.interpret(kicked, for: .call) == .kicked("signed in on another device"))
    #expect(interpreter.interpret(kicked, for: .logout) == .ok)
    let expired = Response.json(#"{"err": {"code": -100}}"#, status: 500)
    #expect(
      interpreter.interpret(expired, for: .call)
        == .sessionExpired("the backend says the session expired"))
    #expect(interpreter.interpret(expired, for: .logout) == .ok)
    let upgrade = Response.json(
      #"{"err": {"code": -99, "msg": "too old", "eventId": "https://example.invalid/up"}}"#)
    for operation in [Operation.login, .check, .logout, .call] {
      #expect(
        interpreter.interpret(upgrade, for: operation)
          == .upgradeRequired("too old", link: "https://example.invalid/up"))
    }
    #expect(
      interpreter.interpret(.json(#"{"err": {"code": "-101"}}"#), for: .check)
        == .kicked("signed in elsewhere"), "a code written as a string still maps")
  }

  @Test func otherStatusesAreErrorsWithTheBackendsMessage() {
    #expect(
      interpreter.interpret(
        .json(#"{"err": {"code": -2, "msg": "status 500"}}"#, status: 500),
        for: .call) == .error("the backend answered HTTP 500: status 500"))
    #expect(
      interpreter.interpret(.json(#"{"ok": true}"#, status: 503), for: .logout)
        == .error("the backend answered HTTP 503"))
  }

  /// A login has no session yet: a code the codes setting maps to "expired" or "signed in
  /// elsewhere" cannot mean that there, so it is the backend's error in its own words (exit
  /// 8), not a session that ended (exit 5) in the middle of logging in.
  @Test func sessionCodesAtLoginAreTheBackendsErrors() {
    #expect(
      login(#"{"err": {"code": -100, "msg": "token expired"}}"#)
        == .error("the backend refused the login with error -100: token expired"))
    #expect(login(#"{"err": {"code": -101}}"#) == .error("the backend refused the login with error -101"))
    #expect(
      interpreter.interpret(.json(#"{"err": {"code": -100}}"#), for: .check)
        == .sessionExpired("the backend says the session expired"), "after a login it is what it says")
  }

  /// accounts follows no redirect: say that it was one, where to, and what to check, instead of
  /// "not JSON" about the redirect page.
  @Test func redirectsAreNamedWithTheirTargetAndTheFix() {
    let fix = ", which accounts does not follow; check base_url (https instead of http? the right path?)"
    let moved = Response(
      status: 301, headers: [Pair("location", "https://id.example/api/login")],
      body: Array("<html>Moved Permanently</html>".utf8))
    for operation in [Operation.login, .check, .logout, .call] {
      #expect(
        interpreter.interpret(moved, for: operation)
          == .error("the backend answered with a redirect (HTTP 301) to https://id.example/api/login" + fix))
    }
    #expect(
      interpreter.interpret(.json(#"{"err": {"code": -2, "msg": "moved"}}"#, status: 302), for: .login)
        == .error("the backend answered with a redirect (HTTP 302)" + fix), "no Location")
    // A GET login's query holds the password, and a redirect may repeat it: never shown.
    let query = Response(
      status: 307, headers: [Pair("location", "https://user:pw@id.example/login?password=123456#top\u{1b}[2J")])
    #expect(
      interpreter.interpret(query, for: .login)
        == .error("the backend answered with a redirect (HTTP 307) to https://id.example/login" + fix))
    #expect(interpreter.interpret(Response(status: 304), for: .check) == .error("the backend's reply is not JSON (HTTP 304)"))
  }

  @Test func checkReadsTheRemainingLifetimeWhenThereIsOne() {
    #expect(
      interpreter.interpret(.json(#"{"userId": 1, "expiresIn": 42}"#), for: .check)
        == .ok(expiresIn: 42))
    #expect(interpreter.interpret(.json(#"{"expiresIn": "x"}"#), for: .check) == .ok)
    #expect(interpreter.interpret(.json(#"{"expiresIn": -4}"#), for: .check) == .ok)
    #expect(
      interpreter.interpret(.json(#"{"err": {"code": 7, "msg": "maintenance"}}"#), for: .check)
        == .error("maintenance"))
    #expect(
      interpreter.interpret(.json(#"{"err": {"code": 7}}"#), for: .check)
        == .error("the backend reported error 7"))
  }

  @Test func logoutIsFineOnAny2xx() {
    #expect(interpreter.interpret(Response(status: 204), for: .logout) == .ok)
    #expect(interpreter.interpret(.json("not json"), for: .logout) == .ok)
    #expect(interpreter.interpret(.json(#"{"ok": true}"#), for: .logout) == .ok)
  }

  @Test func callReturnsTheRawBody() {
    let body = #"{"ok": true, "params": {"a": "b"}}"#
    #expect(interpreter.interpret(.json(body), for: .call) == .ok(body: Array(body.utf8)))
    #expect(
      interpreter.interpret(.json(#"{"err": {"code": -2, "msg": "no"}}"#), for: .call)
        == .error("no"))
  }

  @Test func backendTextIsKeptOnOneLine() {
    let result = interpreter.interpret(
      .json(#"{"err": {"code": -2, "msg": "line one\nline two\u001b[31m"}}"#), for: .call)
    #expect(result == .error("line one line two [31m"))
    let long = String(repeating: "x", count: 5000)
    guard
      case .error(let message) = interpreter.interpret(
        .json(#"{"err": {"code": -2, "msg": "\#(long)"}}"#), for: .call)
    else {
      Issue.record("expected an error")
      return
    }
    #expect(message.count == Message.foreignTextLimit + 1)
  }
}
