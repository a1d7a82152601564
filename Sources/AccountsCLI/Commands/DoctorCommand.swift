import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsServices
import AccountsSystem
import Glibc

/// `accounts doctor`: is everything accounts depends on in order? Each finding names its fix.
enum DoctorCommand {
  static let spec = CommandSpec(
    "doctor",
    summary: "check the keyring, the index, the config and the adapters",
    discussion: """
      Checks that accounts' own libraries are installed where only you or root can change \
      them, whole, and load as this version of accounts expects, that the Secret Service is reachable and which program provides it, whether the \
      keyring collection is locked, that the index and config files are readable, well formed, \
      yours (it shows their owner) and private (0600 in 0700 directories), whether a command \
      was interrupted between the keyring and the index (doctor settles what it left), whether the \
      keyring holds items of accounts that no account or backend claims (reported with the \
      command that deletes them, never deleted: another installation may share the keyring), \
      that every adapter file is safe to load and every backend's adapter loads and has its \
      settings. Prints one line per check, with the fix for each problem; exits with the status \
      of the first problem (7 for the keyring, 1 for files, settings and unclaimed items, 9 for \
      adapters), 0 when all is well.
      """,
    examples: [("accounts doctor", "find out why something does not work")],
    handler: run)

  struct Finding {
    var check: String
    var ok: Bool
    var detail: String
    var fix: String?
    var status: ExitStatus = .success
  }

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    var findings = installFindings()
    findings += fileFindings("index", environment.paths.index, load: {
      let book = try environment.index.load()
      guard !book.unsettled.isEmpty else { return counted(book.accounts.count, "account") }
      return counted(book.accounts.count, "account") + "; \(counted(book.unsettled.count, "account")) to settle "
        + "(a command that changed the keyring was interrupted or failed; doctor, status and the next command that uses "
        + "their secrets settle them)"
    })
    findings += fileFindings(
      "config", environment.paths.config, load: { try counted(environment.config.load().backends.count, "backend") })
    findings += secretServiceFindings(environment)
    findings += adapterFindings(environment)

    if invocation.json {
      environment.output.writeJSON(.array(findings.map { finding in
        .object([
          "check": .string(finding.check), "ok": .bool(finding.ok),
          "detail": .string(finding.detail), "fix": finding.fix.map { .string($0) } ?? .null,
        ])
      }))
    } else {
      let width = findings.map(\.check.count).max() ?? 0
      for finding in findings {
        let padding = String(repeating: " ", count: width - finding.check.count)
        environment.output.writeText(
          "\(finding.ok ? "ok  " : "FAIL")  \(finding.check)\(padding)  \(finding.detail)\n")
        if let fix = finding.fix {
          environment.output.writeText("      \(String(repeating: " ", count: width))  fix: \(fix)\n")
        }
      }
    }
    let problems = findings.filter { !$0.ok }
    if let first = problems.first {
      throw CommandError(
        first.status, "\(counted(problems.count, "problem")) found",
        fix: invocation.json ? "see the fix of each check" : "see the fixes above")
    }
  }

  /// accounts' own libraries, checked as they are before they are loaded: where they are
  /// installed and the files themselves (see `InstalledFiles.check`); then loaded, for the
  /// version of their table.
  static func installFindings() -> [Finding] {
    var findings: [Finding] = []
    var found: [String] = []
    for (fileName, status) in InstalledFiles.libraries {
      switch InstalledFiles.library(fileName) {
      case .failure(let missing):
        findings.append(Finding(
          check: "install", ok: false, detail: missing.text, fix: "reinstall accounts (`make install`)", status: status))
      case .success(let path):
        switch InstalledFiles.check(path) {
        case .success: found.append(path)
        case .failure(let refusal):
          // A directory's refusal names the directory; a file's is said of the file.
          let detail = refusal.problem.hasPrefix("directory ") ? refusal.problem : "\(path): \(refusal.problem)"
          findings.append(Finding(
            check: "install", ok: false, detail: Names.printable(detail, limit: 4096),
            fix: refusal.fix ?? "reinstall accounts (`make install`)", status: status))
        }
      }
    }
    if findings.isEmpty {
      // Loaded as a command loads it: a library of another version is not a good install.
      do throws(InstalledFiles.Missing) {
        _ = try PrivateLibrary.shared()
      } catch {
        let fix = error.fix ?? SecretStoreError.supportMissing(detail: error.text).fix
        return [Finding(check: "install", ok: false, detail: error.text, fix: fix, status: .secretStoreUnavailable)]
      }
      findings.append(Finding(
        check: "install", ok: true,
        detail: "\(found.map { Names.printable($0, limit: 4096) }.joined(separator: ", ")): yours or root's, writable by no one else"))
    }
    return findings
  }

  /// Readable, well formed, and private: 0600 in a 0700 directory.
  static func fileFindings(_ check: String, _ path: String, load: () throws -> String) -> [Finding] {
    var findings: [Finding] = []
    do {
      let summary = try load()
      var status = stat()
      if stat(path, &status) != 0 {
        findings.append(Finding(check: check, ok: true, detail: "\(path) (not created yet)"))
      } else {
        findings.append(Finding(
          check: check, ok: true,
          detail: "\(path): \(summary); owned by \(ownerName(status.st_uid)), mode \(octalMode(status.st_mode))"))
        findings += privacyFindings(check, path, status)
      }
    } catch let error as UserFacingError {
      findings.append(Finding(check: check, ok: false, detail: error.message, fix: error.fix, status: error.status))
    } catch {
      findings.append(Finding(check: check, ok: false, detail: "\(error)", status: .failure))
    }
    return findings
  }

  /// "alice (uid 1000)", or the number alone when no user has it.
  static func ownerName(_ uid: uid_t) -> String {
    guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
    return "\(String(cString: name)) (uid \(uid))"
  }

  private static func privacyFindings(_ check: String, _ path: String, _ file: stat) -> [Finding] {
    var findings: [Finding] = []
    if file.st_mode & 0o077 != 0 {
      findings.append(Finding(
        check: check, ok: false, detail: "\(path) is open to others (mode \(octalMode(file.st_mode)))",
        fix: "chmod 600 \(shellWord(path))", status: .failure))
    }
    let directory = String(path[..<path.lastIndex(of: "/")!])
    var parent = stat()
    if stat(directory, &parent) == 0, parent.st_mode & 0o077 != 0 {
      findings.append(Finding(
        check: check, ok: false, detail: "\(directory) is open to others (mode \(octalMode(parent.st_mode)))",
        fix: "chmod 700 \(shellWord(directory))", status: .failure))
    }
    return findings
  }

  static func secretServiceFindings(_ environment: Environment) -> [Finding] {
    do {
      try environment.ledger.adoptSecretServiceIfAsked()
      let report = try environment.secretStore().report()
      var findings = [Finding(
        check: "keyring", ok: true,
        detail: (report.provider ?? "an unknown program")
          + (report.providerProcessID.map { " (pid \($0))" } ?? "") + " provides the Secret Service")]
      // A file that claims no secret moves to the provider that answers on its own: only one
      // that does is a problem (see `Ledger`, rule 6).
      let book = try? environment.index.load()
      let configuration = try? environment.config.load()
      let recorded = [
        book.flatMap { $0.claimsSecrets ? $0.secretService : nil },
        configuration.flatMap { $0.claimsSecrets ? $0.secretService : nil },
      ]
      if let current = report.provider, let stored = recorded.compactMap({ $0 }).first(where: { $0 != current }) {
        let error = SecretStoreError.providerChanged(stored: stored, current: current)
        findings.append(Finding(check: "keyring", ok: false, detail: error.message, fix: error.fix, status: error.status))
      }
      switch (report.collection, report.collectionLocked) {
      case (let label?, true?):
        let error = SecretStoreError.locked(collection: label, provider: report.provider)
        findings.append(Finding(
          check: "collection", ok: false, detail: error.message, fix: error.fix, status: error.status))
      case (let label?, _):
        findings.append(Finding(check: "collection", ok: true, detail: "'\(label)' is unlocked"))
      case (nil, _):
        let error = SecretStoreError.noCollection(provider: report.provider)
        findings.append(Finding(
          check: "collection", ok: false, detail: error.message, fix: error.fix, status: error.status))
      }
      let settled = try environment.ledger.settleIfUnsettled()
      if !settled.isEmpty {
        findings.append(Finding(
          check: "settle", ok: true,
          detail: "settled \(settled.map(\.description).joined(separator: ", ")), left half done by an interrupted command"))
      }
      findings.append(try itemFindings(environment))
      return findings
    } catch let error as UserFacingError {
      return [Finding(check: "keyring", ok: false, detail: error.message, fix: error.fix, status: error.status)]
    } catch {
      return [Finding(check: "keyring", ok: false, detail: "\(error)", status: .secretStoreUnavailable)]
    }
  }

  /// Every adapter file found, and every backend's adapter and settings. Adapters are loaded
  /// in child processes (AdapterProbe), never in this one: doctor must outlive a broken adapter
  /// to name it, and the backends' checks use what the children found.
  static func adapterFindings(_ environment: Environment) -> [Finding] {
    let searchPath = environment.adapterSearchPath
    let entries: [AdapterEntry]
    do {
      entries = try AdapterProbe(timeout: try environment.adapterLoadTimeout()).entries(searchPath)
    } catch let error as UserFacingError {
      return [Finding(check: "adapters", ok: false, detail: error.message, fix: error.fix, status: error.status)]
    } catch {
      return [Finding(check: "adapters", ok: false, detail: "\(error)", status: .adapterFailed)]
    }
    let loaded = entries.compactMap { $0.description?.name }
    var findings = [Finding(
      check: "adapters", ok: !loaded.isEmpty,
      detail: loaded.isEmpty
        ? "none found in \(searchPath.directories.map(\.path).joined(separator: ", "))"
        : "\(loaded.joined(separator: ", ")) loaded",
      fix: loaded.isEmpty ? "reinstall accounts (`make install`) or put adapters in \(environment.paths.userAdapters)" : nil,
      status: .adapterFailed)]
    for entry in entries {
      if let refusal = entry.refusal {
        findings.append(Finding(
          check: "adapter", ok: false,
          detail: Names.printable("\(entry.path) refused: \(refusal)", limit: 4096), status: .adapterFailed))
      }
    }
    guard let configuration = try? environment.config.load() else { return findings }
    for backend in configuration.backends {
      do {
        let description = try AdapterProbe.description(of: backend.adapter, in: entries, searchPath)
        let problems = BackendSettingsCheck(adapter: description)
          .problems(settings: backend.settings, secretNames: backend.secretSettings)
        findings.append(Finding(
          check: "backend \(backend.name)", ok: problems.isEmpty,
          detail: problems.first.map(\.description)
            ?? "adapter \(backend.adapter) \(Names.printable(description.version)), settings complete",
          fix: problems.isEmpty ? nil : "edit \(environment.paths.config), or remove the backend and add it again",
          status: .failure))
      } catch {
        findings.append(Finding(
          check: "backend \(backend.name)", ok: false, detail: Names.printable(error.message, limit: 4096),
          fix: error.fix, status: error.status))
      }
    }
    return findings
  }
}
