import AccountsContract
import AccountsCore
import Foundation
import TestSupport
import Testing

@testable import AccountsCLI

/// What `man accounts` says, read from the committed man/accounts.1 as groff renders it: the
/// drift check proves the file matches the generator, these prove the generator leaves nothing
/// out.
@Suite(.blocking) struct ManPageTests {
  /// The page as plain text, one line per paragraph (a very long line length, so that no word
  /// is broken or hyphenated across lines), split into its sections by heading.
  func sections(_ page: String = "man/accounts.1") throws -> [(heading: String, lines: [String])] {
    let path = PackagePaths.root.appendingPathComponent(page).path
    let result = try runProcess(
      "/usr/bin/groff", ["-man", "-Tascii", "-P", "-cbu", "-rLL=4000n", path],
      environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
    #expect(result.status == 0, "\(result)")
    var sections: [(heading: String, lines: [String])] = []
    for line in result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    {
      if let first = line.first, first.isUppercase, line.allSatisfy({ $0.isUppercase || $0 == " " })
      {
        sections.append((line, []))
      } else if !sections.isEmpty {
        sections[sections.count - 1].lines.append(line)
      }
    }
    return sections
  }

  /// The lines of a section, nil when the page has no such section.
  func section(_ heading: String, in sections: [(heading: String, lines: [String])]) -> [String]? {
    sections.first { $0.heading == heading }?.lines
  }

  /// Whether `lines` hold the item that documents `option`: its tag, e.g. "-y, --yes" or
  /// "--set KEY=VALUE", indented as a .TP tag is, alone on its line or followed by the help
  /// when the tag is short.
  func documents(_ option: OptionSpec, in lines: [String]) -> Bool {
    let term =
      "       " + (option.short.map { "-\($0), " } ?? "") + "--\(option.long)"
      + (option.valueName.map { " \($0)" } ?? "")
    return lines.contains { $0 == term || $0.hasPrefix(term + " ") }
  }

  @Test func everyOptionIsDocumentedInItsCommandsSection() throws {
    let sections = try sections()
    let commands = try #require(section("COMMANDS", in: sections))
    // Each command's own subsection runs from its heading (indented 3) to the next heading.
    var subsections: [String: [String]] = [:]
    var current: String?
    for line in commands {
      if line.hasPrefix("   "), !line.hasPrefix("    ") {
        current = line.split(separator: " ").joined(separator: " ")
        subsections[current!] = []
      } else if let current {
        subsections[current]!.append(line)
      }
    }
    for path in CommandTable.paths where !path.command.hidden {
      let heading = subsections.keys.first {
        $0 == "accounts \(path.name)" || $0.hasPrefix("accounts \(path.name) ")
      }
      guard let heading else {
        Issue.record("no section for accounts \(path.name); sections: \(subsections.keys.sorted())")
        continue
      }
      for option in path.command.options {
        let documented = documents(option, in: subsections[heading]!)
        #expect(
          documented,
          "`accounts \(path.name)` does not document --\(option.long) in its own section")
      }
    }
    let global = try #require(section("GLOBAL OPTIONS", in: sections))
    for option in GlobalOptions.all {
      let documented = documents(option, in: global)
      #expect(documented, "GLOBAL OPTIONS does not document --\(option.long)")
    }
  }

  /// NAMES comes right after DESCRIPTION and says what a name may hold, and that completion
  /// offers names as literal words.
  @Test func namesSectionSaysWhatNamesMayHold() throws {
    let sections = try sections()
    let headings = sections.map(\.heading)
    guard let names = section("NAMES", in: sections) else {
      Issue.record("no NAMES section in \(headings)")
      return
    }
    #expect(
      headings.firstIndex(of: "NAMES") == headings.firstIndex(of: "DESCRIPTION").map { $0 + 1 })
    let text = names.joined(separator: " ").split(separator: " ").joined(separator: " ")
    #expect(text.contains(Names.userRule), "NAMES: \(text)")
    #expect(text.contains("literal words"), "NAMES: \(text)")
  }

  /// The whole text of a section, its lines joined and blanks collapsed.
  func text(_ heading: String, in sections: [(heading: String, lines: [String])]) -> String {
    (section(heading, in: sections) ?? []).joined(separator: " ").split(separator: " ").joined(separator: " ")
  }

  /// What people look for in a man page: which account a command uses (the one resolver's
  /// order, directory rules and the picker included), every variable read, the files' keys,
  /// what --json promises, and that `lock` locks more than accounts' own secrets.
  @Test func saysWhichAccountTheFilesTheJSONContractAndWhatLockLocks() throws {
    let sections = try sections()
    let sessions = text("SESSIONS", in: sections)
    #expect(sessions.contains("ACCOUNTS_ACCOUNT; the directory rule (`accounts rule add DIR USER`)"), "\(sessions)")
    #expect(sessions.contains("the picker of `accounts switch`"), "\(sessions)")
    let environment = text("ENVIRONMENT", in: sections)
    for name in ["XDG_DATA_HOME", "SHELL", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"] {
      #expect(environment.contains(name), "ENVIRONMENT lacks \(name)")
    }
    #expect(text("CONFIGURATION", in: sections).contains("accounts-config(5) describes them key by key"))
    #expect(text("SEE ALSO", in: sections).contains("accounts-config(5)"))
    let contract = text("JSON CONTRACT", in: sections)
    #expect(contract.contains("keys are only ever added"), "\(contract)")
    #expect(contract.contains("explicit null"), "\(contract)")
    let commands = text("COMMANDS", in: sections)
    #expect(commands.contains("the whole login keyring"), "lock")
    #expect(text("DESCRIPTION", in: sections).contains("a warning (something went wrong, but the command did its job"))

    let login = HelpRenderer.help(for: CommandTable.paths.first { $0.name == "login" }, in: CommandTable.all)
    let flat = login.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    #expect(flat.contains("the directory rule (`accounts rule add DIR USER`)"), "\(flat)")
    #expect(flat.contains("picker"))
  }

  /// accounts-config(5): every key of both files, accounts' own backend settings, and an
  /// example config.json that accounts itself reads.
  @Test func theConfigPageDescribesEveryKeyOfBothFiles() throws {
    let sections = try sections("man/accounts-config.5")
    let config = text("CONFIGURATION", in: sections)
    for key in ["version", "backends", "adapter", "settings", "secret_settings", "rules", "hooks", "secret_service", "unsettled"] {
      #expect(config.contains(key), "CONFIGURATION lacks \(key)")
    }
    let settings = text("BACKEND SETTINGS", in: sections)
    for key in ["base_url", "allow_insecure_transport", "git_host", "lease_store", "lease_prefix", "lease_store_password"] {
      #expect(settings.contains(key), "BACKEND SETTINGS lacks \(key)")
    }
    let index = text("THE INDEX", in: sections)
    for key in ["auto_login", "previous_auto_login", "remembered", "added_at", "last_login", "expires_at", "session", "tags", "otp"] {
      #expect(index.contains(key), "THE INDEX lacks \(key)")
    }
    // The example is a config.json accounts reads: a JSON object with both backends.
    let example = text("EXAMPLE", in: sections)
    let json = try #require(example.firstIndex(of: "{").map { String(example[$0...]) })
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
    #expect((object["backends"] as? [String: Any])?.keys.sorted() == ["corp", "local"])
  }
}
