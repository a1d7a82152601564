import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsSystem
import SecretMemory

@testable import AdapterKit

/// What comes back from a backend or across the adapter boundary: the built-in adapters' reply
/// interpreter over random statuses, headers and bodies (a backend may be hostile), the `codes`
/// setting, and the wire texts between the binary and the adapter host. The interpreter always
/// ends the step, on one line of text without control characters; wire texts read back as
/// written and anything else is a typed error.
enum AdapterReplyFuzz {
  static let replies = [
    #"{"userId": 1001, "token": "abc", "expiresIn": 3600}"#, #"{"userId": 0, "err": {"code": -1, "msg": "no"}}"#,
    #"{"err": {"code": "1001", "msg": "x\ny", "eventId": "https://u.example/\u0007"}}"#, #"{"expiresIn": 5}"#,
    #"{"userId": 7, "token": "a\u0000b", "expiresIn": -1}"#, "[]", "null", "", #"{"userId": 1e400}"#,
  ]
  static let pieces = [
    "{", "}", "\"", ",", ":", "null", "-1", "0", "1", "1.5", "1e3", "99999999999999999999", "-9223372036854775808",
    "\"userId\": ", "\"token\": ", "\"expiresIn\": ", "\"err\": {", "\"code\": ", "\"msg\": ", "\"eventId\": ",
    "\"\\u001b[2J\"", "\"\\u2028\"", "\"\\n\"", "\"\\u0000\"", "\"\\u202e\"",
  ]
  static let statuses: [Int32] = [
    200, 204, 299, 300, 301, 302, 303, 307, 308, 400, 401, 403, 404, 426, 500, 503, 0, -1, 999,
  ]
  static let codes = [
    "", "1001=wrong_password", "-2 = expired, 7=kicked,", "x=y", "1=2=3", "99999999999999999999=kicked",
  ]

  static func oneCase(_ fuzz: inout Case) {
    interpretReply(&fuzz)
    wireTexts(&fuzz)
  }

  static func interpretReply(_ fuzz: inout Case) {
    let codesText = fuzz.oneIn(4) ? fuzz.text(upTo: 20) : fuzz.pick(codes)
    var codes = ErrorCodes.defaults
    do {
      codes = try ErrorCodes(parsing: codesText)
    } catch {
      fuzz.check(oneLine(error.message), "the codes error is not one line: \(codesText.debugDescription)")
    }
    let interpreter = ReplyInterpreter(
      codes: codes,
      fields: fuzz.oneIn(4) ? ReplyFields(userID: fuzz.word(), token: "token", expiresIn: fuzz.word()) : .standard)
    let reply = Array(fuzz.pick(replies).utf8)
    let body: [UInt8] =
      switch fuzz.below(6) {
      case 0: fuzz.bytes(upTo: 64)
      case 1, 2: reply
      default: fuzz.mutated(reply, pieces: pieces)
      }
    let headers = (0..<fuzz.below(3)).map { _ in
      Pair(fuzz.pick(["location", "content-type", "Location"]), fuzz.oneIn(2) ? fuzz.word() : "https://u:p@h/x?q#f")
    }
    let status = fuzz.oneIn(8) ? Int32(truncatingIfNeeded: fuzz.random.next()) : fuzz.pick(statuses)
    let operation = fuzz.pick([Operation.login, .check, .logout, .call, .validate])
    let result = interpreter.interpret(Response(status: status, headers: headers, body: body), for: operation)
    let shown = "\(operation) HTTP \(status) \(headers) \(Case.show(body))"
    fuzz.tally(String(describing: result).prefix { $0 != "(" }.description)
    switch result {
    case .send, .show: fuzz.check(false, "a reply asked for another step: \(shown)")
    case .ok(let token, let expiresIn, _, _, let message, _):
      fuzz.check(
        token.unicodeScalars.allSatisfy { !Message.isControl($0) }, "a token with control characters: \(shown)")
      fuzz.check(operation != .login || !token.isEmpty, "a login without a token: \(shown)")
      fuzz.check(expiresIn >= 0, "a negative expiry: \(shown)")
      fuzz.check(oneLine(message), "a message not on one line: \(shown)")
    case .wrongPassword(let message), .sessionExpired(let message), .kicked(let message), .error(let message):
      fuzz.check(!message.isEmpty && oneLine(message), "a message empty or not on one line: \(result) for \(shown)")
    case .upgradeRequired(let message, let link):
      fuzz.check(oneLine(message) && oneLine(link), "a message not on one line: \(result) for \(shown)")
    }
  }

  /// The probe's error texts read back as written; mutated ones give a typed error.
  static func wireTexts(_ fuzz: inout Case) {
    let error: AccountsContract.AdapterLoadError =
      switch fuzz.below(3) {
      case 0: .hostMissing(detail: fuzz.word(), fix: fuzz.oneIn(2) ? nil : fuzz.word())
      case 1: .notFound(name: fuzz.word(), searched: [fuzz.word()], known: [])
      default: .refused(path: fuzz.word(), reason: fuzz.word())
      }
    fuzz.check(AccountsContract.AdapterLoadError(wireText: error.wireText) == error, "an error does not read back: \(error)")
    let broken = String(decoding: fuzz.mutated(Array(error.wireText.utf8), pieces: pieces), as: UTF8.self)
    _ = AccountsContract.AdapterLoadError(wireText: broken)
    if let value = try? JSON.parse(broken) { _ = try? AdapterEntry(wireReader: JSONReader(value)) }
  }

  /// No control characters, and not kilobytes long: each quoted part is cut at 300 characters.
  static func oneLine(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy { !Message.isControl($0) } && text.count <= 1000
  }
}
