import Glibc
import Synchronization

/// stdout could not take the data.
public struct OutputError: UserFacingError {
  public let errno: Int32

  public init(errno: Int32) { self.errno = errno }

  public var status: ExitStatus { .failure }
  public var message: String {
    errno == EBADF ? "cannot write to stdout: it is closed" : "cannot write to stdout: \(describeErrno(errno))"
  }
  public var fix: String? {
    errno == ENOSPC ? "free some space where stdout goes, or send it elsewhere" : "send stdout somewhere writable"
  }
}

/// The three standard descriptors, checked once at start.
public enum StandardStreams {
  /// True when the process started with stdout closed: its data has nowhere to go.
  nonisolated(unsafe) public private(set) static var outputWasClosed = false

  private static let outputNumber = Atomic<Int32>(1)
  private static let errorNumber = Atomic<Int32>(2)

  /// The command's own stdout and stderr: fds 1 and 2, or their copies once adapter code may
  /// run in this process (AdapterStreams points 1 and 2 away from it).
  public static var output: FileDescriptor { FileDescriptor(rawValue: outputNumber.load(ordering: .acquiring)) }
  public static var error: FileDescriptor { FileDescriptor(rawValue: errorNumber.load(ordering: .acquiring)) }

  public static func useCopies(output: Int32, error: Int32) {
    outputNumber.store(output, ordering: .releasing)
    errorNumber.store(error, ordering: .releasing)
  }

  /// Opens /dev/null on any of 0, 1, 2 that is closed, so that no file accounts opens later
  /// (the index, its lock) gets one of those numbers and receives output meant for a terminal.
  /// Remembers a closed stdout, so that data written to it is an error, not lost in silence.
  public static func guardDescriptors() {
    for descriptor: Int32 in 0...2 where !FileDescriptor(rawValue: descriptor).isOpen {
      if descriptor == 1 { outputWasClosed = true }
      let null = open("/dev/null", O_RDWR)
      if null >= 0, null != descriptor {
        dup2(null, descriptor)
        close(null)
      }
    }
  }

  public static func writeToStandardOutput(_ bytes: [UInt8]) throws(OutputError) {
    guard !outputWasClosed else { throw OutputError(errno: EBADF) }
    do {
      try output.writeAll(bytes)
    } catch {
      throw OutputError(errno: error.code)
    }
  }
}
