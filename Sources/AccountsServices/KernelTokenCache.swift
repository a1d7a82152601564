import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc
import SecretMemory

/// The token cache in the kernel keyring (`TokenCache`): one "user" key per account in the
/// user's keyring, named after this setup, readable by this user only, gone after at most 15
/// minutes. (Not in a keyring of its own inside it: such a keyring lives as long as the user
/// keyring, and every test sandbox would leave one behind.) An entry holds the identity of the
/// session it copies, and the bus name of the provider and the path of the item it was read
/// from (kept only when that item lies in the collection the `default` alias names); it is
/// served only while that provider still owns the service, the alias still names that
/// collection, it is unlocked and the item still exists (asked over a bare bus connection in
/// one round trip: no libsecret, no GLib). Every failure is a miss.
public final class KernelTokenCache: TokenCache {
  /// Names this setup's keys: the state directory and the session bus, so that two setups of
  /// one user (parallel tests, two desktops) never see each other's entries.
  private let namespace: String
  private let busAddress: String
  /// How long the probe waits: ACCOUNTS_SECRET_TIMEOUT, the budget of the whole read. A live
  /// keyring answers in milliseconds; one that does not answer the probe would not answer
  /// libsecret either, so the read fails then and there (one wait, not the probe's and then
  /// libsecret's).
  private let probeTimeout: Double

  public init(stateDirectory: String, busAddress: String, secretTimeout: Double) {
    self.namespace = "accounts:" + NameHash.hexadecimal(stateDirectory + "\u{0}" + busAddress)
    self.busAddress = busAddress
    self.probeTimeout = secretTimeout
  }

  private func keyName(_ id: AccountID) -> String { "\(namespace):token:\(id)" }

  public func token(for id: AccountID, identity: String) throws(SecretStoreError) -> SecretBytes? {
    guard let key = KernelKeyring.search(type: "user", description: keyName(id)) else { return nil }
    let entry: CacheEntry?? = KernelKeyring.read(key) { payload in CacheEntry(decoding: payload, identity: identity) }
    guard let entry = entry ?? nil else { return nil }
    // Still the provider and the collection the token was read from, and unlocked.
    // The item too: one deleted by another client is not served.
    guard let collection = SecretServiceLockProbe.collection(holding: entry.item) else { return nil }
    let expected = SecretServiceLockProbe.State(owner: entry.owner, collection: collection, collectionLocked: false)
    let found: SecretServiceLockProbe.State?
    do {
      found = try SecretServiceLockProbe.state(
        busAddress: busAddress, timeout: probeTimeout, expected: expected, item: entry.item)
    } catch {
      throw .timedOut(operation: "ask whether the keyring is locked", seconds: error.seconds, prompt: false)
    }
    guard let state = found else { return nil }
    if state.collectionLocked {
      forget([id])  // locked by another client: the copy does not outlive the lock
      return nil
    }
    return entry.token
  }

  public func keep(_ token: SecretBytes, for id: AccountID, identity: String, seconds: Int) {
    // Kept only when the item lives in the collection the probe watches (the alias one).
    guard
      let (state, item) = SecretServiceLockProbe.itemState(
        busAddress: busAddress, attributes: SecretKey(id, .token).attributes, timeout: probeTimeout),
      !state.collectionLocked
    else { return }
    CacheEntry.encode(token, identity: identity, owner: state.owner, item: item) { payload in
      _ = KernelKeyring.add(
        description: keyName(id), payload: payload, to: KernelKeyring.userKeyring, seconds: UInt32(seconds))
    }
  }

  public func forget(_ ids: [AccountID]) {
    for id in ids {
      if let key = KernelKeyring.search(type: "user", description: keyName(id)) { KernelKeyring.invalidate(key) }
    }
  }
}

/// An entry's payload: a version line, the session's identity, the provider's unique bus name,
/// the item's object path (its collection is the path's parent), then the token's bytes.
public struct CacheEntry {
  public static let version = "accounts-token-cache 3"

  public var owner: String
  public var item: String
  public var token: SecretBytes

  /// Builds the payload in a buffer that is wiped once `body` returns.
  public static func encode(
    _ token: SecretBytes, identity: String, owner: String, item: String, _ body: (UnsafeRawBufferPointer) -> Void
  ) {
    let header = Array("\(version)\n\(identity)\n\(owner)\n\(item)\n".utf8)
    var payload: [UInt8] = []
    payload.reserveCapacity(header.count + token.count)  // no reallocation leaves a copy behind
    payload += header
    token.withUnsafeBytes { payload += $0 }
    defer { wipe(&payload) }
    payload.withUnsafeBytes(body)
  }

  /// The entry a payload holds under `identity`; nil for another identity or a payload this
  /// version did not write.
  public init?(decoding payload: UnsafeRawBufferPointer, identity: String) {
    var lines: [String] = []
    var start = 0
    while lines.count < 4 {
      guard let end = payload[start...].firstIndex(of: 10),
        let line = String(validating: payload[start..<end], as: UTF8.self)
      else { return nil }
      lines.append(line)
      start = end + 1
    }
    guard lines[0] == Self.version, lines[1] == identity, lines[2].hasPrefix(":"), lines[3].hasPrefix("/") else {
      return nil
    }
    (owner, item) = (lines[2], lines[3])
    token = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: payload[start...]))
  }
}

