import AccountsSystem

/// How a document's content is kept in its file, as text: what it is before the file exists,
/// and the text both ways. `IndexFormat` (accounts.json) and `ConfigFormat` (config.json).
public protocol DocumentFormat {
  associatedtype Content: Equatable & Sendable
  /// The content while there is no file yet.
  static func emptyContent() throws -> Content
  /// The content `bytes` hold; the errors name `file`.
  static func decode(_ bytes: [UInt8], file: DocumentFile) throws -> Content
  static func encode(_ content: Content) -> String
  /// Where the document lives among the tool's files.
  static func path(in paths: Paths) -> String
}

/// A document several `accounts` processes may read and change at once, kept in a
/// `DocumentFile` in `Format`: the index (`IndexStore`), the config (`ConfigStore`).
public struct DocumentStore<Format: DocumentFormat>: Sendable {
  public let file: DocumentFile

  public init(file: DocumentFile) {
    self.file = file
  }

  /// The document at its place among the tool's files.
  public init(paths: Paths) {
    self.init(file: DocumentFile(path: Format.path(in: paths)))
  }

  /// The content; the empty one when the file does not exist yet. No lock is taken.
  public func load() throws -> Format.Content {
    try decode(file.read())
  }

  /// The content under the writers' lock: `body` sees it as it is now (re-read under the lock,
  /// so no concurrent change is lost) and may save changes several times before the lock is
  /// released. The ledger uses this to keep the keyring and the file in step.
  public func withLock<Result>(
    _ body: (inout LockedDocument<Format.Content>) throws -> Result
  ) throws -> Result {
    try file.withLock { transaction in
      var document = LockedDocument(
        content: try decode(transaction.bytes), transaction: transaction, encode: { Array(Format.encode($0).utf8) })
      return try body(&document)
    }
  }

  /// Changes the content under the writers' lock, re-reading it first so that no concurrent
  /// change is lost. The file is written only when the content changed.
  @discardableResult
  public func update<Result>(_ change: (inout Format.Content) throws -> Result) throws -> Result {
    try withLock { document in
      var content = document.content
      let result = try change(&content)
      try document.save(content)
      return result
    }
  }

  private func decode(_ bytes: [UInt8]?) throws -> Format.Content {
    guard let bytes else { return try Format.emptyContent() }
    return try Format.decode(bytes, file: file)
  }
}

/// A document's decoded content while its writers' lock is held.
public struct LockedDocument<Content: Equatable> {
  /// The content as the file holds it now.
  public private(set) var content: Content
  var transaction: DocumentFile.Transaction
  let encode: (Content) -> [UInt8]

  /// Writes `content` unless it is what the file holds already.
  public mutating func save(_ content: Content) throws(FileError) {
    guard content != self.content else { return }
    try transaction.write(encode(content))
    self.content = content
  }
}
