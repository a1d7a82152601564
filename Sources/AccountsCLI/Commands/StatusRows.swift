import AccountsContract
import AccountsCore
import AccountsSystem
import AccountsJSON

extension StatusCommand {
  /// The table of `status` on a terminal, a row at a time as each check ends: its columns are
  /// as wide as every account name, backend name and outcome that could come, since the rows
  /// are not known when the first is printed. With `--json-lines`, an object a line instead.
  final class StreamedRows: @unchecked Sendable {
    private let progress: ProgressLine
    private let widths: [Int]
    private let asJSON: Bool
    /// stdout failed: no more rows are written, and the command fails with this.
    private(set) var failure: OutputError?

    /// Every outcome `outcome(_:)` can name.
    static let outcomes = [
      "no session", "valid", "valid (logged in again)", "login required", "expired", "signed in elsewhere",
      "rejected", "upgrade required", "backend error", "adapter failed", "error",
    ]

    /// `--json-lines`: one object per line, without a header.
    init(json progress: ProgressLine) {
      self.progress = progress
      widths = []
      asJSON = true
    }

    init(_ ids: [AccountID], progress: ProgressLine) {
      self.progress = progress
      asJSON = false
      let width = { (texts: [String]) in texts.map { Names.printable($0, limit: .max).count }.max() ?? 0 }
      widths = [
        width(ids.map(\.description) + [header[0]]), width(ids.map(\.backend) + [header[1]]),
        width(Self.outcomes + [header[2]]), 0,
      ]
    }

    /// Prints the header.
    func start() throws(OutputError) { if !asJSON { try progress.print(line(header)) } }

    /// Prints the row of `entry` (called one entry at a time).
    func print(_ entry: StatusEntry) {
      guard failure == nil else { return }
      let bytes = asJSON ? Array((JSON.serialize(json(entry), pretty: false) + "\n").utf8) : line(row(entry))
      do { try progress.print(bytes) } catch { failure = error }
    }

    private func line(_ cells: [String]) -> [UInt8] {
      Array(TextTable.render([cells], minimumWidths: widths).utf8)
    }
  }
}
