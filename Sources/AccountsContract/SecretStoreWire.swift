import AccountsJSON
import AccountsSystem
import Glibc
import SecretMemory

// The Secret Service code lives in a shared library that the command line loads only when a
// command needs a secret (see AccountsCLI/PrivateSecretStore.swift). Its errors and reports
// cross that C boundary as small JSON texts; both sides compile this one definition.

extension SecretStoreError {
  /// The error as one JSON object, e.g. `{"case":"locked","collection":"Login"}`.
  public var wireText: String {
    var object: JSONObject
    switch self {
    case .noSessionBus(let detail): object = ["case": .string("noSessionBus"), "detail": .string(detail)]
    case .noProvider(let detail): object = ["case": .string("noProvider"), "detail": .string(detail)]
    case .locked(let collection, let provider):
      object = ["case": .string("locked"), "collection": .string(collection), "provider": provider.map { .string($0) } ?? .null]
    case .timedOut(let operation, let seconds, let prompt):
      object = [
        "case": .string("timedOut"), "operation": .string(operation),
        "milliseconds": .number(JSONNumber(Int64((seconds * 1000).rounded()))), "prompt": .bool(prompt),
      ]
    case .stuck(let operation, let seconds):
      object = [
        "case": .string("stuck"), "operation": .string(operation),
        "milliseconds": .number(JSONNumber(Int64((seconds * 1000).rounded()))),
      ]
    case .accessNotGranted(let item, let provider):
      object = ["case": .string("accessNotGranted"), "item": .string(item), "provider": provider.map { .string($0) } ?? .null]
    case .noCollection(let provider):
      object = ["case": .string("noCollection"), "provider": provider.map { .string($0) } ?? .null]
    case .providerChanged(let stored, let current):
      object = ["case": .string("providerChanged"), "stored": .string(stored), "current": .string(current)]
    case .promptDismissed(let operation):
      object = ["case": .string("promptDismissed"), "operation": .string(operation)]
    case .failed(let operation, let detail):
      object = ["case": .string("failed"), "operation": .string(operation), "detail": .string(detail)]
    case .supportMissing(let detail, let fix):
      object = ["case": .string("supportMissing"), "detail": .string(detail), "fix": fix.map { .string($0) } ?? .null]
    }
    return JSON.serialize(.object(object), pretty: false)
  }

  /// The error `wireText` describes; anything unreadable becomes `.failed`, never a crash.
  public init(wireText: String) {
    do {
      let reader = JSONReader(try JSON.parse(wireText))
      switch try reader.string("case") {
      case "noSessionBus": self = .noSessionBus(detail: try reader.string("detail"))
      case "noProvider": self = .noProvider(detail: try reader.string("detail"))
      case "locked":
        self = .locked(collection: try reader.string("collection"), provider: try reader.optionalString("provider"))
      case "timedOut":
        self = .timedOut(
          operation: try reader.string("operation"),
          seconds: Double(try reader.int64("milliseconds")) / 1000, prompt: try reader.optionalBool("prompt") ?? false)
      case "stuck":
        self = .stuck(operation: try reader.string("operation"), seconds: Double(try reader.int64("milliseconds")) / 1000)
      case "accessNotGranted":
        self = .accessNotGranted(item: try reader.string("item"), provider: try reader.optionalString("provider"))
      case "noCollection": self = .noCollection(provider: try reader.optionalString("provider"))
      case "providerChanged":
        self = .providerChanged(stored: try reader.string("stored"), current: try reader.string("current"))
      case "promptDismissed": self = .promptDismissed(operation: try reader.string("operation"))
      case "supportMissing":
        self = .supportMissing(detail: try reader.string("detail"), fix: try reader.optionalString("fix"))
      case "failed":
        self = .failed(operation: try reader.string("operation"), detail: try reader.string("detail"))
      case let other:
        self = .failed(operation: "talk to the Secret Service library", detail: "unknown error '\(other)'")
      }
    } catch {
      self = .failed(operation: "talk to the Secret Service library", detail: "unreadable error")
    }
  }
}

extension SecretServiceReport {
  /// The report as one JSON object; absent facts are null.
  public var wireText: String {
    let object: JSONObject = [
      "provider": provider.map { .string($0) } ?? .null,
      "pid": providerProcessID.map { .number(JSONNumber(Int64($0))) } ?? .null,
      "collection": collection.map { .string($0) } ?? .null,
      "locked": collectionLocked.map { .bool($0) } ?? .null,
    ]
    return JSON.serialize(.object(object), pretty: false)
  }

  /// The report `wireText` describes; unreadable facts are nil.
  public init(wireText: String) {
    let reader = (try? JSON.parse(wireText)).map { JSONReader($0) }
    self.init(
      provider: try? reader?.optionalString("provider"),
      providerProcessID: (try? reader?.optionalInt64("pid")).flatMap { $0.flatMap { Int32(exactly: $0) } },
      collection: try? reader?.optionalString("collection"),
      collectionLocked: try? reader?.optionalBool("locked"))
  }
}

/// The secrets of many items across the C boundary (`secret_lookup_all` of accounts_private.h), never inside
/// a JSON text: one malloc'd buffer of records, one per item, each three fields (backend,
/// account, secret), each field a 4-byte little-endian length and that many bytes (backend and
/// account in UTF-8). The library makes the buffer and wipes it (explicit_bzero) when it frees
/// it (the table's `release` with the buffer's length).
public enum SecretRecords {
  /// A malloc'd buffer (at least one byte) with the records of `secrets`, and its length.
  public static func encode(_ secrets: [SecretKey: SecretBytes]) -> (bytes: UnsafeMutableRawPointer, count: Int) {
    var total = 0
    for (key, secret) in secrets { total += 12 + key.backend.utf8.count + key.account.utf8.count + secret.count }
    let buffer = UnsafeMutableRawBufferPointer(start: malloc(max(total, 1))!, count: total)
    var offset = 0
    func field(_ bytes: UnsafeRawBufferPointer) {
      precondition(bytes.count <= Int(UInt32.max), "a field of at most 4 GiB")
      withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { length in
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + 4]).copyMemory(from: length)
      }
      offset += 4
      if bytes.count > 0 {
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + bytes.count]).copyMemory(from: bytes)
      }
      offset += bytes.count
    }
    for (key, secret) in secrets {
      var backend = key.backend
      var account = key.account
      backend.withUTF8 { field(UnsafeRawBufferPointer($0)) }
      account.withUTF8 { field(UnsafeRawBufferPointer($0)) }
      secret.withUnsafeBytes { field($0) }
    }
    return (buffer.baseAddress!, total)
  }

  /// The secrets of the records in `bytes`, all of `kind`. The caller still owns (and wipes)
  /// `bytes`; each secret is copied straight into its `SecretBytes`. A malformed buffer throws
  /// `.failed`, never a crash.
  public static func decode(_ bytes: UnsafeRawBufferPointer, kind: SecretKind) throws(SecretStoreError) -> [SecretKey: SecretBytes] {
    let unreadable = SecretStoreError.failed(operation: "talk to the Secret Service library", detail: "unreadable secret records")
    var offset = 0
    func field() throws(SecretStoreError) -> UnsafeRawBufferPointer {
      guard bytes.count - offset >= 4 else { throw unreadable }
      var length: UInt32 = 0
      withUnsafeMutableBytes(of: &length) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 4])) }
      offset += 4
      let count = Int(UInt32(littleEndian: length))
      guard bytes.count - offset >= count else { throw unreadable }
      defer { offset += count }
      return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }
    func text() throws(SecretStoreError) -> String {
      guard let text = String(validating: try field().bindMemory(to: UInt8.self), as: UTF8.self) else { throw unreadable }
      return text
    }
    var secrets: [SecretKey: SecretBytes] = [:]
    while offset < bytes.count {
      let key = SecretKey(backend: try text(), account: try text(), kind: kind)
      secrets[key] = SecretBytes(copying: try field())
    }
    return secrets
  }
}
