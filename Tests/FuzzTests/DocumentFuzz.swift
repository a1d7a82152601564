@testable import AccountsContract
import AccountsJSON

@testable import AccountsCore
import AccountsSystem

/// The readers of files a person may edit or another program may break: the JSON parser, the
/// index (its fast reader and the general one) and config.json. Inputs are documents accounts
/// writes, mutated, and random JSON-ish bytes. Each reader returns a value or its typed error;
/// what it returns reads back the same after writing; the index's fast reader agrees with the
/// general one wherever it reads at all.
enum DocumentFuzz {
  static let file = DocumentFile(path: "/nonexistent/fuzz.json")

  /// Pieces spliced into documents.
  static let pieces = [
    "{", "}", "[", "]", "\"", ",", ":", " ", "null", "true", "false", "0", "-1", "1.0", "1e5", "01", "\"\\u0000\"",
    "\"\\ud800\"", "\"\\udc00\\ud800\"", "\"\\u00e9\"", "\\", "\"version\": 1", "\"version\": 2", "\"accounts\": []",
    "\"user\": \"x\"", "\"user\": \"-x\"", "\"backend\": \"corp\"", "\"added_at\": \"2026-01-01T00:00:00Z\"",
    "\"2026-02-30T25:61:61Z\"", "\"tags\": [\"qa\"]", "\"token\": {}", "\"expires_at\": null", "\"unsettled\": [",
    "\"auto_login\": \"a@b\"", "\"backends\": {}", "\"adapter\": \"plain\"", "\"settings\": {\"a\": \"b\"}",
    "\"rules\": {\"/tmp\": \"a@b\"}", "\"hooks\": [{\"event\": \"switch\", \"command\": \"true\"}]",
    "\"timeout\": 99999999999999999999", "\"secret_service\": \"x\"", "\"otp\": true",
    "\"0000-01-01T00:00:00+01:00\"", "\"9999-12-31T23:59:59-23:59\"", "\"2024-02-29T23:59:60.5z\"",
    "\"2026-01-01t00:00:00+00:00\"", "\"generation\": \"g\"", "\"previous_auto_login\": null", "\"session\": {}",
    "\"" + String(repeating: "k", count: 3000) + "\": ", "\"" + String(repeating: "v", count: 3000) + "\"",
  ]

  static let users = ["alice", "bob@example.com", "qa.user+1", "张三", "élise", "u_2", "Z"]
  static let backends = ["corp", "test", "a.b-c_d", "x"]

  static func oneCase(_ fuzz: inout Case) {
    let book = randomBook(&fuzz)
    let index = Array(IndexFormat.encode(book).utf8)
    let config = Array(ConfigFormat.encode(randomConfiguration(&fuzz)).utf8)
    let read = try? IndexFormat.decode(index, file: file)
    fuzz.check(read == book, "the index accounts wrote does not read back: \(Case.show(index))")
    checkIndex(index, &fuzz, tally: false)
    checkConfig(config, &fuzz, tally: false)
    let bytes: [UInt8] =
      switch fuzz.below(12) {
      case 0: fuzz.bytes(upTo: 64)
      case 8: Array(JSON.serialize(randomValue(&fuzz, depth: 0), pretty: fuzz.oneIn(2)).utf8)
      case 9, 10, 11:
        // Well-formed JSON of nearly the right shape: what gets past the parser to the readers.
        Array(JSON.serialize(mutatedTree(try! JSON.parse(fuzz.oneIn(2) ? index : config), &fuzz), pretty: true).utf8)
      case 1: Array(repeating: fuzz.pick(Array("[{".utf8)), count: fuzz.below(1200)) + fuzz.bytes(upTo: 8)
      case 2, 3, 4: fuzz.mutated(index, pieces: pieces)
      default: fuzz.mutated(config, pieces: pieces)
      }
    checkJSON(bytes, &fuzz)
    checkIndex(bytes, &fuzz)
    checkConfig(bytes, &fuzz)
  }

  /// A value or a JSONParseError; a value writes back (compact or pretty) to itself.
  static func checkJSON(_ bytes: [UInt8], _ fuzz: inout Case) {
    guard let value = try? JSON.parse(bytes) else { return }
    fuzz.tally("json read")
    let pretty = fuzz.oneIn(2)
    let again = try? JSON.parse(JSON.serialize(value, pretty: pretty))
    fuzz.check(again == value, "JSON does not read back after writing (pretty: \(pretty)): \(Case.show(bytes))")
  }

  /// `tally`: count what was read in the summary (the fuzzed documents, not the valid ones).
  static func checkIndex(_ bytes: [UInt8], _ fuzz: inout Case, tally: Bool = true) {
    let fast = IndexFastReader.read(bytes)
    let general: AccountBook?
    do {
      general = try IndexFormat.decodeGenerally(bytes, file: file)
    } catch {
      fuzz.check(error is FileError, "the index reader threw \(type(of: error)), no FileError: \(Case.show(bytes))")
      checkLength(error, bytes, &fuzz)
      general = nil
    }
    if general != nil, tally { fuzz.tally("index read") }
    if let fast {
      if tally { fuzz.tally("index read fast") }
      fuzz.check(fast == general, "the fast reader and the general one disagree: \(Case.show(bytes))")
    }
    if let general {
      let text = Array(IndexFormat.encode(general).utf8)
      fuzz.check(
        (try? IndexFormat.decode(text, file: file)) == general,
        "an index read does not read back after writing: \(Case.show(bytes))")
    }
  }

  static func checkConfig(_ bytes: [UInt8], _ fuzz: inout Case, tally: Bool = true) {
    let configuration: Configuration
    do {
      configuration = try ConfigFormat.decode(bytes, file: file)
    } catch {
      fuzz.check(error is FileError, "the config reader threw \(type(of: error)), no FileError: \(Case.show(bytes))")
      checkLength(error, bytes, &fuzz)
      return
    }
    if tally { fuzz.tally("config read") }
    let text = Array(ConfigFormat.encode(configuration).utf8)
    fuzz.check(
      (try? ConfigFormat.decode(text, file: file)) == configuration,
      "a config read does not read back after writing: \(Case.show(bytes))")
  }

  /// A JSON value of any shape, with the index's and config's member names among others.
  static func randomValue(_ fuzz: inout Case, depth: Int) -> JSONValue {
    let keys = [
      "version", "accounts", "user", "backend", "backends", "hooks", "rules", "token", "tags", "", "é", "a\u{0}",
      String(repeating: "k", count: 3000),
    ]
    switch depth > 4 ? fuzz.below(4) : fuzz.below(6) {
    case 0: return fuzz.pick([.null, .bool(true), .bool(false)])
    case 1:
      let numbers = ["0", "-1", "1", "1.5e-3", "-0.0", "1E400", "12345678901234567890"]
      return .number(JSONNumber(text: fuzz.pick(numbers))!)
    case 2, 3: return .string(fuzz.oneIn(2) ? fuzz.pick(pieces) : fuzz.text(upTo: 8))
    case 4: return .array((0..<fuzz.below(4)).map { _ in randomValue(&fuzz, depth: depth + 1) })
    default:
      var object = JSONObject()
      for _ in 0..<fuzz.below(5) { object[fuzz.pick(keys)] = randomValue(&fuzz, depth: depth + 1) }
      return .object(object)
    }
  }

  /// `value` with one member or element changed, added, removed or renamed, somewhere.
  static func mutatedTree(_ value: JSONValue, _ fuzz: inout Case) -> JSONValue {
    switch value {
    case .object(var object) where !object.isEmpty && !fuzz.oneIn(6):
      let key = fuzz.pick(object.keys)
      switch fuzz.below(6) {
      case 0: object[key] = nil
      case 1:
        let added = fuzz.pick(["version", "accounts", "user", "tags", "hooks", "x", String(repeating: "k", count: 300)])
        object[added] = randomValue(&fuzz, depth: 3)
      case 2:
        let moved = object[key]
        object[key] = nil
        object[key + fuzz.pick(["", "x", "\u{0}", "é", String(repeating: "k", count: 3000)])] = moved
      default: object[key] = mutatedTree(object[key]!, &fuzz)
      }
      return .object(object)
    case .array(var array) where !array.isEmpty && !fuzz.oneIn(6):
      let at = fuzz.below(array.count)
      switch fuzz.below(5) {
      case 0: array.remove(at: at)
      case 1: array.append(fuzz.oneIn(2) ? array[at] : randomValue(&fuzz, depth: 3))
      default: array[at] = mutatedTree(array[at], &fuzz)
      }
      return .array(array)
    default:
      return randomValue(&fuzz, depth: 3)
    }
  }

  /// An error names where the file is wrong, quoting the file in part: no line of kilobytes.
  static func checkLength(_ error: any Error, _ bytes: [UInt8], _ fuzz: inout Case) {
    guard let error = error as? FileError else { return }
    let length = error.message.count + (error.fix?.count ?? 0)
    fuzz.check(length <= 1000, "an error of \(length) characters: \(error.message.prefix(300).debugDescription)…")
  }

  static func randomBook(_ fuzz: inout Case) -> AccountBook {
    var accounts: [Account] = []
    for number in 0..<fuzz.below(4) {
      let time = Timestamp(secondsSince1970: Int64(fuzz.below(4_000_000_000)))
      let token =
        fuzz.oneIn(2) ? nil : TokenRecord(expiresAt: fuzz.oneIn(3) ? nil : time, generation: fuzz.oneIn(2) ? nil : "g1")
      accounts.append(
        Account(
          id: AccountID(user: fuzz.pick(users) + String(number), backend: fuzz.pick(backends)),
          remembered: fuzz.oneIn(2), token: token, lastLogin: fuzz.oneIn(2) ? nil : time, addedAt: time,
          session: fuzz.oneIn(2) ? [:] : ["userId": fuzz.text(upTo: 6)],
          tags: (0..<fuzz.below(3)).map { _ in fuzz.pick(["qa", "smoke.1", "b_2", "Z"]) }, otp: fuzz.oneIn(3),
          unknownFields: fuzz.oneIn(4) ? ["future": .string(fuzz.text(upTo: 4))] : [:]))
    }
    let ids = accounts.map(\.id)
    let book = try? AccountBook(
      accounts: accounts, autoLogin: ids.isEmpty || fuzz.oneIn(2) ? nil : fuzz.pick(ids),
      previousAutoLogin: ids.isEmpty || fuzz.oneIn(2) ? nil : fuzz.pick(ids),
      unsettled: ids.isEmpty || fuzz.oneIn(2) ? [] : [fuzz.pick(ids)],
      secretService: fuzz.oneIn(2) ? nil : "gnome-keyring-daemon")
    return book ?? AccountBook()
  }

  static func randomConfiguration(_ fuzz: inout Case) -> Configuration {
    var backendConfigs: [BackendConfig] = []
    for name in backends where fuzz.oneIn(2) {
      backendConfigs.append(
        BackendConfig(
          name: name, adapter: fuzz.pick(["plain", "hmac", "signed"]),
          settings: ["base_url": "http://127.0.0.1:\(fuzz.below(65536))", "app_key": fuzz.text(upTo: 5)],
          secretSettings: fuzz.oneIn(2) ? [] : ["secret"]))
    }
    let account = AccountID(user: fuzz.pick(users), backend: fuzz.pick(backends))
    let hooks = (0..<fuzz.below(3)).map { _ in
      Hook(
        event: fuzz.pick(HookEvent.allCases), command: "echo " + fuzz.text(upTo: 10).filter { $0 != "\u{0}" },
        scope: fuzz.pick([.every, .backend(fuzz.pick(backends)), .account(account)]), withToken: fuzz.oneIn(2),
        timeout: 1 + fuzz.below(Hook.timeoutLimit))
    }
    let configuration = try? Configuration(
      backends: backendConfigs, unsettled: fuzz.oneIn(2) ? [] : [fuzz.pick(backends)],
      secretService: fuzz.oneIn(2) ? nil : "keepassxc",
      rules: fuzz.oneIn(2) ? [] : [DirectoryRule(directory: "/tmp/w\(fuzz.below(9))", account: account)], hooks: hooks,
      unknownFields: fuzz.oneIn(3) ? ["later": .array([.null])] : [:])
    return configuration ?? (try! Configuration())
  }
}
