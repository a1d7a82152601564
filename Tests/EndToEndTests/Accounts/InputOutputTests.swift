import Foundation
import TestSupport
import Testing

/// Bytes that are not text where text is expected (arguments, environment variables, a piped
/// password, a password another tool stored) and output that cannot be written: each gets a
/// one-line error naming the fix and the documented status, and nothing is half-saved.
@Suite(.blocking) struct InputOutputTests {
  @Test func outputThatCannotBeWrittenIsAnError() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n")
    let full = try sandbox.shell(#""$ACCOUNTS" password alice > /dev/full"#)
    #expect(full.status == 1, "\(full)")
    #expect(full.standardError == "accounts: cannot write to stdout: No space left on device; free some space where stdout goes, or send it elsewhere\n")
    let closed = try sandbox.shell(#""$ACCOUNTS" list >&-"#)
    #expect(closed.status == 1, "\(closed)")
    #expect(closed.standardError == "accounts: cannot write to stdout: it is closed; send stdout somewhere writable\n")
    let json = try sandbox.shell(#""$ACCOUNTS" list --json > /dev/full"#)
    #expect(json.status == 1)
    // Nothing to print is no error; a closed stdout never receives a file's bytes either.
    let quiet = try sandbox.shell(#""$ACCOUNTS" add bob >&- && "$ACCOUNTS" list --json | grep -c '"user"'"#)
    #expect(quiet.status == 0 && quiet.standardOutput == "2\n", "\(quiet)")
  }

  @Test func argumentsThatAreNotUTF8AreRefused() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    // Two different byte strings that would both read as "a\u{FFFD}": one account, once.
    let result = try sandbox.shell(#""$ACCOUNTS" add "$(printf 'a\377')"; echo "first=$?"; "$ACCOUNTS" add "$(printf 'a\376')"; echo "second=$?""#)
    #expect(result.standardOutput == "first=2\nsecond=2\n", "\(result)")
    #expect(result.standardError.contains("accounts: argument 2 is not valid UTF-8 text; names, options and values must be UTF-8"))
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.isEmpty == true)
  }

  @Test func environmentVariablesThatAreNotUTF8AreRefused() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let result = try sandbox.shell(#"XDG_STATE_HOME="$(printf '/tmp/st\377')" "$ACCOUNTS" add bob"#)
    #expect(result.status == 2, "\(result)")
    #expect(result.standardError.hasPrefix("accounts: the environment variable XDG_STATE_HOME is not valid UTF-8 text"))
    #expect(!FileManager.default.fileExists(atPath: "/tmp/st\u{FFFD}"))
  }

  /// `--password-stdin` takes the first line and returns: a pipe that stays open is not waited on.
  @Test func passwordStdinReadsOneLineAndReturns() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    // The writer keeps the pipe open for 30 s after the line (it is ended once the command has
    // returned); the command's own time is printed.
    let result = try sandbox.shell(#"""
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

  @Test func secretsThatAreNotTextAreRefusedOnInput() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let nul = try sandbox.shell(#"printf 'pw\0x\n' | "$ACCOUNTS" add alice --remember --password-stdin"#)
    #expect(nul.status == 2)
    #expect(nul.standardError.hasPrefix("accounts: the password contains a NUL byte"), "\(nul)")
    let binary = try sandbox.shell(#"printf '\377\376\n' | "$ACCOUNTS" add alice --remember --password-stdin"#)
    #expect(binary.status == 2)
    #expect(binary.standardError.hasPrefix("accounts: the password is not UTF-8 text"), "\(binary)")
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.isEmpty == true, "nothing half-saved")
  }

  /// A password another tool stored as raw bytes: printed raw, but never as invalid JSON.
  @Test func aStoredPasswordThatIsNotTextIsNotPrintedAsInvalidJSON() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n")
    let replaced = try sandbox.shell(
      #"printf 'b\377d' | secret-tool store --label=x xdg:schema io.accounts.Secret backend corp account alice kind password"#)
    #expect(replaced.status == 0, "\(replaced)")
    let json = try sandbox.run(["password", "alice", "--json"])
    #expect(json.status == 1)
    #expect(json.standardError == "accounts: the password of alice@corp is not UTF-8 text, so it cannot be printed as JSON; print it without --json\n")
    #expect(json.standardOutput.isEmpty || (try? JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8))) != nil)
    let raw = try sandbox.shell(#""$ACCOUNTS" password alice | od -An -tx1 | tr -d ' \n'"#)
    #expect(raw.standardOutput == "62ff640a", "\(raw)")
  }
}
