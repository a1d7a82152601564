import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Foundation
import SecretMemory
import TestSupport
import Testing

@testable import AccountsCLI

/// `accounts env`'s output, evaluated by the real bash, zsh, fish (and sh for the bash syntax):
/// every value comes back byte for byte in the environment of the next program, and nothing in
/// a value runs.
@Suite(.blocking) struct ExportSyntaxTests {
  /// A directory of its own, with a mark file that a value which ran would create.
  final class Scratch {
    let path: String
    var mark: String { path + "/ran" }

    init() throws {
      path = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Called by `defer`, not `deinit`: ARC may end an object after its last use, which would
    /// remove the mark before a test looked for it.
    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Values that would create `mark` if a shell evaluated any part of them.
    var attacks: [String] {
      [
        "$(touch \(mark))", "`touch \(mark)`", "'; touch \(mark); '", "\\'; touch \(mark); #",
        "\ntouch \(mark)\n", "'\ntouch \(mark)\n'", "\\\ntouch \(mark)", "\"; touch \(mark); \"",
        "'\\''; touch \(mark); '\\''", "${HOME:?$(touch \(mark))}", "(touch \(mark))",
      ]
    }

    /// Runs `program` on the exports in `script`, then `env -0`, and returns the environment
    /// it printed. ACCOUNTS_USER_ID starts out set, as in a shell that used another account.
    func evaluate(_ script: [UInt8], _ program: String, _ arguments: [String]) throws -> [String: [UInt8]] {
      let input = path + "/exports"
      let output = path + "/environment"
      try Data(script).write(to: URL(fileURLWithPath: input))
      let home = path + "/home"
      try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
      let result = try runProcess(
        program, arguments + [input, output],
        environment: [
          "PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "XDG_CONFIG_HOME": home,
          "XDG_DATA_HOME": home, "XDG_CACHE_HOME": home, "ACCOUNTS_USER_ID": "stale",
        ],
        timeout: 30)
      #expect(result.status == 0 && result.standardError.isEmpty, "\(program): \(result)")
      var variables: [String: [UInt8]] = [:]
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
      for entry in bytes.split(separator: 0, omittingEmptySubsequences: false) {
        guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
        variables[String(decoding: entry[..<equals], as: UTF8.self)] = Array(entry[(equals + 1)...])
      }
      return variables
    }
  }

  /// How each shell evaluates the output, as the help tells users to.
  static let shells: [(ExportSyntax, String, [String])] = [
    (.bash, "/bin/bash", ["--norc", "--noprofile", "-c", #"eval "$(cat "$1")" && exec env -0 > "$2""#, "bash"]),
    (.bash, "/bin/sh", ["-c", #"eval "$(cat "$1")" && exec env -0 > "$2""#, "sh"]),
    (.zsh, "/usr/bin/zsh", ["-f", "-c", #"eval "$(cat "$1")" && exec env -0 > "$2""#, "zsh"]),
    (.fish, "/usr/bin/fish", ["--no-config", "-c", "cat $argv[1] | source; and exec env -0 > $argv[2]"]),
  ]

  /// Every byte but NUL, quotes and backslashes in every combination, the attacks, invalid
  /// UTF-8, fish's private-use range, and random bytes.
  static func hostileValues(_ scratch: Scratch) -> [[UInt8]] {
    var values: [[UInt8]] = [Array(1...255), [], [39], [92], [92, 39], [39, 92, 39, 39], [39, 39], [92, 92, 39]]
    values += scratch.attacks.map { Array($0.utf8) }
    values += ["x\n\n", "\n", "~", "*", "!!", "$'x'", "%s\\n", "é🙂", "\u{F600}\u{F6FF}"].map { Array($0.utf8) }
    values += [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0x1B, 0x5B, 0x32, 0x4A], [0x7F, 0x0D, 0x0A]]
    var random = SplitMix(seed: 11)
    for _ in 0..<24 {
      values.append((0..<Int.random(in: 0...48, using: &random)).map { _ in UInt8.random(in: 1...255, using: &random) })
    }
    return values
  }

  @Test(arguments: 0..<shells.count)
  func everyValueComesBackByteForByteAndNothingRuns(_ shell: Int) throws {
    let (syntax, program, arguments) = Self.shells[shell]
    let scratch = try Scratch()
    defer { scratch.remove() }
    let values = Self.hostileValues(scratch)
    var script: [UInt8] = []
    for (number, value) in values.enumerated() { syntax.appendExport("V\(number)", value, to: &script) }
    let environment = try scratch.evaluate(script, program, arguments)
    for (number, value) in values.enumerated() {
      #expect(environment["V\(number)"] == value, "\(program): value \(number) \(value)")
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.mark), "\(program) ran part of a value")
  }

  @Test(arguments: 0..<shells.count)
  func theSessionVariablesWithHostileNames(_ shell: Int) throws {
    let (syntax, program, arguments) = Self.shells[shell]
    let scratch = try Scratch()
    defer { scratch.remove() }
    for (account, userID) in [("o'brien@c\\orp", "1'2\\3$(touch \(scratch.mark))"), ("\(scratch.attacks[0])@corp\n", "")] {
      var tokenBytes = Array(1...255) + Array(scratch.attacks.joined().utf8)
      let variables = SessionVariables(account: account, token: SecretBytes(consuming: &tokenBytes), userID: userID)
      var script: [UInt8] = []
      variables.appendExports(syntax, to: &script)
      let environment = try scratch.evaluate(script, program, arguments)
      #expect(environment["ACCOUNTS_ACCOUNT"] == Array(account.utf8))
      #expect(environment["ACCOUNTS_TOKEN"] == Array(1...255) + Array(scratch.attacks.joined().utf8))
      #expect(environment["ACCOUNTS_USER_ID"] == Array(userID.utf8))
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.mark), "\(program) ran part of a value")
  }

  @Test(arguments: 0..<shells.count)
  func noUserIDRemovesALeftOverOne(_ shell: Int) throws {
    let (syntax, program, arguments) = Self.shells[shell]
    var token = Array("t0k3n".utf8)
    var script: [UInt8] = []
    SessionVariables(account: "alice@corp", token: SecretBytes(consuming: &token), userID: nil)
      .appendExports(syntax, to: &script)
    let scratch = try Scratch()
    defer { scratch.remove() }
    let environment = try scratch.evaluate(script, program, arguments)
    #expect(environment["ACCOUNTS_USER_ID"] == nil, "\(program) kept the stale ACCOUNTS_USER_ID")
    #expect(environment["ACCOUNTS_TOKEN"] == Array("t0k3n".utf8))
  }

  /// The control for the tests above: the mark really is created when a value is evaluated,
  /// so its absence there means something.
  @Test func anUnquotedValueWouldHaveRun() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    _ = try scratch.evaluate(Array("export V=\"\(scratch.attacks[0])\"\n".utf8), "/bin/bash", Self.shells[0].2)
    #expect(FileManager.default.fileExists(atPath: scratch.mark))
  }

  @Test func theLinesEachShellReads() {
    var bash: [UInt8] = []
    var fish: [UInt8] = []
    ExportSyntax.bash.appendExport("A", Array("it's \\".utf8), to: &bash)
    ExportSyntax.bash.appendUnset("B", to: &bash)
    ExportSyntax.fish.appendExport("A", Array("it's \\".utf8), to: &fish)
    ExportSyntax.fish.appendUnset("B", to: &fish)
    #expect(String(decoding: bash, as: UTF8.self) == "export A='it'\\''s \\'\nunset B\n")
    #expect(String(decoding: fish, as: UTF8.self) == "set -gx A 'it\\'s \\\\'\nset -e B; or true\n")
  }

  @Test func theDefaultIsTheShellSHELLNamesElseBash() {
    #expect(ExportSyntax.forShell(path: "/usr/bin/fish") == .fish)
    #expect(ExportSyntax.forShell(path: "/bin/zsh") == .zsh)
    #expect(ExportSyntax.forShell(path: "bash") == .bash)
    #expect(ExportSyntax.forShell(path: "/usr/local/bin/fish/") == .fish)
    #expect(ExportSyntax.forShell(path: "/bin/dash") == .bash)
    #expect(ExportSyntax.forShell(path: "/opt/fish-3/bin/tcsh") == .bash)
    #expect(ExportSyntax.forShell(path: "") == .bash)
    #expect(ExportSyntax.forShell(path: nil) == .bash)
  }

  /// A NUL byte would end the variable early: refused, naming the variable, never the value.
  @Test func aNULByteIsRefused() throws {
    var token: [UInt8] = [0x61, 0, 0x62]
    let variables = SessionVariables(account: "alice@corp", token: SecretBytes(consuming: &token), userID: "1")
    let error = #expect(throws: CommandError.self) { try variables.checkCarriable() }
    #expect(error?.message.contains("ACCOUNTS_TOKEN") == true)
    var clean: [UInt8] = [0x61]
    let userID = SessionVariables(account: "alice@corp", token: SecretBytes(consuming: &clean), userID: "1\u{0}2")
    #expect(throws: CommandError.self) { try userID.checkCarriable() }
    var fine: [UInt8] = Array(1...255)
    #expect(throws: Never.self) {
      try SessionVariables(account: "alice@corp", token: SecretBytes(consuming: &fine), userID: nil).checkCarriable()
    }
  }
}
