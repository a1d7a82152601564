import AccountsCore
import Glibc

/// Data for stdout, collected and written at once (a 1,000-line list is one `write`), and
/// messages for stderr, written at once. Bytes of secrets put into the buffer are wiped.
final class Output {
  private var buffer: [UInt8] = []
  private var holdsSecret = false

  /// Appends data for stdout.
  func write(_ text: String) {
    buffer.append(contentsOf: text.utf8)
  }

  /// Appends a secret's bytes for stdout (`accounts password`); the buffer is wiped on flush.
  func write(_ secret: SecretBytes) {
    holdsSecret = true
    secret.withUnsafeBytes { buffer.append(contentsOf: $0) }
  }

  /// Appends a secret as a JSON string literal for stdout, escaped byte by byte so that no
  /// String copy of it is made. Bytes ≥ 0x80 pass through: the secret is UTF-8 text.
  func writeQuotedJSON(_ secret: SecretBytes) {
    holdsSecret = true
    let hex: [UInt8] = Array("0123456789abcdef".utf8)
    buffer.append(34)
    secret.withUnsafeBytes { bytes in
      for byte in bytes {
        switch byte {
        case 34, 92: buffer.append(contentsOf: [92, byte])
        case 10: buffer.append(contentsOf: [92, 110])
        case 13: buffer.append(contentsOf: [92, 114])
        case 9: buffer.append(contentsOf: [92, 116])
        case 0..<32: buffer.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
        default: buffer.append(byte)
        }
      }
    }
    buffer.append(34)
  }

  /// A line for the user on stderr, e.g. "saved alice@corp".
  func message(_ text: String) {
    writeAll(2, Array((text + "\n").utf8))
  }

  /// Writes what was collected to stdout.
  func flush() {
    guard !buffer.isEmpty else { return }
    writeAll(1, buffer)
    if holdsSecret {
      buffer.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) }
      holdsSecret = false
    }
    buffer.removeAll()
  }
}

/// Writes every byte, retrying after signals and short writes. A closed pipe ends the process
/// through SIGPIPE, as for any Unix filter.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
  bytes.withUnsafeBytes { raw in
    var offset = 0
    while offset < raw.count {
      let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return
      }
      offset += written
    }
  }
}
