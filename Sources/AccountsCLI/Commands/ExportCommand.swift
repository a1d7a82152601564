import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsSystem
import SecretMemory

/// `accounts export`: the saved accounts as CSV in the format `accounts import` reads.
enum ExportCommand {
  static let spec = CommandSpec(
    "export",
    summary: "print the saved accounts as CSV, for import",
    discussion: """
      Prints every saved account (with --backend, those of that backend; with --tag, those \
      with every tag given) as CSV on stdout, in the format `accounts import` reads: the \
      header \(ImportFormat.accounts.headerRow), then one row per account (account as \
      USER@BACKEND, tags space-separated), fields quoted as RFC 4180 needs. Without \
      --with-passwords the password and otp columns are empty: the output holds no secret. \
      With it, each remembered password and TOTP seed (as an otpauth://totp/ URI) is read \
      from the Secret Service and printed, with a warning on stderr; `accounts export \
      --with-passwords | accounts import -` into an empty book gives back the same accounts, \
      tags, passwords and OTP seeds, once the same backends are added there with `accounts \
      backend add` (export does not carry backends: they have secret settings and adapters). \
      Every secret is read before anything is printed: when one cannot be (a locked keyring: \
      exit 7; a password that is not UTF-8 text, which import could not read: exit 1), stdout \
      stays empty. A remembered password missing from the keyring is warned about on stderr \
      and left empty: the output is complete, and the exit status is 3. When stdout is a \
      regular file that group or others may read (`> file` under umask 022), --with-passwords \
      makes it 0600 before writing anything (on stdout or stderr, which may be the same file) \
      when it was empty and is yours, and says so; otherwise (a file appended to) it warns \
      that others can read it, and it warns of another user's file whatever its mode.

      A field that starts with =, +, -, @, a tab or a carriage return is a formula to a \
      spreadsheet opening the file (which may run it: DDE, or a HYPERLINK sending the \
      neighbouring passwords away): export writes it as it is, for import, and warns naming \
      the lines and columns. --spreadsheet-safe writes each such field with a ' in front, in \
      quotes, so that a spreadsheet shows it as text; that file is for a spreadsheet, not for \
      import, which would keep the '.

      With --json: an array of objects with the keys account, user, backend, tags and, with \
      --with-passwords, password and otp (null when none is kept).
      """,
    options: [tag, withPasswords, spreadsheetSafe],
    examples: [
      ("accounts export --tag qa > qa.csv", "the qa accounts, without passwords"),
      ("accounts export --with-passwords | gpg -e -r me > accounts.csv.gpg", "a backup with passwords, encrypted"),
      ("accounts export --tag qa --spreadsheet-safe > qa.csv", "the qa accounts, to open in a spreadsheet"),
    ],
    handler: run)

  static let tag = SharedArguments.tag(help: "only accounts with this tag; repeated, only those with every one")
  static let withPasswords = OptionSpec(
    "with-passwords",
    help: "add the remembered passwords and OTP seeds, read from the Secret Service (a warning on stderr)")
  static let spreadsheetSafe = OptionSpec(
    "spreadsheet-safe",
    help: "write a field a spreadsheet would run as a formula (=, +, -, @ first) with a ' in front; not for import")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let selection = try AccountSelection(tags: invocation.values(tag), backend: invocation.backend)
    let passwords = invocation.isSet(withPasswords)
    if passwords {
      // Before anything is written: under `> file 2>&1` the first warning would make the new
      // file look like one appended to.
      reportExposure(environment)
      try environment.ledger.adoptSecretServiceIfAsked()
    }
    let book = try environment.index.load()
    let accounts = try selection.tagged(in: book, configuration: { try environment.config.load() })
    // Every secret is read before anything is written: a keyring that fails, or a password
    // import could not read back, leaves nothing on stdout.
    var rows: [(account: Account, password: SecretBytes?, seed: SecretBytes?)] = []
    var missing: [AccountID] = []
    for account in accounts {
      guard passwords else {
        rows.append((account, nil, nil))
        continue
      }
      let password = try environment.ledger.exportedPassword(of: account, in: book)
      if account.remembered, password == nil { missing.append(account.id) }
      rows.append((account, password, try environment.ledger.exportedSeed(of: account, in: book)))
    }
    if passwords {
      environment.output.warning(
        "the output holds passwords and OTP seeds in clear text; keep it where only you can read it")
    }
    for id in missing {
      environment.output.warning(
        "\(id)'s remembered password is not in the keyring; its password field is empty")
    }
    let safe = invocation.isSet(spreadsheetSafe)
    if !invocation.json { reportFormulas(rows, safe: safe, environment.output) }
    write(rows, passwords: passwords, json: invocation.json, spreadsheetSafe: safe, environment.output)
    // The output is whole, but a script must notice what it lacks: exit 3, as `accounts password`.
    if !missing.isEmpty { throw QuietFailure(status: .loginRequired) }
  }

  /// A stdout file others may read gets the passwords only once it is the user's alone.
  private static func reportExposure(_ environment: Environment) {
    switch environment.terminal.keepOutputPrivate() {
    case .madePrivate(let was):
      environment.output.message(
        "stdout is a file others could read (mode \(octalMode(was))): made it 0600 before writing the passwords")
    case .readable(let mode):
      environment.output.warning(
        "stdout is a file others can read (mode \(octalMode(mode))), and now holds passwords: "
          + "`chmod 600` it, or export into a new file (`> FILE`)")
    case .notMadePrivate(let mode, let why):
      environment.output.warning(
        "stdout is a file others can read (mode \(octalMode(mode))), and now holds passwords; it could not be made 0600 "
          + "(\(why)): export into a file on a file system that keeps modes, or pipe it to `gpg -e`")
    case .othersFile(let owner, let mode):
      environment.output.warning(
        "stdout is another user's file (uid \(owner), mode \(octalMode(mode))), and now holds passwords that user can "
          + "read: export into a file of your own")
    case nil: break
    }
  }

  /// Names the lines (and columns) a spreadsheet would run as formulas, or, with
  /// --spreadsheet-safe, those written with a ' in front.
  private static func reportFormulas(
    _ rows: [(account: Account, password: SecretBytes?, seed: SecretBytes?)], safe: Bool, _ output: Output
  ) {
    var found: [String] = []
    var line = 2  // the header is line 1
    for row in rows {
      // The line a row starts on, as an editor and `import` count it: a password or seed with
      // a line break in it (written in quotes) makes its row span several.
      let startsOn = line
      line += 1 + [row.password, row.seed].compactMap { $0 }.map(CSVWriter.lineBreaks(in:)).reduce(0, +)
      let columns = [
        ("account", CSVWriter.startsLikeAFormula(row.account.id.description.utf8)),
        ("password", row.password?.withUnsafeBytes { CSVWriter.startsLikeAFormula($0) } ?? false),
        ("backend", CSVWriter.startsLikeAFormula(row.account.id.backend.utf8)),
        ("tags", CSVWriter.startsLikeAFormula(row.account.tags.joined(separator: " ").utf8)),
      ].filter(\.1).map(\.0)
      if !columns.isEmpty { found.append("line \(startsOn) (\(row.account.id): \(columns.joined(separator: ", ")))") }
    }
    guard !found.isEmpty else { return }
    let lines = found.prefix(10).joined(separator: ", ") + (found.count > 10 ? " and \(found.count - 10) more" : "")
    if safe {
      output.message("written with a ' in front for a spreadsheet (import would keep it): \(lines)")
    } else {
      output.warning(
        "a spreadsheet would run these fields as formulas (they start with =, +, -, @, a tab or a carriage return): "
          + "\(lines); to open the file in one, export with --spreadsheet-safe")
    }
  }

  private static func write(
    _ rows: [(account: Account, password: SecretBytes?, seed: SecretBytes?)], passwords: Bool, json: Bool,
    spreadsheetSafe safe: Bool, _ output: Output
  ) {
    if !json { output.write(ImportFormat.accounts.headerRow + "\r\n") }
    var first = true
    for (account, password, seed) in rows {
      if json {
        output.write((first ? "[\n" : ",\n") + "  {\n    ")
        let fields: [(String, JSONValue)] = [
          ("account", .string(account.id.description)), ("user", .string(account.id.user)),
          ("backend", .string(account.id.backend)), ("tags", .array(account.tags.map { .string($0) })),
        ]
        output.write(
          fields.map { JSON.serialize(.string($0.0), pretty: false) + ": " + JSON.serialize($0.1, pretty: false) }
            .joined(separator: ",\n    "))
        if passwords {
          output.write(",\n    \"password\": ")
          if let password { output.writeQuotedJSON(password) } else { output.write("null") }
          output.write(",\n    \"otp\": ")
          if let seed { output.writeQuotedJSON(seed) } else { output.write("null") }
        }
        output.write("\n  }")
      } else {
        output.write(CSVWriter.field(account.id.description, spreadsheetSafe: safe) + ",")
        if let password { output.writeSecret { CSVWriter.field(password, spreadsheetSafe: safe, into: &$0) } }
        let rest = [account.id.backend, account.tags.joined(separator: " ")].map { CSVWriter.field($0, spreadsheetSafe: safe) }
        output.write("," + rest.joined(separator: ",") + ",")
        if let seed { output.writeSecret { CSVWriter.field(seed, into: &$0) } }
        output.write("\r\n")
      }
      first = false
    }
    if json { output.write(first ? "[]\n" : "\n]\n") }
  }
}
