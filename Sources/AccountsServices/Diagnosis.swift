import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc

/// What `accounts doctor` finds: accounts' own install, the index and config files, the Secret
/// Service and what it holds of accounts, the adapters and every backend's. Each finding names
/// its fix and the exit status a problem of its kind has.
public struct Diagnosis {
  public struct Finding {
    public var check: String
    public var ok: Bool
    public var detail: String
    public var fix: String?
    public var status: ExitStatus = .success
  }

  let paths: Paths
  let ledger: Ledger
  let secretStore: () throws -> SecretStore
  let searchPath: AdapterSearchPath
  let adapterLoadTimeout: () throws -> Double
  let busAddress: String
  let secretTimeout: () throws -> Double

  public init(
    paths: Paths, ledger: Ledger, secretStore: @escaping () throws -> SecretStore, searchPath: AdapterSearchPath,
    adapterLoadTimeout: @escaping () throws -> Double, busAddress: String, secretTimeout: @escaping () throws -> Double
  ) {
    self.paths = paths
    self.ledger = ledger
    self.secretStore = secretStore
    self.searchPath = searchPath
    self.adapterLoadTimeout = adapterLoadTimeout
    self.busAddress = busAddress
    self.secretTimeout = secretTimeout
  }

  /// Every check, in the order `doctor` prints them.
  public func findings() -> [Finding] {
    var findings = Self.installFindings()
    findings += Self.fileFindings("index", paths.index, load: {
      let book = try ledger.index.load()
      guard !book.unsettled.isEmpty else { return counted(book.accounts.count, "account") }
      return counted(book.accounts.count, "account") + "; \(counted(book.unsettled.count, "account")) to settle "
        + "(a command that changed the keyring was interrupted or failed; doctor, status and the next command that uses "
        + "their secrets settle them)"
    })
    findings += Self.fileFindings("config", paths.config, load: { try counted(ledger.config.load().backends.count, "backend") })
    findings += secretServiceFindings()
    findings += adapterFindings()
    return findings
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
          check: "install", ok: false, detail: missing.text, fix: InstalledFiles.reinstall, status: status))
      case .success(let path):
        switch InstalledFiles.check(path) {
        case .success: found.append(path)
        case .failure(let refusal):
          // A directory's refusal names the directory; a file's is said of the file.
          let detail = refusal.problem.hasPrefix("directory ") ? refusal.problem : "\(path): \(refusal.problem)"
          findings.append(Finding(
            check: "install", ok: false, detail: Names.printable(detail, limit: 4096),
            fix: refusal.fix ?? InstalledFiles.reinstall, status: status))
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

  func secretServiceFindings() -> [Finding] {
    do {
      try ledger.adoptSecretServiceIfAsked()
      let report = try secretStore().report()
      var findings = [Finding(
        check: "keyring", ok: true,
        detail: (report.provider ?? "an unknown program")
          + (report.providerProcessID.map { " (pid \($0))" } ?? "") + " provides the Secret Service")]
      // A file that claims no secret moves to the provider that answers on its own: only one
      // that does is a problem (see `Ledger`, rule 6).
      let book = try? ledger.index.load()
      let configuration = try? ledger.config.load()
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
      let settled = try ledger.settleIfUnsettled()
      if !settled.isEmpty {
        findings.append(Finding(
          check: "settle", ok: true,
          detail: "settled \(settled.map(\.description).joined(separator: ", ")), left half done by an interrupted command"))
      }
      findings += try itemFindings(collectionLocked: report.collectionLocked == true)
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
  func adapterFindings() -> [Finding] {
    let searchPath = searchPath
    let entries: [AdapterEntry]
    do {
      entries = try AdapterProbe(timeout: try adapterLoadTimeout()).entries(searchPath)
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
      fix: loaded.isEmpty ? "\(InstalledFiles.reinstall), or put adapters in \(paths.userAdapters)" : nil,
      status: .adapterFailed)]
    for entry in entries {
      if let refusal = entry.refusal {
        findings.append(Finding(
          check: "adapter", ok: false,
          detail: Names.printable("\(entry.path) refused: \(refusal)", limit: 4096), status: .adapterFailed))
      }
    }
    guard let configuration = try? ledger.config.load() else { return findings }
    for backend in configuration.backends {
      do {
        let description = try AdapterProbe.description(of: backend.adapter, in: entries, searchPath)
        let problems = BackendSettingsCheck(adapter: description, hostNames: IDNAHostNames())
          .problems(settings: backend.settings, secretNames: backend.secretSettings)
        findings.append(Finding(
          check: "backend \(backend.name)", ok: problems.isEmpty,
          detail: problems.first.map(\.description)
            ?? "adapter \(backend.adapter) \(Names.printable(description.version)), settings complete",
          fix: problems.isEmpty ? nil : "edit \(paths.config), or remove the backend and add it again",
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
