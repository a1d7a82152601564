import AccountsJSON
import Testing

@testable import AccountsCore

/// The readers of files a person may edit or another program may break: the JSON parser, the
/// index (its fast reader and the general one) and config.json. Inputs are documents accounts
/// writes, mutated, and random JSON-ish bytes. Each reader returns a value or its typed error;
/// what it returns reads back the same after writing; the index's fast reader agrees with the
/// general one wherever it reads at all.
@Suite struct DocumentFuzzTests {
  @Test func jsonIndexAndConfig() async {
    let (seed, log) = (Fuzz.runSeed, Fuzz.logPath("documents"))
    await #expect(processExitsWith: .success) { [seed = seed as UInt64, log = log as String] in
      Fuzz.run("documents", seed: seed, log: log, DocumentFuzz.oneCase)
    }
    Fuzz.report("documents", log: log)
  }
}

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
  ]

  static let users = ["alice", "bob@example.com", "qa.user+1", "张三", "élise", "u_2", "Z"]
  static let backends = ["corp", "test", "a.b-c_d", "x"]

  static func oneCase(_ fuzz: inout Case) {
    let book = randomBook(&fuzz)
    let index = Array(IndexFormat.encode(book).utf8)
    let config = Array(ConfigFormat.encode(randomConfiguration(&fuzz)).utf8)
    if fuzz.oneIn(16) {
      checkIndex(index, &fuzz)
      let read = try? IndexFormat.decode(index, file: file)
      fuzz.check(read == book, "the index accounts wrote does not read back: \(Case.show(index))")
    }
    let bytes: [UInt8] =
      switch fuzz.below(8) {
      case 0: fuzz.bytes(upTo: 64)
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
    let pretty = fuzz.oneIn(2)
    let again = try? JSON.parse(JSON.serialize(value, pretty: pretty))
    fuzz.check(again == value, "JSON does not read back after writing (pretty: \(pretty)): \(Case.show(bytes))")
  }

  static func checkIndex(_ bytes: [UInt8], _ fuzz: inout Case) {
    let fast = IndexFastReader.read(bytes)
    let general: AccountBook?
    do {
      general = try IndexFormat.decodeGenerally(bytes, file: file)
    } catch {
      fuzz.check(error is FileError, "the index reader threw \(type(of: error)), no FileError: \(Case.show(bytes))")
      general = nil
    }
    if let fast {
      fuzz.check(fast == general, "the fast reader and the general one disagree: \(Case.show(bytes))")
    }
    if let general {
      let text = Array(IndexFormat.encode(general).utf8)
      fuzz.check(
        (try? IndexFormat.decode(text, file: file)) == general,
        "an index read does not read back after writing: \(Case.show(bytes))")
    }
  }

  static func checkConfig(_ bytes: [UInt8], _ fuzz: inout Case) {
    let configuration: Configuration
    do {
      configuration = try ConfigFormat.decode(bytes, file: file)
    } catch {
      fuzz.check(error is FileError, "the config reader threw \(type(of: error)), no FileError: \(Case.show(bytes))")
      return
    }
    let text = Array(ConfigFormat.encode(configuration).utf8)
    fuzz.check(
      (try? ConfigFormat.decode(text, file: file)) == configuration,
      "a config read does not read back after writing: \(Case.show(bytes))")
  }

  static func randomBook(_ fuzz: inout Case) -> AccountBook {
    var accounts: [Account] = []
    for number in 0..<fuzz.below(4) {
      let time = Timestamp(secondsSince1970: Int64(fuzz.below(4_000_000_000)))
      let token = fuzz.oneIn(2) ? nil : TokenRecord(expiresAt: fuzz.oneIn(3) ? nil : time, generation: fuzz.oneIn(2) ? nil : "g1")
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
        event: fuzz.pick(HookEvent.allCases), command: fuzz.text(upTo: 10),
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
