import Foundation
import TestSupport
import Testing

/// The generated completion scripts, run by the real shells against the built binary.
@Suite struct CompletionTests {
  func sandbox() throws -> Sandbox {
    let sandbox = try Sandbox()
    try sandbox.addBackend("corp")
    try sandbox.addBackend("test")
    for name in ["alice@corp", "alice@test", "bob@corp", "bobby@test"] { try sandbox.ok(["add", name]) }
    return sandbox
  }

  /// What bash offers for the words typed so far (the last word is being completed).
  func bash(_ sandbox: Sandbox, _ words: [String]) throws -> [String] {
    let script = PackagePaths.root.appendingPathComponent("completions/accounts.bash").path
    let quoted = ([PackagePaths.accounts] + words).map { "'\($0)'" }.joined(separator: " ")
    let program = """
      source '\(script)'
      COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count)
      _accounts
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try runProcess("/bin/bash", ["-c", program], environment: sandbox.environment, timeout: 20)
    #expect(result.status == 0, "\(result)")
    return result.standardOutput.split(separator: "\n").map(String.init).sorted()
  }

  @Test func bashCompletesCommandsOptionsAndNames() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    #expect(try bash(sandbox, ["pa"]) == ["passwd", "password"])
    #expect(try bash(sandbox, ["backend", ""]) == ["add", "list", "remove", "show", "test"])
    #expect(try bash(sandbox, ["add", "bob", "--re"]) == ["--remember"])
    #expect(try bash(sandbox, ["password", ""]) == ["alice@corp", "alice@test", "bob", "bobby"])
    #expect(try bash(sandbox, ["password", "bo"]) == ["bob", "bobby"])
    #expect(try bash(sandbox, ["--backend", "corp", "password", ""]) == ["alice@corp", "bob"])
    #expect(try bash(sandbox, ["list", "--backend", ""]) == ["corp", "test"])
    #expect(try bash(sandbox, ["backend", "show", "t"]) == ["test"])
    #expect(try bash(sandbox, ["completion", ""]) == ["bash", "fish", "zsh"])
    #expect(try bash(sandbox, ["password", "alice@corp", ""]) == [], "one USER only")
    #expect(try bash(sandbox, ["nonsense", ""]) == [])
  }

  @Test func fishCompletesCommandsOptionsAndNames() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let script = PackagePaths.root.appendingPathComponent("completions/accounts.fish").path
    func fish(_ line: String) throws -> [String] {
      // The script completes `accounts`; a function of that name runs the built binary.
      let program = """
        function accounts; '\(PackagePaths.accounts)' $argv; end
        source '\(script)'
        complete -C '\(line)'
        """
      let result = try runProcess("/usr/bin/fish", ["--no-config", "-c", program], environment: sandbox.environment, timeout: 20)
      #expect(result.status == 0, "\(result)")
      return result.standardOutput.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted()
    }
    #expect(try fish("accounts pa") == ["passwd", "password"])
    #expect(try fish("accounts backend ") == ["add", "list", "remove", "show", "test"])
    #expect(try fish("accounts password bo") == ["bob", "bobby"])
    #expect(try fish("accounts --backend corp password ") == ["alice@corp", "bob"])
    #expect(try fish("accounts add x --rem") == ["--remember"])
  }
}
