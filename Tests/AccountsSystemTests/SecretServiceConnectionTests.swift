import Foundation
import Glibc
import SecretMemory
import Testing

@testable import AccountsSystem

/// Whose replies the bare client takes: the bus's own answers only from the bus, and the Secret
/// Service's only from the process that owned it when the connection opened (a call to the
/// well-known name is answered by whoever owns it when the call arrives). A real bus stamps
/// every sender truthfully, so these run on a fake one that sends a reply from an impostor.
@Suite struct SecretServiceConnectionTests {
  /// Every call the bare read makes, each answered in turn by an impostor (nil: by none).
  static let readCalls: [String?] = [
    nil, "GetNameOwner", "GetConnectionUnixProcessID", "OpenSession", "ReadAlias", "Get", "SearchItems", "GetSecret",
  ]

  @Test(arguments: readCalls)
  func aReadTakesOnlyTheProvidersReplies(impostorAnswers member: String?) throws {
    let service = FakeSecretService(secret: Array("hunter2".utf8), impostorAnswers: member)
    let read = try FakeSecretService.run(service) { bus in
      // The test's own program is no gnome-keyring: the default collection is asked first too.
      guard let session = try SecretServiceSession(busAddress: bus, timeout: 5),
        let found = try session.search([("account", "alice")]), let item = found.unlocked.first,
        let secret = try session.secret(at: item)
      else { return nil as [UInt8]? }
      return secret.withUnsafeBytes { Array($0) }
    }
    if member == nil {
      #expect(read == Array("hunter2".utf8))
    } else {
      #expect(read == nil, "\(member!) answered by another process")
    }
  }

  @Test(arguments: [nil, "GetNameOwner", "ReadAlias", "Get"])
  func theLockProbeTakesOnlyTheProvidersReplies(impostorAnswers member: String?) throws {
    let service = FakeSecretService(secret: [], impostorAnswers: member)
    let expected = SecretServiceLockProbe.State(
      owner: FakeSecretService.owner, collection: FakeSecretService.collection, collectionLocked: false)
    let fresh = try FakeSecretService.run(service) { bus in try SecretServiceLockProbe.state(busAddress: bus, timeout: 5) }
    let again = try FakeSecretService.run(service) { bus in
      try SecretServiceLockProbe.state(busAddress: bus, timeout: 5, expected: expected, item: FakeSecretService.item)
    }
    #expect(fresh == (member == nil ? expected : nil))
    #expect(again == (member == nil ? expected : nil))
  }

  @Test(arguments: [nil, "GetNameOwner", "ReadAlias", "SearchItems", "Get"])
  func theItemProbeTakesOnlyTheProvidersReplies(impostorAnswers member: String?) throws {
    let service = FakeSecretService(secret: [], impostorAnswers: member)
    let found = try FakeSecretService.run(service) { bus in
      SecretServiceLockProbe.itemState(busAddress: bus, attributes: [("account", "alice")], timeout: 5)
    }
    let expected = SecretServiceLockProbe.State(
      owner: FakeSecretService.owner, collection: FakeSecretService.collection, collectionLocked: false)
    #expect(found?.state == (member == nil ? expected : nil))
    #expect(found?.item == (member == nil ? FakeSecretService.item : nil))
  }

  @Test(arguments: [nil, "GetNameOwner", "SearchItems", "Get"])
  func doctorsListingTakesOnlyTheProvidersReplies(impostorAnswers member: String?) throws {
    let service = FakeSecretService(secret: [], impostorAnswers: member)
    let items = try FakeSecretService.run(service) { bus in try SecretServiceItems.items(busAddress: bus, timeout: 5) }
    #expect(items?.map(\.path) == (member == nil ? [FakeSecretService.item] : nil))
  }

  /// gnome-keyring makes its record of a caller after the calls of the caller's first write
  /// to it, and a SearchItems without one is an error: doctor's listing, the item probe and
  /// a read with its search asked early each search only once the service has answered.
  @Test func noSearchGoesOutBeforeTheServiceHasAnsweredACall() throws {
    let listed = try FakeSecretService.run(FakeSecretService(secret: [], impostorAnswers: nil, recordsCallersLate: true)) {
      bus in try SecretServiceItems.items(busAddress: bus, timeout: 5)
    }
    #expect(listed?.map(\.path) == [FakeSecretService.item])
    let probed = try FakeSecretService.run(FakeSecretService(secret: [], impostorAnswers: nil, recordsCallersLate: true)) {
      bus in SecretServiceLockProbe.itemState(busAddress: bus, attributes: [("account", "alice")], timeout: 5)
    }
    #expect(probed?.item == FakeSecretService.item)
    let read = try FakeSecretService.run(
      FakeSecretService(secret: Array("hunter2".utf8), impostorAnswers: nil, recordsCallersLate: true)
    ) { bus in
      let attributes = [("account", "alice")]
      guard let session = try SecretServiceSession(busAddress: bus, timeout: 5, searching: attributes),
        let item = try session.search(attributes)?.unlocked.first, let secret = try session.secret(at: item)
      else { return nil as [UInt8]? }
      return secret.withUnsafeBytes { Array($0) }
    }
    #expect(read == Array("hunter2".utf8))
  }
}

/// The Secret Service of one unlocked item in the default collection, on a `FakeSessionBus`;
/// its replies to the calls of `impostorAnswers` come from another process than the owner of
/// the service, as a provider that took over the name would send them.
///
/// `recordsCallersLate`: as gnome-keyring-daemon 42 does under load, the record of a caller
/// is made after every call of the write that first reached the service has been dispatched,
/// and a SearchItems without one gets GDBus's UnknownMethod error (its handler returns
/// FALSE when it finds no record).
final class FakeSecretService: @unchecked Sendable {
  static let owner = ":1.7"
  static let impostor = ":1.9"
  static let collection = "/org/freedesktop/secrets/collection/login"
  static let item = collection + "/1"
  static let session = "/org/freedesktop/secrets/session/1"

  let secret: [UInt8]
  let impostorAnswers: String?
  private let key = SecretServiceSessionKey()!
  /// Agreed in OpenSession; only the bus's thread touches it.
  private var cipher: SecretSessionCipher?

  let recordsCallersLate: Bool
  /// The read that brought the first call to the service; only the bus's thread touches it.
  private var firstRead: Int?

  init(secret: [UInt8], impostorAnswers: String?, recordsCallersLate: Bool = false) {
    self.secret = secret
    self.impostorAnswers = impostorAnswers
    self.recordsCallersLate = recordsCallersLate
  }

  /// `body` with the address of a fake bus this service answers on, the bus closed after it.
  static func run<T>(_ service: FakeSecretService, _ body: (String) throws -> T) throws -> T {
    let bus = try FakeSessionBus(answerRead: service.answer)
    defer { bus.close() }
    return try body(bus.address)
  }

  func answer(_ call: DBusMessage, read: Int) -> [DBusMessage] {
    let member = call.member ?? ""
    let bus = "org.freedesktop.DBus"
    if call.destination != bus {
      if firstRead == nil { firstRead = read }
      if recordsCallersLate, read == firstRead, member == "SearchItems" {
        let text = "Method SearchItems is not implemented on interface org.freedesktop.Secret.Service"
        return [DBusMessage(
          kind: .error, serial: 1, errorName: "org.freedesktop.DBus.Error.UnknownMethod", replySerial: call.serial,
          destination: ":1.1", sender: Self.owner, body: [.string(text)])]
      }
    }
    let sender = member == impostorAnswers ? Self.impostor : call.destination == bus ? bus : Self.owner
    let body: [DBusMessage.Value]
    switch (member, call.body.last) {
    case ("Hello", _): body = [.string(":1.1")]
    case ("GetNameOwner", _): body = [.string(Self.owner)]
    case ("GetConnectionUnixProcessID", _): body = [.uint32(UInt32(getpid()))]
    case ("OpenSession", .variant(.bytes(let clientKey))?):
      cipher = key.agree(withServicePublicKey: clientKey)
      body = [.variant(.bytes(key.publicKey)), .objectPath(Self.session)]
    case ("ReadAlias", _): body = [.objectPath(Self.collection)]
    case ("SearchItems", _): body = [.array(element: "o", [.objectPath(Self.item)]), .array(element: "o", [])]
    case ("Get", .string("Locked")?): body = [.variant(.boolean(false))]
    case ("Get", .string("Attributes")?):
      body = [.variant(.array(element: "{ss}", [.dictionaryEntry(.string("account"), .string("alice"))]))]
    case ("GetSecret", _):
      let iv = [UInt8](repeating: 7, count: 16)
      guard let encrypted = try? cipher?.encrypt(secret, iv: iv) else { return [] }
      body = [.structure([.objectPath(Self.session), .bytes(iv), .bytes(encrypted), .string("text/plain")])]
    default: return []
    }
    return [FakeSessionBus.reply(to: call, from: sender, body)]
  }
}
