import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc

extension Terminal {
  /// Lets the user choose one of `rows` with the picker on the terminal and returns its index.
  /// It draws below the cursor on the terminal (never on stdout, which is data), in raw mode,
  /// and leaves the terminal as it found it on every way out: Enter, Esc, Ctrl-C (which throw
  /// `.cancelled`, exit 130) and signals (`TerminalGuard`).
  func pick(_ rows: [Picker.Row], header: String, prompt: String) throws(CommandError) -> Int {
    guard canPrompt else { throw .usage("no terminal to pick on") }
    let opened = try? FileDescriptor.open("/dev/tty", O_RDWR | O_NOCTTY)
    defer { opened?.close() }
    guard let terminal = opened ?? (errorIsTerminal ? StandardStreams.error : nil) else {
      throw .usage("cannot open the terminal to pick on")
    }
    let input = opened ?? .standardInput
    var saved = termios()
    guard tcgetattr(input.rawValue, &saved) == 0 else {
      throw .usage("cannot read the terminal's modes")
    }
    // Raw: each key as it is pressed, no echo, Ctrl-C and Ctrl-Z as keys (handled below).
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    TerminalGuard.arm(input.rawValue, saved: saved, changed: raw, erases: true)
    tcsetattr(input.rawValue, TCSAFLUSH, &raw)
    var screen = PickerScreen(
      output: terminal, header: header, prompt: prompt, picker: Picker(rows: rows))
    defer {
      screen.erase()
      tcsetattr(input.rawValue, TCSAFLUSH, &saved)
      TerminalGuard.disarm()
    }
    screen.draw(reserving: true)
    while true {
      if TerminalGuard.interrupted != 0 {
        // Continued after Ctrl-Z, or resized: start a fresh screen.
        TerminalGuard.interrupted = 0
        screen.erase()
        screen.draw(reserving: true)
      }
      guard let bytes = Self.readKeys(input) else { continue }
      for key in PickerKey.decode(bytes) {
        switch key {
        case .text(let text): screen.picker.type(text)
        case .up: screen.picker.move(-1)
        case .down: screen.picker.move(1)
        case .backspace: screen.picker.backspace()
        case .clearFilter: screen.picker.clearFilter()
        case .enter:
          if let chosen = screen.picker.chosen { return chosen }
        case .cancel: throw CommandError(.cancelled, "no account chosen")
        case .suspend: raise(SIGTSTP)
        }
      }
      // After Ctrl-Z and fg the screen is drawn afresh at the top of the loop.
      if TerminalGuard.interrupted == 0 { screen.draw(reserving: false) }
    }
  }

  /// The bytes of the keys pressed, waiting for the first; nil when a signal came first. An ESC
  /// at the end is given 50 ms for the rest of an arrow's sequence. The end of input (the
  /// terminal hung up) counts as Esc.
  private static func readKeys(_ input: FileDescriptor) -> [UInt8]? {
    var bytes: [UInt8] = []
    var timeout: Int32 = -1
    repeat {
      let readiness = (try? input.waitReadable(milliseconds: timeout)) ?? .timedOut
      if readiness == .interrupted { return bytes.isEmpty ? nil : bytes }
      if readiness != .readable { break }
      var chunk = [UInt8](repeating: 0, count: 256)
      let read = (try? chunk.withUnsafeMutableBytes { try input.read(into: $0) }) ?? 0
      if read <= 0 { return bytes + [0x03] }
      bytes += chunk[..<read]
      timeout = 50
    } while bytes.last == 0x1B
    return bytes
  }
}

/// Draws a `Picker` below the cursor: the prompt line with the filter, a header, then as many
/// rows as fit the terminal (TIOCGWINSZ), the selected one in reverse video. The cursor is left
/// on the prompt line after the filter, so `erase` is "\r" then clear to the end of the screen.
struct PickerScreen {
  let output: FileDescriptor
  let header: String
  let prompt: String
  var picker: Picker
  /// Lines the screen takes, the prompt's included.
  private var lines = 0

  init(output: FileDescriptor, header: String, prompt: String, picker: Picker) {
    self.output = output
    self.header = header
    self.prompt = prompt
    self.picker = picker
  }

  /// Draws the screen; `reserving` first makes room for it below the cursor, scrolling the
  /// terminal if needed.
  mutating func draw(reserving: Bool) {
    var size = winsize()
    let known =
      ioctl(output.rawValue, UInt(TIOCGWINSZ), &size) == 0 && size.ws_row > 0 && size.ws_col > 0
    let height = known ? Int(size.ws_row) : 24
    let width = known ? Int(size.ws_col) : 80
    if reserving {
      lines = 2 + max(min(picker.rows.count, height - 2), 1)
    }
    let frame = PickerScreen.frame(
      &picker, header: header, prompt: prompt, lines: lines, width: width, reserving: reserving)
    try? output.writeAll(Array(frame.utf8))
  }

  /// Clears what `draw` drew; the cursor ends where the screen began.
  func erase() {
    try? output.writeAll(Array("\r\u{1B}[J".utf8))
  }

  /// The bytes of one screen of `lines` lines at most `width` columns wide (no line wraps, or
  /// the cursor movements would miss). Pure, apart from scrolling `picker`.
  static func frame(
    _ picker: inout Picker, header: String, prompt: String, lines: Int, width: Int, reserving: Bool
  ) -> String {
    func fit(_ line: String) -> String {
      line.count < width ? line : String(line.prefix(max(width - 1, 0)))
    }
    let filter = Names.printable(picker.filter)
    let promptLine = fit(prompt + filter)
    var frame =
      reserving ? "\r" + String(repeating: "\n", count: lines - 1) + "\u{1B}[\(lines - 1)A" : ""
    frame += "\r\u{1B}[2K" + promptLine
    frame += "\r\n\u{1B}[2K" + fit(" \(header)  \(picker.matches.count)/\(picker.rows.count)")
    let shown = picker.window(height: lines - 2)
    for position in 0..<(lines - 2) {
      frame += "\r\n\u{1B}[2K"
      if position == 0, picker.matches.isEmpty {
        frame += fit("  no account matches '\(filter)'")
      } else if shown.contains(shown.lowerBound + position) {
        let index = shown.lowerBound + position
        let line = picker.rows[picker.matches[index]].line
        frame +=
          index == picker.selection ? "\u{1B}[7m" + fit(">" + line) + "\u{1B}[0m" : fit(" " + line)
      }
    }
    frame += "\u{1B}[\(lines - 1)A\r"
    let column = promptLine.count
    if column > 0 { frame += "\u{1B}[\(column)C" }
    return frame
  }
}

extension AccountPresentation {
  /// The picker's rows: every account, most recently logged in first, never-logged-in ones
  /// after (by name), each shown as `accounts list` shows it. Returns the header line too.
  static func pickerRows(
    _ book: AccountBook, now: Timestamp
  ) -> (header: String, rows: [Picker.Row], accounts: [AccountID]) {
    let ordered = book.accounts.enumerated().sorted { first, second in
      switch (first.element.lastLogin, second.element.lastLogin) {
      case (let one?, let other?) where one != other: return one > other
      case (.some, nil): return true
      case (nil, .some): return false
      default: return first.offset < second.offset
      }
    }.map(\.element)
    let lines = table(ordered, in: book, now: now).split(
      separator: "\n", omittingEmptySubsequences: false)
    let rows = zip(ordered, lines.dropFirst()).map { account, line in
      Picker.Row(key: account.id.description, line: String(line))
    }
    return (String(lines.first ?? ""), rows, ordered.map(\.id))
  }
}
