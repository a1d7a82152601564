import AccountsCore

extension StatusCommand {
  /// The table of `status` on a terminal, a row at a time as each check ends: its columns are
  /// as wide as every account name, backend name and outcome that could come, since the rows
  /// are not known when the first is printed.
  final class StreamedRows: @unchecked Sendable {
    private let progress: ProgressLine
    private let widths: [Int]
    /// stdout failed: no more rows are written, and the command fails with this.
    private(set) var failure: OutputError?

    /// Every outcome `outcome(_:)` can name.
    static let outcomes = [
      "no session", "valid", "valid (logged in again)", "login required", "expired", "signed in elsewhere",
      "rejected", "upgrade required", "backend error", "adapter failed", "error",
    ]

    init(_ ids: [AccountID], progress: ProgressLine) {
      self.progress = progress
      let width = { (texts: [String]) in texts.map { Names.printable($0, limit: .max).count }.max() ?? 0 }
      widths = [
        width(ids.map(\.description) + [header[0]]), width(ids.map(\.backend) + [header[1]]),
        width(Self.outcomes + [header[2]]), 0,
      ]
    }

    /// Prints the header.
    func start() throws(OutputError) { try progress.print(line(header)) }

    /// Prints the row of `entry` (called one entry at a time).
    func print(_ entry: StatusEntry) {
      guard failure == nil else { return }
      do { try progress.print(line(row(entry))) } catch { failure = error }
    }

    private func line(_ cells: [String]) -> [UInt8] {
      Array(TextTable.render([cells], minimumWidths: widths).utf8)
    }
  }
}
