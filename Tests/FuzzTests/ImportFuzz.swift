import AccountsSystem
import SecretMemory

@testable import AccountsCLI
@testable import AccountsCore

/// The CSV importer: files `export` writes (rows of any text, good rows and bad ones) read back
/// to the same rows, with a problem for each bad row that never quotes a password; the same
/// files mutated, and other formats' headers with random rows, give rows or a typed error
/// (exit status 2) that quotes no field either.
enum ImportFuzz {
  /// In every password and seed, and in no name: a message holding it quotes a secret.
  static let marker = "☃"
  static let users = ["alice", "bob@example.com", "qa.user+1", "张三", "élise", "u_2"]
  static let badUsers = ["-x", "a b", "a$b", "a\u{202E}b", "a\u{7}b", String(repeating: "a b", count: 3000)]
  static let backends = ["corp", "test", "a.b-c_d"]
  static let pieces = [",", "\"", "\"\"", "\r", "\n", "\r\n", "\u{0}", "\u{FEFF}", "account", "password", "otp", "@"]

  struct Row: Equatable {
    var user: String
    var backend: String
    var password: String
    var tags: [String]
    var otp: String
  }

  static func oneCase(_ fuzz: inout Case) {
    var good: [Row] = []
    var text = ImportFormat.accounts.headerRow + "\r\n"
    var badRows = 0
    for number in 0..<fuzz.below(6) {
      var row = Row(
        user: fuzz.pick(users) + String(number), backend: fuzz.pick(backends),
        password: fuzz.oneIn(4) ? "" : marker + fuzz.text(upTo: 12).filter { $0 != "\u{0}" },
        tags: (0..<fuzz.below(3)).map { _ in fuzz.pick(["qa", "smoke.1", "b_2"]) },
        otp: fuzz.oneIn(2) ? "" : marker + fuzz.text(upTo: 6).filter { $0 != "\u{0}" })
      let bad = fuzz.oneIn(5)
      if bad {
        switch fuzz.below(3) {
        case 0: row.user = fuzz.pick(badUsers)
        case 1: row.backend = "-" + row.backend
        default: row.tags.append("-t")
        }
        badRows += 1
      } else {
        var expected = row
        expected.tags = Tags.normalised(row.tags)
        good.append(expected)
      }
      text += [row.user + "@" + row.backend, row.password, row.backend, row.tags.joined(separator: " "), row.otp]
        .map { CSVWriter.field($0) }.joined(separator: ",") + (fuzz.oneIn(2) ? "\r\n" : "\n")
    }
    let written = Array(text.utf8)
    do {
      let file = try ImportReader.read(written, backends: Set(backends))
      let read = file.rows.map { row in
        Row(
          user: row.user, backend: row.backend ?? "", password: string(row.password), tags: row.tags,
          otp: string(row.otp))
      }
      fuzz.check(read == good, "rows \(read) read back from \(Case.show(written)), expected \(good)")
      fuzz.check(
        file.problems.count == badRows, "\(file.problems.count) problems, \(badRows) bad rows: \(Case.show(written))")
      for problem in file.problems {
        let text = problem.description + (problem.fix ?? "")
        fuzz.check(!text.contains(marker), "a problem quotes a secret: \(problem)")
        fuzz.check(text.count <= 1000, "a problem of \(text.count) characters: \(text.prefix(300).debugDescription)…")
      }
    } catch {
      fuzz.check(false, "an exported file is refused (\(error.message)): \(Case.show(written))")
    }

    let other = ImportFormat.allCases.map { Array(($0.headerRow + "\n").utf8) }
    let rows = written.dropFirst(ImportFormat.accounts.headerRow.utf8.count + 2)
    let bytes: [UInt8] =
      switch fuzz.below(4) {
      case 0: fuzz.pick(other) + fuzz.bytes(upTo: 48)
      case 1: fuzz.mutated(fuzz.pick(other) + rows, pieces: pieces)
      default: fuzz.mutated(written, pieces: pieces)
      }
    do {
      let file = try ImportReader.read(bytes, backends: Set(backends))
      fuzz.tally(file.rows.isEmpty ? "mutated file read, no rows" : "mutated file read, rows")
    } catch {
      fuzz.check(error.status == .usage, "status \(error.status.rawValue), not 2: \(Case.show(bytes))")
      fuzz.check(
        !((error.message) + (error.fix ?? "")).contains(marker), "the error quotes a field: \(error.message)")
    }
    csvRecords(&fuzz)
  }

  /// Records of random fields, written as `export` writes fields, read back field by field,
  /// each starting on the line it was written on.
  static func csvRecords(_ fuzz: inout Case) {
    var records: [[String]] = []
    var lines: [Int] = []
    var text = ""
    for _ in 0..<fuzz.below(5) {
      var fields = (0..<(2 + fuzz.below(4))).map { _ in fuzz.text(upTo: 10).filter { $0 != "\u{0}" } }
      // A file that starts with U+FEFF starts with a byte order mark, not with a field that holds it.
      if text.isEmpty { fields[0] = String(fields[0].drop { $0 == "\u{FEFF}" }) }
      records.append(fields)
      lines.append(1 + text.utf8.filter { $0 == 0x0A }.count)
      text += fields.map { CSVWriter.field($0) }.joined(separator: ",") + fuzz.pick(["\r\n", "\n"])
    }
    let bytes = Array(text.utf8)
    do {
      var reader = try CSVReader(bytes)
      var read: [[String]] = []
      var readLines: [Int] = []
      while let record = try reader.next() {
        read.append(record.fields.map { String(decoding: $0, as: UTF8.self) })
        readLines.append(record.line)
      }
      fuzz.check(read == records, "records \(read) read from \(Case.show(bytes)), expected \(records)")
      fuzz.check(readLines == lines, "lines \(readLines), expected \(lines): \(Case.show(bytes))")
    } catch {
      fuzz.check(false, "written records are refused (\(error.message)): \(Case.show(bytes))")
    }
  }

  static func string(_ secret: SecretBytes?) -> String {
    secret.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } } ?? ""
  }
}
