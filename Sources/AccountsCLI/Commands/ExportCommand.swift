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
      and left empty: the output is complete, and the exit status is 3.

      With --json: an array of objects with the keys account, user, backend, tags and, with \
      --with-passwords, password and otp (null when none is kept).
      """,
    options: [tag, withPasswords],
    examples: [
      ("accounts export --tag qa > qa.csv", "the qa accounts, without passwords"),
      ("accounts export --with-passwords | gpg -e -r me > accounts.csv.gpg", "a backup with passwords, encrypted"),
    ],
    handler: run)

  static let tag = SharedArguments.tag(help: "only accounts with this tag; repeated, only those with every one")
  static let withPasswords = OptionSpec(
    "with-passwords",
    help: "add the remembered passwords and OTP seeds, read from the Secret Service (a warning on stderr)")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let selection = try AccountSelection(tags: invocation.values(tag), backend: invocation.backend)
    let passwords = invocation.isSet(withPasswords)
    if passwords { try environment.ledger.adoptSecretServiceIfAsked() }
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
    write(rows, passwords: passwords, json: invocation.json, environment.output)
    // The output is whole, but a script must notice what it lacks: exit 3, as `accounts password`.
    if !missing.isEmpty { throw QuietFailure(status: .loginRequired) }
  }

  private static func write(
    _ rows: [(account: Account, password: SecretBytes?, seed: SecretBytes?)], passwords: Bool, json: Bool,
    _ output: Output
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
        output.write(CSVWriter.field(account.id.description) + ",")
        if let password { output.writeSecret { CSVWriter.field(password, into: &$0) } }
        let rest = [account.id.backend, account.tags.joined(separator: " ")].map { CSVWriter.field($0) }
        output.write("," + rest.joined(separator: ",") + ",")
        if let seed { output.writeSecret { CSVWriter.field(seed, into: &$0) } }
        output.write("\r\n")
      }
      first = false
    }
    if json { output.write(first ? "[]\n" : "\n]\n") }
  }
}
