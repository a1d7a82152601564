import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc
import SecretMemory

/// The user's terminal, if there is one. Secrets come from a no-echo prompt on the terminal or
/// from stdin with `--password-stdin`; never from argv or the environment (SPEC §3).
struct Terminal {
  /// True when stdin is a terminal: only then may a command ask something.
  var canPrompt: Bool
  /// True when stderr is a terminal.
  var errorIsTerminal: Bool
  /// True when stdout is a terminal: `status` then prints each row as its check ends.
  var outputIsTerminal = false
  /// stdout, when it is the process's own (not in tests), for `keepOutputPrivate`.
  var output: FileDescriptor?
  /// Whether stdout was an empty file when the process started, before anything was written
  /// (stderr may be the same file, as under `> file 2>&1`): the shell made it for this output.
  var outputStartedEmpty = false
  /// True when stderr is a terminal that can redraw a line: `TERM` names one (set, not empty,
  /// not `dumb`, as in Emacs' shell or a CI log that records a terminal). Every line of
  /// progress and every "waiting for" notice asks this, through `Environment.showsProgress`
  /// (which adds `--quiet`).
  var showsProgress = false

  /// The process's terminal; `term` is its `TERM`.
  static func current(term: String?) -> Terminal {
    let errorIsTerminal = isatty(2) == 1
    return Terminal(
      canPrompt: isatty(0) == 1, errorIsTerminal: errorIsTerminal, outputIsTerminal: isatty(1) == 1,
      output: .standardOutput, outputStartedEmpty: (try? FileDescriptor.standardOutput.status().st_size) == 0,
      showsProgress: errorIsTerminal && !(term ?? "").isEmpty && term != "dumb")
  }

  /// What a command about to print secrets did about a stdout that is a regular file another
  /// user owns, or that group or others may read (`> file` under umask 022): made it 0600 when
  /// it is the user's and was empty when the process started (the shell has just created it
  /// for this output); nil when stdout is no such file. Called before the command writes
  /// anything, on stdout or stderr.
  func keepOutputPrivate() -> OutputFileExposure? {
    guard let output, let status = try? output.status(), status.st_mode & S_IFMT == S_IFREG else { return nil }
    let mode = status.st_mode & 0o7777
    if status.st_uid != geteuid() { return .othersFile(owner: status.st_uid, mode: mode) }
    guard mode & 0o077 != 0 else { return nil }
    guard outputStartedEmpty else { return .readable(mode: mode) }
    do {
      try output.setMode(0o600)
    } catch {
      return .notMadePrivate(mode: mode, why: error)
    }
    return .madePrivate(was: mode)
  }

  /// Reads a secret from stdin: the first line, without its line ending; at most
  /// `SecretLimits.bytes` of UTF-8 text. It stops at the line's end (byte by byte, so nothing
  /// after it is taken from a pipe that stays open), as `read` does.
  func readSecretFromStandardInput(what: String) throws(CommandError) -> SecretBytes {
    let limit = SecretLimits.bytes
    var bytes: [UInt8] = []
    defer { wipe(&bytes) }
    var byte: UInt8 = 0
    defer { byte = 0 }
    while bytes.count <= limit {
      let count: Int
      do {
        count = try withUnsafeMutableBytes(of: &byte) { (buffer) throws(Errno) in
          try FileDescriptor.standardInput.read(into: buffer)
        }
      } catch {
        throw CommandError(.failure, "cannot read the \(what) from stdin: \(error)")
      }
      if count == 0 || byte == 10 { break }
      bytes.append(byte)
    }
    guard bytes.count <= limit else { throw .usage("the \(what) on stdin is longer than \(SecretLimits.text)") }
    if bytes.last == 13 { bytes.removeLast() }
    guard !bytes.isEmpty else {
      let variable = Self.variableName(what)
      throw .usage("no \(what) on stdin", fix: "pipe it in, e.g. printf '%s\\n' \"$\(variable)\" | accounts ...")
    }
    guard !bytes.contains(13) else {
      throw .usage("the \(what) on stdin holds a carriage return", fix: "give one line, ended by a newline")
    }
    try Self.checkSecretText(bytes, what: what)
    return SecretBytes(consuming: &bytes)
  }

  /// A secret is UTF-8 text without NUL bytes: the Secret Service stores text, JSON carries
  /// text, and C hands it on up to the first NUL.
  static func checkSecretText(_ bytes: [UInt8], what: String) throws(CommandError) {
    guard !bytes.contains(0) else {
      throw .usage("the \(what) contains a NUL byte, which no \(what) can hold", fix: "check what you piped in")
    }
    guard String(validating: bytes, as: UTF8.self) != nil else {
      throw .usage(
        "the \(what) is not UTF-8 text", fix: "give it as UTF-8 (check the encoding of your terminal or file)")
    }
  }

  /// How the example of a missing secret names its shell variable: "password" PASSWORD,
  /// "seed" SEED, "private_key" PRIVATE_KEY.
  static func variableName(_ what: String) -> String {
    String(what.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
  }

  /// Asks for a secret on the terminal without echoing it. Ctrl-C restores the echo, Ctrl-Z
  /// restores it until the prompt is resumed.
  /// `stdinOption` is the option that gives it on stdin instead, for the error without a
  /// terminal.
  func promptSecret(
    _ prompt: String, what: String, stdinOption: String = "--password-stdin"
  ) throws(CommandError) -> SecretBytes {
    guard canPrompt else {
      throw .usage("no terminal to ask for the \(what)", fix: "pipe it in with \(stdinOption)")
    }
    guard let terminal = try? FileDescriptor.open("/dev/tty", O_RDWR | O_NOCTTY) else {
      throw .usage("cannot open the terminal to ask for the \(what)", fix: "use \(stdinOption)")
    }
    defer { terminal.close() }
    let tty = terminal.rawValue
    var saved = termios()
    let hasAttributes = tcgetattr(tty, &saved) == 0
    if hasAttributes {
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      quiet.c_lflag |= tcflag_t(ECHONL)
      TerminalGuard.arm(tty, saved: saved, changed: quiet)
      tcsetattr(tty, TCSAFLUSH, &quiet)
    }
    defer {
      if hasAttributes {
        tcsetattr(tty, TCSAFLUSH, &saved)
        TerminalGuard.disarm()
      }
    }
    // The prompt only once echo is off, so nothing typed after it can be echoed.
    try? terminal.writeAll(Array(prompt.utf8))
    var bytes: [UInt8] = []
    defer { wipe(&bytes) }
    var byte: UInt8 = 0
    while bytes.count < 65536 {
      let count = (try? withUnsafeMutableBytes(of: &byte) { try terminal.read(into: $0) }) ?? 0
      if count == 0 {
        // End of input (Ctrl-D): no newline was echoed, so end the prompt's line here, or an
        // error would be printed on it.
        try? terminal.writeAll([10])
        break
      }
      if byte == 10 { break }
      bytes.append(byte)
    }
    byte = 0
    if bytes.last == 13 { bytes.removeLast() }
    guard !bytes.isEmpty else { throw .usage("no \(what) given") }
    try Self.checkSecretText(bytes, what: what)
    return SecretBytes(consuming: &bytes)
  }

  /// Asks a yes/no question on the terminal; anything but y/yes is no.
  func confirm(_ question: String) -> Bool {
    guard canPrompt else { return false }
    guard let terminal = try? FileDescriptor.open("/dev/tty", O_RDWR | O_NOCTTY) else { return false }
    defer { terminal.close() }
    try? terminal.writeAll(Array("\(question) [y/N] ".utf8))
    var answer: [UInt8] = []
    var byte: UInt8 = 0
    while answer.count < 64, (try? withUnsafeMutableBytes(of: &byte) { try terminal.read(into: $0) }) == 1, byte != 10 {
      answer.append(byte)
    }
    let text = String(decoding: answer, as: UTF8.self).lowercased()
    return text == "y" || text == "yes"
  }
}

/// See `Terminal.keepOutputPrivate`.
enum OutputFileExposure: Equatable {
  case madePrivate(was: mode_t)
  /// Left as it was: it held something before (appended to).
  case readable(mode: mode_t)
  /// A new file of the user's that could not be made 0600 (a file system without modes).
  case notMadePrivate(mode: mode_t, why: Errno)
  /// Another user's file, whatever its mode: its owner can read it (and change its mode).
  case othersFile(owner: uid_t, mode: mode_t)
}
