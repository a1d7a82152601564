import AccountsContract
import SecretMemory
import AccountsCore
import AccountsJSON
import AccountsSystem
import Glibc

/// `accounts import FILE|-`: save the accounts of a CSV file (accounts' own format or a
/// password manager's export), each as `add --remember` saves one.
enum ImportCommand {
  static let spec = CommandSpec(
    "import",
    summary: "save accounts from a CSV file",
    discussion: """
      Reads FILE (or stdin for -), a CSV file of at most 64 MiB, and saves each account in it \
      as `accounts add --remember` does: the password (and the TOTP seed) in the Secret \
      Service, the account in the index, either all or none, even when the import is killed \
      half-way (running it again completes it). The file is only read. The format is told by \
      its header row (case and surrounding spaces ignored): \(ImportFormat.accounts.headerRow) \
      (accounts' own, as `accounts export` writes it; account may be USER@BACKEND, tags \
      space-separated, otp an otpauth://totp/ URI or a base32 seed), or the CSV export of \
      KeePassXC (its TOTP column: an otpauth:// URI or KeeOTP's key=...&step=...), Bitwarden \
      (login_totp: a URI or a base32 seed), LastPass (totp: a base32 seed; its secure notes are \
      skipped), 1Password 8 (OTPAuth: a URI; archived items are skipped), Chrome or Firefox. A \
      column that looks like one-time-code seeds (totp, OTPAuth, 2FA, one-time code, 2-step \
      verification, secret...) that the file's format does not read refuses the file, as does \
      an otpauth:// URI in any column the format reads nothing from: the seeds would be lost.

      A row that names no backend (every password manager's) goes to --backend; without it, \
      to the backend whose base_url has the host of the row's http(s) URL (exactly that host, \
      any port; a non-ASCII host in its IDNA form), and a row without such a URL to the only \
      backend. A row whose URL's host is the base_url host of several backends, or of none \
      (even when there is only one backend: a bank's site is not sent to the company's \
      backend unasked), is a problem named on its URL column: --backend NAME sends such rows \
      to NAME on purpose, --partial leaves them out. The backends must exist already: `accounts export` does not carry them (they have secret settings and an \
      adapter); add them with `accounts backend add`. Every --tag is added to the row's tags. \
      A row of a password manager's export without a user name (a Wi-Fi key, a note) is \
      skipped. The whole file is checked before anything is written: a row that cannot be \
      saved (a bad user name, an unknown backend, the same account twice, an OTP seed that is \
      no TOTP seed, a password or seed longer than \(SecretLimits.text), as for `accounts add`) \
      is reported by line and field, never with its password or seed, and nothing is written \
      (exit 2), unless --partial: then the other rows are imported and the command exits 1. A \
      file that cannot be read as CSV of a known format is refused with exit 2 too. An account \
      saved already is skipped, unless --update: then its password and OTP seed are replaced \
      when the row has them (an empty field keeps them), and its tags are replaced by the \
      row's (and the --tag values) when the file has a tags column; without one, the --tag \
      values are added to its tags.

      Prints each failed row, each row skipped for another reason than being saved already, \
      and a summary (imported N, updated N, skipped N, failed N) on stderr, and progress on a \
      terminal when it takes more than a second. With \
      --json: an array on stdout, one object per row: line, account (null for a row that \
      names none), action (imported, updated, skipped or failed), and error or reason; when the \
      file is refused, only the failed rows. An error of the keyring stops the import: the rows \
      before it are imported, the others not, and running the same import again completes it.
      """,
    arguments: [file], options: [tag, dryRun, update, partial],
    examples: [
      ("accounts import accounts.csv --backend corp --tag qa", "save every account of the file on corp, tagged qa"),
      ("accounts import keepassxc.csv --backend corp --dry-run", "check a KeePassXC export and say what would happen"),
      (
        "accounts export --with-passwords | ssh host accounts import -",
        "copy the accounts to another machine (its backends added first)"
      ),
    ],
    handler: run)

  static let file = ArgumentSpec("FILE", completion: .file, help: "the CSV file to read, or - for stdin")
  static let tag = SharedArguments.tag(help: "give every account of the file this tag too; repeated, every one")
  static let dryRun = OptionSpec("dry-run", help: "check the file and say what would happen; write nothing")
  static let update = OptionSpec(
    "update",
    help: "update accounts saved already from their rows instead of skipping them")
  static let partial = OptionSpec(
    "partial", help: "import the good rows even when others have problems (then exit 1)")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let tags = invocation.values(tag)
    for tag in tags { try Tags.check(tag) }
    let path = invocation.argument(file)!
    let name = path == "-" ? "stdin" : path
    let configuration = try environment.config.load()
    if let backend = invocation.backend { _ = try configuration.backend(named: backend) }
    let read: ImportFile
    do {
      var bytes = try readInput(path, name: name, environment)
      defer { wipe(&bytes) }
      read = try ImportReader.read(bytes, backends: Set(configuration.backends.map(\.name)))
    } catch let error as ImportError {
      throw ImportFileError(name: name, error: error)
    }
    var plan = ImportPlan(
      read, tags: tags, update: invocation.isSet(update), backend: invocation.backend,
      book: try environment.index.load(), configuration: configuration, hostNames: environment.hostNames)
    let failed = plan.failures
    if !failed.isEmpty, !invocation.isSet(partial) {
      report(failed, name, environment)
      if invocation.json { environment.output.writeJSON(.array(failed.map(\.json))) }
      throw CommandError.usage(
        "\(name): nothing imported: \(failed.count) \(failed.count == 1 ? "row has" : "rows have") problems",
        fix: "fix \(failed.count == 1 ? "it" : "them"), or import the other rows with --partial")
    }
    var stop: Error?
    if !invocation.isSet(dryRun) { stop = write(&plan, environment) }
    report(plan.entries.filter { $0.action != .imported && $0.action != .updated }, name, environment)
    if invocation.json { environment.output.writeJSON(.array(plan.entries.map(\.json))) }
    environment.output.message(
      name + (invocation.isSet(dryRun) ? " (dry run, nothing written): " : ": ") + plan.summary)
    if let stop { throw stop }
    if !plan.failures.isEmpty { throw QuietFailure(status: .failure) }
  }

  /// Writes each row through the ledger, in the file's order. Returns the error that stopped
  /// it (the keyring failing fails every row alike): that row and the rest are failed.
  private static func write(_ plan: inout ImportPlan, _ environment: Environment) -> Error? {
    let ledger = environment.ledger
    let now = environment.now()
    var progress = ImportProgress(environment, total: plan.entries.count { $0.row != nil })
    defer { progress.end() }
    for index in plan.entries.indices {
      guard let row = plan.entries[index].row, let id = plan.entries[index].id else { continue }
      let tags = plan.entries[index].tags
      let replacesTags = plan.replacesTags
      do {
        if plan.entries[index].action == .imported {
          do {
            try ledger.add(Account(id: id, addedAt: now, tags: tags), password: row.password, otp: plan.entries[index].otp)
          } catch AccountBookError.alreadySaved {  // saved by another process meanwhile
            plan.entries[index].skip("\(id) was saved meanwhile by another command")
          }
        } else {
          if let password = row.password { try ledger.replacePassword(of: id, with: password) }
          if let seed = plan.entries[index].otp { try ledger.setOTPSeed(of: id, to: seed) }
          _ = try environment.index.update { book in
            book.update(id) { account in
              if replacesTags { account.untag(account.tags) }
              account.tag(tags)
            }
          }
        }
        plan.entries[index].row = nil
        plan.entries[index].otp = nil
      } catch {
        for rest in plan.entries.indices[index...] where plan.entries[rest].row != nil {
          plan.entries[rest].fail(
            rest == index
              ? ImportPlan.problem(plan.entries[rest].line, nil, error)
              : ImportProblem(line: plan.entries[rest].line, field: nil, message: "not tried", fix: nil))
          plan.entries[rest].stopped = true
        }
        return error
      }
      progress.advance()
    }
    return nil
  }

  /// One line on stderr for each row failed or skipped for a reason other than being saved
  /// already (a re-run of a finished import says nothing per row); one for the rows an error
  /// stopped (the error itself is the command's last line).
  private static func report(_ entries: [ImportEntry], _ name: String, _ environment: Environment) {
    let stopped = entries.filter(\.stopped)
    for entry in entries where !entry.stopped && !entry.savedAlready {
      if let reason = entry.reason {
        environment.output.failure("accounts: \(name): line \(entry.line): skipped: \(reason)")
      }
      for problem in entry.problems {
        environment.output.failure("accounts: \(name): \(problem)" + (problem.fix.map { "; \($0)" } ?? ""))
      }
    }
    if let first = stopped.first {
      let rest = stopped.count - 1
      environment.output.failure(
        "accounts: \(name): stopped at line \(first.line): it"
          + (rest == 0 ? " was" : " and the \(rest) \(rest == 1 ? "row" : "rows") after it were")
          + " not imported; run the same import again once the error below is fixed")
    }
  }

  /// The bytes of `path` (stdin for -): at most `ImportReader.sizeLimit` + 1, so that the
  /// reader refuses a larger file without holding it. Read into one buffer that is wiped: the
  /// file holds passwords.
  static func readInput(_ path: String, name: String, _ environment: Environment) throws -> [UInt8] {
    let descriptor: FileDescriptor
    if path == "-" {
      guard !environment.terminal.canPrompt else {
        throw CommandError.usage("stdin is a terminal, not a file", fix: "pipe the file in, or give its name")
      }
      descriptor = .standardInput
    } else {
      do {
        descriptor = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC)
      } catch {
        throw CommandError(.failure, "cannot open \(name): \(error)", fix: "check the file's name and permissions")
      }
    }
    defer { if path != "-" { descriptor.close() } }
    let limit = ImportReader.sizeLimit + 1
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: limit, alignment: 1)
    var count = 0
    defer {
      wipe(buffer.baseAddress!, count: count)
      buffer.deallocate()
    }
    do {
      while count < limit {
        let read = try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
        if read == 0 { break }
        count += read
      }
    } catch {
      throw CommandError(.failure, "cannot read \(name): \(error)", fix: "check that it is a readable file")
    }
    return Array(buffer[..<count])
  }
}

/// An import file that cannot be read at all, named.
struct ImportFileError: UserFacingError {
  let name: String
  let error: ImportError

  var status: ExitStatus { error.status }
  var message: String { "\(name): \(error.message)" }
  var fix: String? { error.fix }
}

/// "importing 120 of 1000" on a terminal's stderr, once the import has taken a second.
private struct ImportProgress {
  let onTerminal: Bool
  let total: Int
  let started = monotonicSeconds()
  var done = 0
  var shown = false

  init(_ environment: Environment, total: Int) {
    onTerminal = environment.showsProgress
    self.total = total
  }

  mutating func advance() {
    done += 1
    guard onTerminal, monotonicSeconds() - started > 1 else { return }
    shown = true
    try? StandardStreams.error.writeAll(Array("\rimporting \(done) of \(total)".utf8))
  }

  func end() {
    if shown { try? StandardStreams.error.writeAll(Array("\r\u{1B}[K".utf8)) }
  }
}

extension ImportEntry {
  /// The entry in `import --json`.
  var json: JSONValue {
    var object: JSONObject = [
      "line": .number(JSONNumber(Int64(line))), "account": id.map { .string($0.description) } ?? .null,
      "action": .string(action.rawValue),
    ]
    if !problems.isEmpty {
      let messages = problems.map { ($0.field.map { "field \($0): " } ?? "") + $0.message }
      object["error"] = .string(messages.joined(separator: "; "))
    }
    if let reason { object["reason"] = .string(reason) }
    return .object(object)
  }}
