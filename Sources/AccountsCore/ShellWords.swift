import AccountsContract
import AccountsSystem

extension Names {
  /// A name read from the file system as text (`fileNameText`, in the system module, whose
  /// file helpers need it too).
  public static func fileName<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
    fileNameText(bytes)
  }
}
