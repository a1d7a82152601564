import CAccountsSystem
import Glibc

/// An errno value as a Swift error (swift-system's `Errno`, without the dependency).
public struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
  public let code: Int32

  public init(_ code: Int32) { self.code = code }

  /// The calling thread's current errno.
  public static var current: Errno { Errno(errno) }

  /// strerror's text, e.g. "No space left on device".
  public var description: String { describeErrno(code) }
}

/// A file descriptor with the system calls accounts makes on it, each retried after EINTR and
/// throwing `Errno` on failure: the one place that loops over interrupted and short reads and
/// writes. It does not own the descriptor; `close()` is explicit (swift-system's
/// `FileDescriptor` does the same).
public struct FileDescriptor: Sendable, Equatable {
  public let rawValue: Int32

  public init(rawValue: Int32) { self.rawValue = rawValue }

  public static let standardInput = FileDescriptor(rawValue: 0)
  public static let standardOutput = FileDescriptor(rawValue: 1)
  public static let standardError = FileDescriptor(rawValue: 2)

  /// open(2), retried after EINTR (an open of a FIFO or a terminal can be interrupted).
  public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try retryingInterrupts { Glibc.open(path, flags | O_CLOEXEC, mode) })
  }

  /// read(2) into `buffer`: the count read, 0 at the end of the file.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try retryingInterrupts { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
  }

  /// pread(2): up to `buffer.count` bytes at `offset`; fewer only at the end of the file.
  public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    var done = 0
    while done < buffer.count {
      let count = try retryingInterrupts {
        Glibc.pread(rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
      }
      if count == 0 { break }
      done += count
    }
    return done
  }

  /// Every byte of the file from the current position, refusing more than `limit` bytes.
  /// Returns nil when the file is longer than that. `expected` (the size `fstat` gave) sizes
  /// the buffer once: growing it by doubling would copy and touch a large index twice over.
  public func readAll(limit: Int, expected: Int = 0) throws(Errno) -> [UInt8]? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(min(max(expected, 0), limit))
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
    defer { chunk.deallocate() }
    while true {
      let count = try read(into: chunk)
      if count == 0 { return bytes }
      guard bytes.count + count <= limit else { return nil }
      bytes.append(contentsOf: chunk[0..<count])
    }
  }

  /// write(2) until every byte is written.
  public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
      offset += try retryingInterrupts { Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset) }
    }
  }

  public func writeAll(_ bytes: [UInt8]) throws(Errno) {
    let failure: Errno? = bytes.withUnsafeBytes { raw in
      do throws(Errno) {
        try writeAll(raw)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
  }

  /// fstat(2).
  public func status() throws(Errno) -> stat {
    var status = stat()
    guard fstat(rawValue, &status) == 0 else { throw .current }
    return status
  }

  /// fchmod(2).
  public func setMode(_ mode: mode_t) throws(Errno) {
    _ = try retryingInterrupts { fchmod(rawValue, mode) }
  }

  /// fsync(2).
  public func sync() throws(Errno) {
    _ = try retryingInterrupts { fsync(rawValue) }
  }

  /// close(2). The descriptor is gone whatever it returns (Linux never retries a close).
  ///
  /// Closing one twice is a bug that hides: in a process with threads, the number may belong
  /// to another thread's file by the second close, which then closes that one. A debug build
  /// traps when the kernel says the descriptor was not open, which is how the first of them
  /// shows itself.
  public func close() {
    let result = Glibc.close(rawValue)
    #if DEBUG
      if result != 0, errno == EBADF { fatalError("descriptor \(rawValue) closed twice, or never opened") }
    #endif
  }

  /// What `waitReadable` saw.
  public enum Readiness: Equatable, Sendable {
    /// Something to read, or its end (or an error) to learn by reading.
    case readable
    case timedOut
    /// A signal came first.
    case interrupted
  }

  /// Waits until there is something to read, at most `milliseconds` (-1: for ever).
  public func waitReadable(milliseconds: Int32) throws(Errno) -> Readiness {
    var watched = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
    let ready = poll(&watched, 1, milliseconds)
    if ready > 0 { return .readable }
    if ready == 0 { return .timedOut }
    if errno == EINTR { return .interrupted }
    throw .current
  }
}

/// strerror's text for an errno value.
/// A pipe whose ends are close-on-exec from the start.
public func closeOnExecPipe() throws(Errno) -> (reading: FileDescriptor, writing: FileDescriptor) {
  var ends: [Int32] = [-1, -1]
  guard accounts_pipe_cloexec(&ends) == 0 else { throw .current }
  return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
}

/// Closes every descriptor of this process from `first` up: what a process started by another
/// keeps of its descriptors and must not hold.
public func closeDescriptors(from first: Int32) {
  _ = accounts_close_from(UInt32(first))
}

public func describeErrno(_ code: Int32) -> String {
  String(cString: strerror(code))
}

/// A file mode's permission bits in octal, four digits: "0644", "1777".
public func octalMode(_ mode: mode_t) -> String {
  let digits = String(mode & 0o7777, radix: 8)
  return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
