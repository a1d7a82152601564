import AccountsContract
import AccountsSystem

/// A row whose URL names no backend, or several: reported on the URL's column.
struct URLBackendError: Error {
  let message: String
  let fix: String
}

/// What `accounts import` does with one row of the file.
public struct ImportEntry {
  public enum Action: String, Sendable {
    case imported, updated, skipped, failed
  }

  public let line: Int
  /// Nil for a row that names no account that could be saved.
  public var id: AccountID?
  /// The row to write; nil once it is known not to be written.
  public var row: ImportRow?
  public var tags: [String] = []
  /// The row's TOTP seed, read and checked.
  public var otp: OTPSeed?
  public var action: Action
  /// Why it failed (never a password), one line each.
  public var problems: [ImportProblem] = []
  /// Why it is skipped.
  public var reason: String?
  /// Skipped because the account is saved already (without --update): the expected outcome of
  /// running an import again, so not reported row by row.
  public var savedAlready = false
  /// Not written because an error (the keyring's) stopped the import at this row or before.
  public var stopped = false

}

/// Every row of an import file checked against the configuration and the index, before
/// anything is written: which account each row is (by the rule `add` follows), and whether it
/// is imported, updated, skipped or failed.
public struct ImportPlan {
  public var entries: [ImportEntry] = []
  /// Whether an updated account's tags are replaced by the row's (the file has a tags column)
  /// rather than given the --tag values too.
  public var replacesTags = false

  public var failures: [ImportEntry] { entries.filter { $0.action == .failed } }

  public init(
    _ file: ImportFile, tags extraTags: [String], update: Bool, backend: String?,
    book: AccountBook, configuration: Configuration, hostNames: (any HostNameConversion)?
  ) {
    replacesTags = file.hasTags
    for problem in file.problems {
      if let last = entries.last, last.line == problem.line {
        entries[entries.count - 1].problems.append(problem)
      } else {
        let id = file.named[problem.line].flatMap { named in
          try? configuration.newAccountID(user: named.user, requested: named.backend ?? backend)
        }
        entries.append(ImportEntry(line: problem.line, id: id, action: .failed, problems: [problem]))
      }
    }
    for skip in file.skipped {
      entries.append(ImportEntry(line: skip.line, action: .skipped, reason: skip.reason))
    }
    var lines: [AccountID: [Int]] = [:]
    for row in file.rows {
      var entry = ImportEntry(line: row.line, row: row, tags: Tags.normalised(row.tags + extraTags), action: .imported)
      do {
        let requested = row.backend ?? backend
        entry.id = try configuration.newAccountID(
          user: row.user, requested: requested == nil ? try ImportPlan.backend(naming: row.hosts, in: configuration, hostNames: hostNames) : requested)
      } catch let error as URLBackendError {
        entry.fail(ImportProblem(line: row.line, field: file.urlField, message: error.message, fix: error.fix))
      } catch {
        entry.fail(ImportPlan.problem(row.line, nil, error))
      }
      if let text = row.otp {
        do throws(OTPSeedError) {
          var seed = try OTPSeed(parsing: text)
          if seed.label.isEmpty, let id = entry.id { seed.label = id.description }
          entry.otp = seed
        } catch {
          entry.fail(ImportProblem(line: row.line, field: file.otpField, message: error.message, fix: error.fix))
        }
      }
      if let id = entry.id {
        lines[id, default: []].append(row.line)
        if entry.action != .failed, book[id] != nil {
          if update {
            entry.action = .updated
          } else {
            entry.skip("\(id) is saved already (--update updates it)")
            entry.savedAlready = true
          }
        }
      }
      entries.append(entry)
    }
    for (id, found) in lines where found.count > 1 {
      let message =
        "\(id) is on lines " + found.dropLast().map(String.init).joined(separator: ", ") + " and \(found.last!)"
      for index in entries.indices where entries[index].id == id {
        entries[index].fail(
          ImportProblem(line: entries[index].line, field: file.userField, message: message, fix: "keep one of them"))
      }
    }
    entries.sort { $0.line < $1.line }
  }

  /// The backend a row's URL names: the one whose `base_url` has one of `hosts` (the URL's hosts)
  /// as its host, exactly (no subdomain matching; a port does not count). A non-ASCII host is
  /// compared in its ASCII (IDNA) form as `hostNames` gives it; one it has no such form for
  /// matches none. Nil when the row has no URL: the row goes where a row without one goes.
  /// Throws when the host is several backends', or none's, even with one backend only: a site
  /// of no backend (a bank's, a mail provider's) is not sent to the company's backend unasked.
  static func backend(
    naming hosts: [String], in configuration: Configuration, hostNames: (any HostNameConversion)?
  ) throws(URLBackendError) -> String? {
    guard !hosts.isEmpty else { return nil }
    let ascii = Set(hosts.compactMap { asciiForm($0, hostNames) })
    let named = configuration.backends.filter { backend in
      backend.settings["base_url"].flatMap(HostName.of(url:)).map(ascii.contains) ?? false
    }
    let shown =
      hosts.prefix(3).map { Names.printable($0, limit: 80) }.joined(separator: ", ") + (hosts.count > 3 ? ", ..." : "")
    let partial = "or leave such rows out with --partial"
    switch named.count {
    case 1: return named[0].name
    case 0:
      let only = configuration.backends.count == 1 ? configuration.backends[0].name : nil
      throw URLBackendError(
        message: "its URL's host (\(shown)) is the base_url host of no backend",
        fix: "`--backend \(only ?? "NAME")` sends such rows to \(only ?? "that backend") on purpose "
          + "(import them apart from the others), \(partial)")
    default:
      throw URLBackendError(
        message: "its URL's host (\(shown)) is the base_url host of several backends ("
          + named.map(\.name).joined(separator: ", ") + ")",
        fix: "`--backend NAME` sends such rows to one of them (import them apart from the others), \(partial)")
    }
  }

  /// `host` as a resolver looks it up: itself when ASCII, else its IDNA form (`xn--...`), in
  /// lower case without a final dot; nil when it has none. A form holding more than letters,
  /// digits, `-` and `.` is none (a fullwidth `＠` or `：` maps to a character no host has, and a
  /// browser refuses the URL rather than reading a user name or a port out of it).
  private static func asciiForm(_ host: String, _ hostNames: (any HostNameConversion)?) -> String? {
    guard !host.unicodeScalars.allSatisfy(\.isASCII) else { return host }
    guard case .success(let ascii) = hostNames?.asciiHost(host),
      ascii.utf8.allSatisfy({ byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
          || byte == 0x2E
      })
    else { return nil }
    return HostName.of(authority: ascii[...])
  }

  /// A row's problem from an error of the rules `add` follows.
  ///
  /// An unknown backend is most likely one the file came with from another machine: `export`
  /// does not carry backends (they have secret settings and adapters).
  public static func problem(_ line: Int, _ field: String?, _ error: Error) -> ImportProblem {
    if let unknown = error as? ConfigurationError, case .unknownBackend(let name, let suggestions) = unknown {
      let add = "add it first with `accounts backend add \(name) --adapter A` (export does not carry backends)"
      let fix = suggestions.isEmpty ? add : "did you mean \(Suggestions.phrase(suggestions))? else " + add
      return ImportProblem(line: line, field: field, message: unknown.message, fix: fix)
    }
    let reported = error as? UserFacingError
    return ImportProblem(line: line, field: field, message: reported?.message ?? "\(error)", fix: reported?.fix)
  }

  /// How many rows took each action.
  public var summary: String {
    let count = { (action: ImportEntry.Action) in entries.count { $0.action == action } }
    return "imported \(count(.imported)), updated \(count(.updated)), skipped \(count(.skipped)), "
      + "failed \(count(.failed))"
  }
}

extension ImportEntry {
  public mutating func fail(_ problem: ImportProblem) {
    action = .failed
    row = nil
    reason = nil
    problems.append(problem)
  }

  public mutating func skip(_ why: String) {
    action = .skipped
    row = nil
    reason = why
  }
}
