import AccountsCore

/// The picker of `accounts switch` without USER, as pure state: a list of rows, the filter typed
/// so far, the rows it matches and the one selected. `PickerScreen` draws it and feeds it keys;
/// nothing here touches the terminal, so every rule is tested without one.
struct Picker {
  /// One choice: `key` is what the filter matches (USER@BACKEND), `line` what is shown.
  struct Row: Equatable {
    let key: String
    let line: String
  }

  let rows: [Row]
  private(set) var filter = ""
  /// Indices into `rows` of the rows the filter matches, in the rows' order.
  private(set) var matches: [Int]
  /// Position in `matches` of the selected row; 0 when nothing matches.
  private(set) var selection = 0
  /// Position in `matches` of the first row shown, so that a long list scrolls.
  private(set) var top = 0

  init(rows: [Row]) {
    self.rows = rows
    self.matches = Array(rows.indices)
  }

  /// The row Enter chooses, as an index into `rows`; nil when the filter matches nothing.
  var chosen: Int? { matches.isEmpty ? nil : matches[selection] }

  /// True when every character of `filter` appears in `key` in order, ignoring case: "ac"
  /// matches "alice@corp", as fzf and the QQ dropdown's search do.
  static func matches(_ key: String, filter: String) -> Bool {
    var wanted = filter.lowercased().makeIterator()
    guard var next = wanted.next() else { return true }
    for character in key.lowercased() where character == next {
      guard let following = wanted.next() else { return true }
      next = following
    }
    return false
  }

  mutating func type(_ text: String) {
    filter += text
    refilter()
  }

  /// Removes the last character typed; nothing when the filter is empty.
  mutating func backspace() {
    guard !filter.isEmpty else { return }
    filter.removeLast()
    refilter()
  }

  mutating func clearFilter() {
    filter = ""
    refilter()
  }

  /// Moves the selection by `step` rows, stopping at the first and the last match.
  mutating func move(_ step: Int) {
    guard !matches.isEmpty else { return }
    selection = min(max(selection + step, 0), matches.count - 1)
  }

  /// Scrolls the least needed so that the selected row is among the `height` rows shown from
  /// `top`; returns those rows' positions in `matches`.
  mutating func window(height: Int) -> Range<Int> {
    let height = max(height, 1)
    if selection < top { top = selection }
    if selection >= top + height { top = selection - height + 1 }
    top = max(min(top, matches.count - height), 0)
    return top..<min(top + height, matches.count)
  }

  /// A new filter starts again at the first (most recent) match.
  private mutating func refilter() {
    matches = rows.indices.filter { Self.matches(rows[$0].key, filter: filter) }
    selection = 0
    top = 0
  }
}

/// What a key press means to the picker, decoded from the bytes a terminal in raw mode sends.
enum PickerKey: Equatable {
  case text(String)
  case up
  case down
  case enter
  case backspace
  /// Ctrl-U: the whole filter goes, as in a shell.
  case clearFilter
  /// Esc or Ctrl-C.
  case cancel
  /// Ctrl-Z: stop like any program, the terminal restored meanwhile.
  case suspend

  /// The keys in `bytes`, one read's worth. A lone ESC is the Esc key (the caller waits a
  /// moment for the rest of an arrow's sequence before passing it on); ESC [ A/B and ESC O A/B
  /// are the arrows; other escape sequences (Home, F-keys) are skipped whole. Other control
  /// bytes are ignored, and so is text that is not UTF-8.
  static func decode(_ bytes: [UInt8]) -> [PickerKey] {
    var keys: [PickerKey] = []
    var index = 0
    var text: [UInt8] = []
    func flushText() {
      if !text.isEmpty, let string = String(validating: text, as: UTF8.self) {
        keys.append(.text(string))
      }
      text = []
    }
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if byte >= 0x20, byte != 0x7F {
        text.append(byte)
        continue
      }
      flushText()
      switch byte {
      case 0x1B:
        guard index < bytes.count, bytes[index] == 0x5B || bytes[index] == 0x4F else {
          keys.append(.cancel)
          return keys
        }
        index += 1
        // CSI: parameter bytes up to the final byte (0x40...0x7E).
        var final: UInt8 = 0
        while index < bytes.count {
          final = bytes[index]
          index += 1
          if (0x40...0x7E).contains(final) { break }
        }
        if final == 0x41 { keys.append(.up) }
        if final == 0x42 { keys.append(.down) }
      case 0x0D, 0x0A: keys.append(.enter)
      case 0x7F, 0x08: keys.append(.backspace)
      case 0x03: keys.append(.cancel)
      case 0x10: keys.append(.up)
      case 0x0E: keys.append(.down)
      case 0x15: keys.append(.clearFilter)
      case 0x1A: keys.append(.suspend)
      default: break
      }
    }
    flushText()
    return keys
  }
}
