import Glibc
import SecretMemory

/// The standard input of a helper process (the lease keeper, the token refresher): a pipe whose
/// write end its command holds, carrying one line of order, then nothing until every process
/// that holds that end has exited, however.
extension FileDescriptor {
  /// The first line, without its newline; nil when the input ends (or fails) first, or the line
  /// passes `limit` bytes. The read buffer is wiped: an order may carry a password.
  public func readFirstLine(limit: Int = 16 << 20) -> [UInt8]? {
    var line: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    defer { wipe(&buffer) }
    while !line.contains(10) {
      let count = (try? buffer.withUnsafeMutableBytes { try read(into: $0) }) ?? 0
      guard count > 0, line.count < limit else {
        wipe(&line)
        return nil
      }
      line += buffer[0..<count]
    }
    let end = line.firstIndex(of: 10)!
    defer { wipe(&line) }
    return Array(line[..<end])
  }

  /// Waits at most `milliseconds` (-1: for ever) for the end of the input, reading and dropping
  /// whatever is written to it meanwhile: true when it ended, false when the wait ran out (or a
  /// signal came: the caller looks at its clock and waits again).
  public func awaitEnd(milliseconds: Int32) -> Bool {
    var scratch = [UInt8](repeating: 0, count: 4096)
    guard (try? waitReadable(milliseconds: milliseconds)) == .readable else { return false }
    guard let count = try? scratch.withUnsafeMutableBytes({ try read(into: $0) }) else { return true }
    return count == 0
  }
}

/// Makes this process deaf to the signals a terminal or a process group sends (Ctrl-C, a kill of
/// the group, hang-ups, job control) and to SIGPIPE: a helper ends when its command does, by
/// the end of its input, never with it.
public func ignoreTerminalAndGroupSignals() {
  for signal in [SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE] { Glibc.signal(signal, SIG_IGN) }
}
