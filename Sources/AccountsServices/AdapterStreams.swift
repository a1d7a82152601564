import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc
import Synchronization

/// Adapter code never writes on the command's stdout, nor raw on its terminal.
///
/// Adapters run in this process, where descriptors are shared by every thread: so before the
/// first adapter is loaded, the command's own stdout and stderr are kept on copies (close-on-
/// exec) that `Output` and every message write to (`StandardStreams`), and fds 1 and 2 point
/// away for good: 1 to /dev/null (with what stdio buffers there, flushed at exit), 2 to a pipe.
/// What adapters wrote on that pipe is forwarded after each call into the host, line by line,
/// made visible (`Names.printable`) and marked as theirs. Nothing is redirected back and forth
/// around each call, which `status --jobs` could not make sound while rows are printed on
/// another thread. Child processes get the command's stdout and stderr again: hooks and the
/// dynamic loader through their own pipes (ChildProcess), `exec` and `shell` through `restore`
/// just before they replace the process.
public enum AdapterStreams {
  private struct Diversion {
    /// The command's own stdout and stderr.
    public let output: Int32
    public let error: Int32
    /// The read end of the pipe on fd 2 (non-blocking), and a line begun and not yet ended.
    public let errors: Int32
    public var partial: [UInt8] = []
  }

  private static let state = Mutex<Diversion?>(nil)

  /// Bytes of a line adapters wrote that is forwarded without waiting for its end.
  public static let lineLimit = 4096

  /// Points fds 1 and 2 away from adapter code, once per process; then `contain` is given the
  /// command's own stderr, for the message of a crash or exit() inside adapter code. When a
  /// descriptor cannot be had (none left), nothing is diverted.
  public static func divert(contain: (Int32) -> Void) {
    state.withLock { state in
      guard state == nil else { return }
      let output = (try? FileDescriptor.standardOutput.duplicate(atLeast: 3))?.rawValue ?? -1
      let error = (try? FileDescriptor.standardError.duplicate(atLeast: 3))?.rawValue ?? -1
      let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
      // The write end is non-blocking: an adapter that writes more than the pipe holds between
      // two calls loses the rest instead of blocking.
      guard output >= 0, error >= 0, null >= 0, let pipe = try? closeOnExecPipe() else {
        for descriptor in [output, error, null] where descriptor >= 0 { close(descriptor) }
        return
      }
      let ends = [pipe.reading.rawValue, pipe.writing.rawValue]
      for end in [pipe.reading, pipe.writing] { try? end.setNonBlocking() }
      StandardStreams.useCopies(output: output, error: error)
      dup2(null, 1)
      dup2(ends[1], 2)
      close(null)
      close(ends[1])
      state = Diversion(output: output, error: error, errors: ends[0])
      contain(error)
    }
  }

  /// Forwards the lines adapters wrote on fd 2 since the last call, made visible; an unended
  /// line waits for its end (up to `lineLimit` bytes).
  public static func forwardErrors() {
    state.withLock { state in
      guard var diversion = state else { return }
      defer { state = diversion }
      var chunk = [UInt8](repeating: 0, count: 4096)
      var lines = ""
      while true {
        let count = chunk.withUnsafeMutableBytes { read(diversion.errors, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        for byte in chunk[..<count] {
          if byte == 10 || diversion.partial.count == lineLimit {
            let line = String(decoding: diversion.partial, as: UTF8.self)
            lines += "adapter: " + Names.printable(line, limit: .max) + "\n"
            diversion.partial.removeAll(keepingCapacity: true)
          }
          if byte != 10 { diversion.partial.append(byte) }
        }
      }
      if !lines.isEmpty { try? FileDescriptor(rawValue: diversion.error).writeAll(Array(lines.utf8)) }
    }
  }

  /// Gives fds 1 and 2 back to the command's stdout and stderr, for a program that replaces
  /// this process (`exec`, `shell`): no adapter code runs after that.
  public static func restore() {
    forwardErrors()
    state.withLock { state in
      guard let diversion = state else { return }
      // What adapter code left in stdio's buffers goes to /dev/null now: flushed after the
      // dup2, by the exit() that follows a program that cannot start, it would reach stdout.
      fflush(nil)
      dup2(diversion.output, 1)
      dup2(diversion.error, 2)
    }
  }
}
