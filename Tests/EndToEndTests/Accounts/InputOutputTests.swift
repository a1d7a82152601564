import Foundation
import TestSupport
import Testing

/// Bad bytes, special files, hand-edited files and unwritable output, from the outside: each
/// gets a one-line error naming the fix and the documented status, and nothing is lost.
@Suite(.blocking) struct HostileInputTests {
  func sandbox() throws -> Sandbox {
    let sandbox = try Sandbox()
    try sandbox.addBackend("corp")
    return sandbox
  }

  /// Runs a shell snippet with $ACCOUNTS the built binary.
  func shell(_ sandbox: Sandbox, _ script: String, stdin: String? = nil) throws -> ProcessResult {
    try runProcess(
      "/bin/bash", ["-c", script],
      environment: sandbox.environment.merging(["ACCOUNTS": PackagePaths.accounts]) { $1 },
      standardInput: stdin, timeout: 30)
  }

  @Test func outputThatCannotBeWrittenIsAnError() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n")
    let full = try shell(sandbox, #""$ACCOUNTS" password alice > /dev/full"#)
    #expect(full.status == 1, "\(full)")
    #expect(full.standardError == "accounts: cannot write to stdout: No space left on device; free some space where stdout goes, or send it elsewhere\n")
    let closed = try shell(sandbox, #""$ACCOUNTS" list >&-"#)
    #expect(closed.status == 1, "\(closed)")
    #expect(closed.standardError == "accounts: cannot write to stdout: it is closed; send stdout somewhere writable\n")
    let json = try shell(sandbox, #""$ACCOUNTS" list --json > /dev/full"#)
    #expect(json.status == 1)
    // Nothing to print is no error; a closed stdout never receives a file's bytes either.
    let quiet = try shell(sandbox, #""$ACCOUNTS" add bob >&- && "$ACCOUNTS" list --json | grep -c '"user"'"#)
    #expect(quiet.status == 0 && quiet.standardOutput == "2\n", "\(quiet)")
  }

  @Test func argumentsThatAreNotUTF8AreRefused() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    // Two different byte strings that would both read as "a\u{FFFD}": one account, once.
    let result = try shell(sandbox, #""$ACCOUNTS" add "$(printf 'a\377')"; echo "first=$?"; "$ACCOUNTS" add "$(printf 'a\376')"; echo "second=$?""#)
    #expect(result.standardOutput == "first=2\nsecond=2\n", "\(result)")
    #expect(result.standardError.contains("accounts: argument 2 is not valid UTF-8 text; names, options and values must be UTF-8"))
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.isEmpty == true)
  }

  @Test func environmentVariablesThatAreNotUTF8AreRefused() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let result = try shell(sandbox, #"XDG_STATE_HOME="$(printf '/tmp/st\377')" "$ACCOUNTS" add bob"#)
    #expect(result.status == 2, "\(result)")
    #expect(result.standardError.hasPrefix("accounts: the environment variable XDG_STATE_HOME is not valid UTF-8 text"))
    #expect(!FileManager.default.fileExists(atPath: "/tmp/st\u{FFFD}"))
  }

  /// `--password-stdin` takes the first line and returns: a pipe that stays open is not waited on.
  @Test func passwordStdinReadsOneLineAndReturns() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    // The writer keeps the pipe open for 30 s after the line (it is ended once the command has
    // returned); the command's own time is printed.
    let result = try shell(sandbox, #"""
      pipe=$(mktemp -u "$WITH_KEYRING_ROOT/pipe.XXXXXX") && mkfifo "$pipe"
      (printf 'pw\n'; exec sleep 30) >"$pipe" & writer=$!
      start=$EPOCHREALTIME
      "$ACCOUNTS" add alice --remember --password-stdin <"$pipe"
      echo "status=$? after=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 )) ms"
      kill "$writer"
      """#)
    let line = try #require(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("status=") })
    let milliseconds = Int(line.split(separator: "=").last!.split(separator: " ").first!) ?? .max
    #expect(line.hasPrefix("status=0 "), "\(result)")
    #expect(milliseconds < 3000, "returned after the line: \(line)")
    #expect(try sandbox.ok(["password", "alice"]).standardOutput == "pw\n")
  }

  @Test func adapterPathsWithEscapesNeverReachTheTerminal() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let directory = sandbox.keyring.root + "/ad\u{1B}[41m"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    chmod(directory, 0o755)
    try FileManager.default.copyItem(atPath: PackagePaths.products.appendingPathComponent("libplain.so").path, toPath: directory + "/plain.so")
    FileManager.default.createFile(atPath: directory + "/x\u{1B}]0;PWNED\u{7}.so", contents: Data())
    for arguments in [["adapters"], ["adapters", "plain"], ["doctor"]] {
      let result = try sandbox.run(arguments, environment: ["ACCOUNTS_ADAPTER_PATH": directory])
      let bytes = Array((result.standardOutput + result.standardError).utf8)
      #expect(!bytes.contains(0x1B) && !bytes.contains(0x07), "\(arguments): \(result)")
      #expect(result.standardOutput.contains("ad\\u{1b}[41m"), "\(arguments): \(result)")
    }
  }

  @Test func secretsThatAreNotTextAreRefusedOnInput() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let nul = try shell(sandbox, #"printf 'pw\0x\n' | "$ACCOUNTS" add alice --remember --password-stdin"#)
    #expect(nul.status == 2)
    #expect(nul.standardError.hasPrefix("accounts: the password contains a NUL byte"), "\(nul)")
    let binary = try shell(sandbox, #"printf '\377\376\n' | "$ACCOUNTS" add alice --remember --password-stdin"#)
    #expect(binary.status == 2)
    #expect(binary.standardError.hasPrefix("accounts: the password is not UTF-8 text"), "\(binary)")
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.isEmpty == true, "nothing half-saved")
  }

  /// A password another tool stored as raw bytes: printed raw, but never as invalid JSON.
  @Test func aStoredPasswordThatIsNotTextIsNotPrintedAsInvalidJSON() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n")
    let replaced = try shell(
      sandbox,
      #"printf 'b\377d' | secret-tool store --label=x xdg:schema io.accounts.Secret backend corp account alice kind password"#)
    #expect(replaced.status == 0, "\(replaced)")
    let json = try sandbox.run(["password", "alice", "--json"])
    #expect(json.status == 1)
    #expect(json.standardError == "accounts: the password of alice@corp is not UTF-8 text, so it cannot be printed as JSON; print it without --json\n")
    #expect(json.standardOutput.isEmpty || (try? JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8))) != nil)
    let raw = try shell(sandbox, #""$ACCOUNTS" password alice | od -An -tx1 | tr -d ' \n'"#)
    #expect(raw.standardOutput == "62ff640a", "\(raw)")
  }

  @Test func escapeSequencesInHandEditedFilesNeverReachTheTerminal() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let config = sandbox.environment["XDG_CONFIG_HOME"]! + "/accounts/config.json"
    let text = try String(contentsOfFile: config, encoding: .utf8)
    try text.replacingOccurrences(of: "\"base_url\"", with: "\"login_path\": \"x\\u001b]0;owned\\u0007\\u009b31m\", \"base_url\"")
      .write(toFile: config, atomically: true, encoding: .utf8)
    for arguments in [["backend", "show", "corp"], ["backend", "list"], ["doctor"]] {
      let result = try sandbox.run(arguments)
      let bytes = Array((result.standardOutput + result.standardError).utf8)
      #expect(!bytes.contains(0x1B) && !bytes.contains(0x07) && !(result.standardOutput + result.standardError).unicodeScalars.contains("\u{9B}"), "\(arguments): \(result)")
    }
    #expect(try sandbox.run(["backend", "show", "corp"]).standardOutput.contains("x\\u{1b}]0;owned\\u{7}\\u{9b}31m"))
    let json = try sandbox.run(["backend", "show", "corp", "--json"]).standardOutput
    #expect(json.contains(#""login_path": "x\u001b]0;owned\u0007\u009b31m""#), "JSON escapes them: \(json)")

    let index = sandbox.indexPath
    try sandbox.ok(["add", "alice"])
    let planted = try String(contentsOfFile: index, encoding: .utf8)
      .replacingOccurrences(of: "\"user\": \"alice\"", with: "\"user\": \"ali\\u001b[2Jce\"")
    try planted.write(toFile: index, atomically: true, encoding: .utf8)
    let list = try sandbox.run(["list"])
    #expect(list.status == 1)
    #expect(list.standardError.contains("accounts[0].user: the user name 'ali\\u{1b}[2Jce' contains the invisible character U+001B"), "\(list)")
    #expect(!Array(list.standardError.utf8).contains(0x1B))
  }

  @Test func baseURLsWithCredentialsAreRefused() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let result = try sandbox.run(["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=https://alice:Hunter2-x9@api.corp.example"])
    #expect(result.status == 2)
    #expect(result.standardError.hasPrefix("accounts: backend corp: base_url must not hold a user name or password"), "\(result)")
    let port = try sandbox.run(["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=https://api.corp.example:99999"])
    #expect(port.status == 2 && port.standardError.contains("base_url has an invalid port '99999'"), "\(port)")
    #expect(try sandbox.ok(["backend", "list", "--json"]).standardOutput == "[]\n")
    #expect(filesContaining("Hunter2-x9", under: sandbox.keyring.root) == [])
  }

  @Test func aNonASCIIHostIsRefusedNamingItsASCIIForm() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let result = try sandbox.run(["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=https://bücher.example/api"])
    #expect(result.status == 2, "\(result)")
    #expect(
      result.standardError.hasPrefix(
        "accounts: backend corp: base_url has a non-ASCII host 'bücher.example'; "
          + "write it in its ASCII (punycode) form: https://xn--bcher-kva.example/api"), "\(result)")
    #expect(try sandbox.ok(["backend", "list", "--json"]).standardOutput == "[]\n")
  }

  @Test func aHugeTokenLifetimeIsClampedToTenYears() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let backend = try TestBackend(arguments: ["--token-lifetime", "9223372036854775807"])
    try sandbox.ok(["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=\(backend.url)/plain/plain", "--set", "allow_insecure_transport=true"])
    let result = try sandbox.ok(["backend", "test", "corp", "alice", "--password-stdin", "--json"], stdin: "123456\n")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    #expect(report["expires_in"] as? Int == 10 * 366 * 86_400)
    let expiresAt = try #require(report["expires_at"] as? String)
    #expect(expiresAt.count == 20 && expiresAt.hasSuffix("Z"), "a time the index can read back: \(expiresAt)")
    #expect(result.standardError.contains("the token is valid for 3660 d"), "\(result)")
  }

  @Test func aFIFOAtTheIndexPathFailsFastEverywhere() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    try sandbox.ok(["add", "alice"])
    unlink(sandbox.indexPath)
    #expect(mkfifo(sandbox.indexPath, 0o600) == 0)
    for arguments in [["list"], ["current"], ["add", "bob"], ["remove", "alice"]] {
      let result = try sandbox.run(arguments, timeout: 10)
      #expect(result.status == 1, "\(arguments): \(result)")
      #expect(result.standardError == "accounts: refusing to use \(sandbox.indexPath): not a regular file (a FIFO); check who changed it, then run: mv \(sandbox.indexPath) \(sandbox.indexPath).moved\n")
    }
    let completion = try sandbox.run(["__complete", "accounts"], timeout: 10)
    #expect(completion.standardOutput.isEmpty && completion.seconds < 5)
  }

  @Test func doctorShowsWhoOwnsTheFiles() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    try sandbox.ok(["add", "alice"])
    let doctor = try sandbox.ok(["doctor"]).standardOutput
    let me = String(cString: getpwuid(getuid())!.pointee.pw_name)
    #expect(doctor.contains("1 account; owned by \(me) (uid \(getuid())), mode 0600"), "\(doctor)")
  }
}

/// The guards against losing data, which mutation testing found nothing protecting.
@Suite(.blocking) struct DataLossGuardTests {
  @Test func removeAndClearNeedTheWholeNameOrAnAnswer() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    try sandbox.addBackend("corp")
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n")
    try sandbox.ok(["add", "bob"])
    let prefix = try sandbox.run(["remove", "ali"])
    #expect(prefix.status == 3)
    #expect(prefix.standardError == "accounts: no account 'ali'; did you mean 'alice'?\n")
    #expect(try sandbox.ok(["password", "ali"]).standardOutput == "pw\n", "prefixes still work where nothing is deleted")

    let piped = try sandbox.run(["clear"])
    #expect(piped.status == 2)
    #expect(piped.standardError == "accounts: refusing to forget every account without a terminal to ask; add --yes\n")

    let enter = try runInTerminal(
      PackagePaths.accounts, ["clear"], environment: sandbox.environment,
      steps: [("Forget all 2 saved accounts, with their passwords and tokens? [y/N] ", "\n")])
    #expect(enter.status == 0, "\(enter)")
    #expect(enter.standardOutput.contains("nothing forgotten"), "a bare Enter means No: \(enter)")
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.count == 2)
    #expect(try sandbox.invariantViolations() == [])
  }

  /// "Locked" beats "no password" even when the search comes back empty, as it does on
  /// providers that hide the items of a locked collection (here: the item is gone).
  @Test func aLockedCollectionWithNothingFoundSaysLocked() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    try sandbox.addBackend("corp")
    try sandbox.ok(["add", "bob", "--remember", "--password-stdin"], stdin: "pw\n")
    let cleared = try runProcess(
      "/usr/bin/secret-tool", ["clear", "backend", "corp", "account", "bob", "kind", "password"],
      environment: sandbox.environment, timeout: 20)
    #expect(cleared.status == 0)
    try sandbox.ok(["lock"])
    let result = try sandbox.run(["password", "bob"], timeout: 30)
    #expect(result.status == 7, "\(result)")
    #expect(result.standardError.contains("is locked"), "\(result)")
  }

  /// A secret setting is read from the keyring only: one written into config.json by hand is
  /// never used in its place.
  @Test func aSecretSettingIsNeverReadFromConfigJSON() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let backend = try TestBackend()
    let key = "170ib799dd511e7b66000163e033322"
    try sandbox.ok(
      ["backend", "add", "corp", "--adapter", "signed", "--set", "base_url=\(backend.url)/signed/api",
       "--set", "app_id=\(key)", "--set", "ver=1.0", "--secret-stdin", "private_key"],
      stdin: key + "\n")
    let cleared = try runProcess(
      "/usr/bin/secret-tool", ["clear", "backend", "corp", "kind", "setting:private_key"],
      environment: sandbox.environment, timeout: 20)
    #expect(cleared.status == 0)
    let missing = try sandbox.run(["backend", "test", "corp", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(missing.status == 3, "\(missing)")
    #expect(missing.standardError.contains("its secret setting private_key is not in the keyring"))
    let config = sandbox.environment["XDG_CONFIG_HOME"]! + "/accounts/config.json"
    let text = try String(contentsOfFile: config, encoding: .utf8)
    try text.replacingOccurrences(of: "\"app_id\"", with: "\"private_key\": \"\(key)\", \"app_id\"")
      .write(toFile: config, atomically: true, encoding: .utf8)
    let planted = try sandbox.run(["backend", "test", "corp", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(planted.status != 0, "\(planted)")
    #expect(planted.standardError.contains("'private_key' is a secret setting"), "\(planted)")
    #expect(try backend.requests().isEmpty, "nothing was signed with the key from config.json")
  }
}
