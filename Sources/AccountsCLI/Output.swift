import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc
import SecretMemory
import Synchronization

/// Data for stdout, collected and written at once (a 1,000-line list is one `write`), and
/// messages for stderr, written at once. Bytes of secrets put into the buffer are wiped.
///
/// Scripts read stdout, so a write that fails (a full disk, a closed descriptor) is an error
/// with exit status 1, never a silent success.
final class Output {
  /// What was collected for stdout and not yet flushed.
  private(set) var buffer: [UInt8] = []
  private var holdsSecret = false
  /// Where messages go: stderr, or (in a test of a command) a list the test reads.
  private let writeMessage: ([UInt8]) -> Void
  /// `--quiet`: status lines (`message`) are dropped; warnings and failures still go out.
  var quiet = false

  init(writeMessage: @escaping ([UInt8]) -> Void = { try? StandardStreams.error.writeAll($0) }) {
    self.writeMessage = writeMessage
  }

  /// Appends data for stdout, as is: JSON, completion candidates, scripts.
  func write(_ text: String) {
    buffer.append(contentsOf: text.utf8)
  }

  /// Appends text for people on stdout (tables, names), every line through the one sanitiser
  /// so that nothing in it can act on the terminal.
  func writeText(_ text: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    write(lines.map { Names.printable(String($0), limit: .max) }.joined(separator: "\n"))
  }

  /// Appends a secret's bytes for stdout (`accounts password`); the buffer is wiped on flush.
  func write(_ secret: SecretBytes) {
    holdsSecret = true
    secret.withUnsafeBytes { buffer.append(contentsOf: $0) }
  }

  /// Appends data that holds a secret, built in place by `build` (`accounts env`'s exports),
  /// so that the buffer is wiped on flush and no other copy of the secret is made.
  func writeSecret(_ build: (inout [UInt8]) -> Void) {
    holdsSecret = true
    build(&buffer)
  }

  /// Appends a secret as a JSON string literal for stdout, escaped byte by byte so that no
  /// String copy of it is made. The caller has checked `secret.isUTF8Text`: other bytes cannot
  /// be a JSON string.
  func writeQuotedJSON(_ secret: SecretBytes) {
    precondition(secret.isUTF8Text, "only UTF-8 text is a JSON string")
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
        case 0..<32, 127: buffer.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
        default: buffer.append(byte)
        }
      }
    }
    buffer.append(34)
  }

  /// A status line for the user on stderr, e.g. "saved alice@corp": what was done, when it
  /// went as asked. `--quiet` drops these, and only these (`quiet`).
  func message(_ text: String) {
    if !quiet { say(text) }
  }

  /// A warning on stderr: something went wrong but the command still did its work (exit status
  /// unchanged). The one place that makes one, so that every warning reads
  /// "...", as users and scripts grep for it. Shown under `--quiet` too.
  func warning(_ text: String) {
    say("accounts: warning: " + text)
  }

  /// What a person must do for the command to go on (approve a login in a browser): shown
  /// under `--quiet` too, since the command waits for them.
  func request(_ text: String) {
    say(text)
  }

  /// A line on stderr that reports the failure of part of the work while the command goes on
  /// (one account of `login --stale`, one row of an import): shown under `--quiet` too, as the
  /// command's own error is.
  func failure(_ text: String) {
    say(text)
  }

  /// Writes a line on stderr through the sanitiser. A line that cannot be written has nowhere
  /// else to go, so that failure is not reported.
  private func say(_ text: String) {
    writeMessage(Array((Names.printable(text, limit: .max) + "\n").utf8))
  }

  /// Writes what was collected to stdout; throws when it cannot.
  func flush() throws(OutputError) {
    guard !buffer.isEmpty else { return }
    defer {
      if holdsSecret {
        wipe(&buffer)
        holdsSecret = false
      }
      buffer.removeAll()
    }
    try StandardStreams.writeToStandardOutput(buffer)
  }
}
