import Glibc

/// `word` as one shell word, for the commands messages suggest ("run: chmod go-w PATH"): as it
/// is when it holds only characters no shell acts on, else in single quotes, each `'` written
/// `'\''` (Python's `shlex.quote`). A path with a space would otherwise be two arguments, and
/// the command would change other files than the one named.
public func shellWord(_ word: String) -> String {
  let plain = !word.isEmpty && word.utf8.allSatisfy { byte in
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
      || "@%+=:,./-_".utf8.contains(byte)
  }
  return plain ? word : shellQuoted(word)
}

/// `'text'` for sh, bash, zsh and fish alike.
public func shellQuoted(_ text: String) -> String {
  "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
}

/// A name read from the file system (a directory entry, a link's target, a path the dynamic
/// loader printed) as text: its UTF-8 as it is, and every byte that is not UTF-8 as `\xNN`.
/// Decoding would put U+FFFD in its place, which shows a name that does not exist. The one
/// way such names become text; `printable` then makes them safe for a terminal.
public func fileNameText<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
  let array = Array(bytes)
  if let text = String(validating: array, as: UTF8.self) { return text }
  var text = ""
  var index = 0
  while index < array.count {
    let length = validSequenceLength(array, at: index)
    if length > 0 {
      text += String(decoding: array[index..<index + length], as: UTF8.self)
      index += length
    } else {
      let digits = String(array[index], radix: 16)
      text += "\\x" + (digits.count == 1 ? "0" : "") + digits
      index += 1
    }
  }
  return text
}

/// The length of the well-formed UTF-8 sequence at `index`, or 0 when there is none.
private func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
  for length in 1...4 where index + length <= bytes.count {
    if String(validating: bytes[index..<index + length], as: UTF8.self) != nil { return length }
  }
  return 0
}

/// The names in a directory (`.` and `..` included), as `fileNameText` makes them text; nil
/// when it cannot be opened.
public func directoryEntryNames(_ path: String) -> [String]? {
  guard let stream = opendir(path) else { return nil }
  defer { closedir(stream) }
  var names: [String] = []
  while let entry = readdir(stream) {
    names.append(withUnsafeBytes(of: entry.pointee.d_name) { raw in fileNameText(raw.prefix { $0 != 0 }) })
  }
  return names
}

/// Whether this process may read `path`.
public func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }
