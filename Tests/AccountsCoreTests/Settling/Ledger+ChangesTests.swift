@testable import AccountsContract
import Foundation
import TestDoubles
import Testing

@testable import AccountsCore
import AccountsSystem

/// A third document that claims secrets, as a later one (lease records, import journals) will:
/// the notes it says are in the keyring (`SecretKey.setting("note", backend: "notes")` of each
/// holder). It shows the settling core and `DocumentStore` serve any such document, not only
/// the index and config.json.
struct Notebook: SecretClaimingDocument {
  var notes: [String] = []
  var unsettled: [String] = []
  var secretService: String?

  static func key(_ holder: String) -> SecretKey {
    SecretKey(backend: "notes", account: holder, kind: .setting("note"))
  }

  var claimsSecrets: Bool { !notes.isEmpty }
  var holdersClaimingSecrets: [String] { notes }
  mutating func markUnsettled(_ holder: String) { unsettled = Array(Set(unsettled + [holder])).sorted() }
  mutating func markSettled(_ holder: String) { unsettled.removeAll { $0 == holder } }
  static func accountsWithCachedToken(_ holder: String) -> [AccountID] { [] }

  mutating func settle(_ holder: String, against store: SecretStore) throws {
    let kept = try store.kinds(backend: "notes", account: holder).contains(.setting("note"))
    if kept, !notes.contains(holder) { try store.delete(Self.key(holder)) }
    if !kept { notes.removeAll { $0 == holder } }
    markSettled(holder)
  }
}

/// The notebook as three lines: the notes, the unsettled holders, the provider.
enum NotebookFormat: DocumentFormat {
  static func emptyContent() -> Notebook { Notebook() }
  static func path(in paths: Paths) -> String { paths.stateDirectory + "/notebook" }

  static func encode(_ notebook: Notebook) -> String {
    let lines = [notebook.notes, notebook.unsettled].map { $0.joined(separator: " ") } + [notebook.secretService ?? ""]
    return lines.joined(separator: "\n") + "\n"
  }

  static func decode(_ bytes: [UInt8], file: DocumentFile) throws -> Notebook {
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count == 4 else { throw FileError.malformed(path: file.path, detail: "3 lines", backup: nil) }
    func words(_ line: Substring) -> [String] { line.split(separator: " ").map(String.init) }
    return Notebook(
      notes: words(lines[0]), unsettled: words(lines[1]), secretService: lines[2].isEmpty ? nil : String(lines[2]))
  }
}

/// The ledger's write skeleton (`carryOut`) and its settling over the notebook: the change
/// described once as a `SecretChange`, carried out by the same rules as the index's.
@Suite struct LedgerChangesTests {
  let tree: TemporaryTree
  let store = FakeSecretStore()
  let notebook: DocumentStore<NotebookFormat>
  let ledger: Ledger

  init() throws {
    tree = try TemporaryTree()
    notebook = DocumentStore(file: DocumentFile(path: tree.root + "/state/notebook"))
    ledger = Ledger(
      index: IndexStore(paths: tree.paths), config: ConfigStore(paths: tree.paths), secrets: { [store] in store })
  }

  /// Writes `text` as `holder`'s note by the ledger's write skeleton.
  func write(_ text: String, for holder: String) throws {
    try notebook.withLock { locked in
      var document = locked.content
      try ledger.carryOut(
        SecretChange(
          of: holder, inKeyring: { store in try store.store(secret(text), for: Notebook.key(holder)) },
          claim: { notebook in notebook.notes.append(holder) },
          undo: { store in try? store.delete(Notebook.key(holder)) }),
        &document, &locked)
    }
  }

  @Test func aChangeRecordsItsIntentThenStoresThenClaimsAndRecordsTheProvider() throws {
    var seenDuringStore: Notebook?
    store.duringStore = { seenDuringStore = try? notebook.load() }
    try write("n1", for: "ann")
    #expect(seenDuringStore == Notebook(notes: [], unsettled: ["ann"]), "the intent is on disk, the claim not yet")
    #expect(try notebook.load() == Notebook(notes: ["ann"], unsettled: [], secretService: "fake"))
    #expect(store.text(Notebook.key("ann")) == "n1")
  }

  @Test func aFinalWriteThatFailsTakesTheKeyringWorkBackAndLeavesTheIntent() throws {
    store.duringStore = { mkdir(notebook.file.path + ".tmp", 0o700) }
    #expect(throws: FileError.self) { try write("n1", for: "ann") }
    #expect(store.items.isEmpty, "the note went with the failed claim")
    #expect(try notebook.load() == Notebook(notes: [], unsettled: ["ann"]), "left for settling")
  }

  @Test func aKeyringThatFailsSettlesTheHolderAtOnce() throws {
    store.failNext["store"] = .failed(operation: "store", detail: "refused")
    #expect(throws: SecretStoreError.failed(operation: "store", detail: "refused")) { try write("n1", for: "ann") }
    #expect(try notebook.load() == Notebook(), "settled: nothing claimed, no mark")
  }

  @Test func aStoreThatTimedOutLeavesTheHolderUnsettledAndTheKeyringUnasked() throws {
    store.storeTimesOutButLands = true
    #expect(throws: SecretStoreError.timedOut(operation: "store", seconds: 5)) { try write("n1", for: "ann") }
    #expect(try notebook.load() == Notebook(notes: [], unsettled: ["ann"]))
    #expect(store.calls.last == "store ann@notes setting:note", "no settling after a call that may still land")
  }

  @Test func aMarkAnEarlierCommandLeftStaysWhenItCouldNotBeSettled() throws {
    try notebook.update { $0.markUnsettled("ann") }  // an earlier command killed mid-way
    store.failNext["kinds"] = .failed(operation: "kinds", detail: "refused")  // settling it fails
    try write("n1", for: "ann")
    #expect(try notebook.load() == Notebook(notes: ["ann"], unsettled: ["ann"], secretService: "fake"))
    try write("n2", for: "bob")
    #expect(try notebook.load().unsettled == [], "settled at the next change")
  }

  @Test func anotherProviderIsRefusedWhileTheDocumentClaimsSecrets() throws {
    try write("n1", for: "ann")
    store.provider = "keepassxc"
    #expect(throws: SecretStoreError.providerChanged(stored: "fake", current: "keepassxc")) {
      try write("n2", for: "bob")
    }
    #expect(try notebook.load() == Notebook(notes: ["ann"], unsettled: [], secretService: "fake"))
  }

  @Test func deletingWhatIsNoLongerClaimedStopsAtTheFirstFailure() throws {
    try write("n1", for: "ann")
    try write("n2", for: "bob")
    try notebook.withLock { locked in
      var document = locked.content
      let begun = try ledger.begin("ann", &document, &locked)
      document.notes = []
      try locked.save(document)
      store.failNext["delete"] = .failed(operation: "delete", detail: "refused")
      let left = ledger.deleteUnclaimed([Notebook.key("ann"), Notebook.key("bob")], begun, &document, &locked)
      #expect(left == [Notebook.key("ann"), Notebook.key("bob")])
      #expect(locked.content.unsettled == ["ann"], "the mark stays for settling to sweep them")
      #expect(ledger.deleteUnclaimed(left, begun, &document, &locked) == [])
      #expect(locked.content.unsettled == [], "its own mark cleared once they are gone")
    }
    #expect(store.items.isEmpty)
  }
}
