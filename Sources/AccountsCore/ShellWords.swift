import AccountsContract
import AccountsSystem

extension Names {
  /// A name read from the file system as text (`fileNameText`, in the system module, whose
  /// file helpers need it too).
  public static func fileName<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
    fileNameText(bytes)
  }
}

/// `path` as is when a shell would read it as one plain word, else single-quoted: for fixes
/// that name a path the user may paste.
public func shellQuotedIfNeeded(_ path: String) -> String {
  let plain = !path.isEmpty && path.unicodeScalars.allSatisfy { scalar in
    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "/._-+@,:=".unicodeScalars.contains(scalar))
  }
  return plain ? path : shellQuoted(path)
}

/// `'text'` for sh, bash, zsh and fish alike.
public func shellQuoted(_ text: String) -> String {
  "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
