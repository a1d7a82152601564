import AccountsContract
import AccountsSystem
import SecretMemory

/// What git tells a credential helper on stdin (git-credential(1)): `key=value` lines up to a
/// blank line or the end of input. Read strictly, because the values end up deciding whose token
/// is sent where: a line git would never write (no `=`, a NUL, a carriage return) is refused
/// rather than guessed at, and error messages name lines by number, never by content (a `store`
/// or `erase` request carries the password).
public struct GitCredentialRequest: Equatable {
  /// More than any request git writes (a URL, a path, a few `wwwauth[]` headers); a bound on
  /// what a hostile writer can make us hold.
  public static let inputLimit = 65536

  /// The keys kept as text; every other one (`wwwauth[]`, `capability[]`...) is read past and
  /// dropped. `password` is kept apart, as secret bytes, never copied into a String.
  public static let keptKeys: Set<String> = ["protocol", "host", "path", "username"]

  /// The kept values by key; for a key given twice the last one, as git reads them.
  public var values: [String: String] = [:]
  /// `password=`, which `erase` carries: the credential git found rejected.
  public var password: SecretBytes?

  /// `protocol=`: https, or http for a remote given as an http:// URL.
  public var scheme: String? { values["protocol"].flatMap { $0.isEmpty ? nil : $0.lowercased() } }

  /// `host=`: the host name, with `:PORT` when not the scheme's default.
  public var host: String? { values["host"].flatMap { $0.isEmpty ? nil : $0 } }
  /// `username=`, when git already knows the user (from the URL or an earlier helper).
  public var username: String? { values["username"].flatMap { $0.isEmpty ? nil : $0 } }

  /// The request in `bytes`: the lines before the first blank line, or all of them.
  public static func parse(_ bytes: [UInt8], limit: Int = inputLimit) throws(CommandError) -> GitCredentialRequest {
    guard bytes.count <= limit else { throw tooLong(limit) }
    var request = GitCredentialRequest()
    var number = 0
    for line in bytes.split(separator: 10, omittingEmptySubsequences: false) {
      number += 1
      if line.isEmpty { break }  // the blank line that ends the request (or the end of input)
      if line.contains(0) { throw refused("line \(number) holds a NUL byte") }
      if line.contains(13) { throw refused("line \(number) holds a carriage return") }
      guard let equals = line.firstIndex(of: 61), equals != line.startIndex else {
        throw refused("line \(number) is not KEY=VALUE")
      }
      let key = String(decoding: line[..<equals], as: UTF8.self)
      if key == "password" {
        request.password = line[(equals + 1)...].withContiguousStorageIfAvailable { SecretBytes(copying: UnsafeRawBufferPointer($0)) }
        continue
      }
      guard keptKeys.contains(key) else { continue }
      request.values[key] = String(decoding: line[(equals + 1)...], as: UTF8.self)
    }
    return request
  }

  /// Reads the request from `input` up to its blank line or the end of input, at most `limit`
  /// bytes: a writer that never stops cannot make us read forever.
  public static func read(from input: FileDescriptor, limit: Int = inputLimit) throws(CommandError) -> GitCredentialRequest {
    var bytes: [UInt8] = []
    defer { wipe(&bytes) }
    var chunk = [UInt8](repeating: 0, count: 4096)
    defer { wipe(&chunk) }
    while bytes.count <= limit, !endsRequest(bytes) {
      let count: Int
      do {
        count = try chunk.withUnsafeMutableBytes { (buffer) throws(Errno) in try input.read(into: buffer) }
      } catch {
        throw CommandError(.failure, "git-credential: cannot read git's request from stdin: \(error)")
      }
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    if let end = blankLineEnd(bytes) { bytes.removeSubrange(end...) }
    return try parse(bytes, limit: limit)
  }

  /// Whether `bytes` hold the blank line that ends a request.
  private static func endsRequest(_ bytes: [UInt8]) -> Bool { blankLineEnd(bytes) != nil }

  /// The index just past the blank line that ends the request, if `bytes` hold one.
  private static func blankLineEnd(_ bytes: [UInt8]) -> Int? {
    if bytes.first == 10 { return 1 }
    var index = 1
    while index < bytes.count {
      if bytes[index] == 10, bytes[index - 1] == 10 { return index + 1 }
      index += 1
    }
    return nil
  }

  private static func tooLong(_ limit: Int) -> CommandError {
    refused("it is longer than \(limit / 1024) KiB")
  }

  private static func refused(_ reason: String) -> CommandError {
    CommandError(
      .usage, "git-credential: git's request refused: \(reason)",
      fix: "git writes KEY=VALUE lines ended by a newline; see `man git-credential`")
  }
}

/// The request bytes may hold a password (`store`, `erase`): they are not left in memory.

