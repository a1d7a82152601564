import Foundation
import TestSupport

/// Presses TAB in the real shells with the committed completion scripts loaded, and reports
/// what the script offered.
///
/// bash and zsh run interactively on a pseudo-terminal, so the shell itself splits the line
/// (bash's COMP_WORDBREAKS included) and runs its own completion machinery; fish answers
/// `complete -C`. `accounts` is found on PATH, as for a user: `bin/accounts` in a scratch
/// directory points at `program` (the built binary, or a fake that prints hostile names).
/// The shells start in that scratch directory, so a glob or a command that leaks out of a
/// candidate shows up there (see `strayFiles`). Every shell is bounded in time.
final class CompletionDriver {
  /// The scratch directory: the shells' working directory.
  let directory: String
  private let environment: [String: String]
  private let completions = PackagePaths.root.appendingPathComponent("completions").path

  /// Files present in `directory` before any shell ran.
  private let initialFiles: Set<String>

  /// What a TAB in `shell` printed when `keys` were typed (TAB included), for tests that look
  /// at the shell itself rather than at the completions.
  func transcript(_ shell: Shell, _ keys: String) throws -> ProcessResult {
    try interactive(shell, keys)
  }

  init(program: String, environment: [String: String]) throws {
    directory = NSTemporaryDirectory() + "accounts-completion-\(UUID().uuidString)"
    let files = FileManager.default
    try files.createDirectory(atPath: directory + "/bin", withIntermediateDirectories: true)
    try files.createDirectory(atPath: directory + "/zdotdir", withIntermediateDirectories: true)
    try files.createSymbolicLink(atPath: directory + "/bin/accounts", withDestinationPath: program)
    // Bait for globs: `x*` or `*` expanded by a shell would offer these.
    for bait in ["xbait", "abait"] {
      files.createFile(atPath: directory + "/" + bait, contents: nil)
    }
    try Self.bashrc.write(toFile: directory + "/bashrc", atomically: true, encoding: .utf8)
    try Self.zshrc.write(toFile: directory + "/zdotdir/.zshrc", atomically: true, encoding: .utf8)
    var environment = environment
    environment["PATH"] = directory + "/bin:" + (environment["PATH"] ?? "/usr/bin:/bin")
    environment["COMPLETION_TEST_DIR"] = directory
    environment["COMPLETION_TEST_SCRIPTS"] = completions
    environment["ZDOTDIR"] = directory + "/zdotdir"
    environment["COMPLETION_TEST_ZCOMPDUMP"] = try Self.zshCompletionDump()
    environment["TERM"] = "dumb"
    environment["INPUTRC"] = "/dev/null"  // no key bindings from the machine's inputrc
    self.environment = environment
    initialFiles = Set(try files.contentsOfDirectory(atPath: directory))
  }

  /// What the shell offered for `line` (the cursor at its end): bash's COMPREPLY, zsh's
  /// matches, fish's candidates; sorted.
  func offered(_ shell: Shell, _ line: String) throws -> [String] {
    switch shell {
    case .bash, .zsh:
      try? FileManager.default.removeItem(atPath: directory + "/offered")
      let result = try interactive(shell, line + "\t\u{15}exit\n")
      guard let text = try? String(contentsOfFile: directory + "/offered", encoding: .utf8) else {
        throw DriverError.noCompletion(shell: shell, line: line, transcript: result.description)
      }
      return lines(text)
    case .fish:
      let result = try runProcess(
        "/usr/bin/fish",
        [
          "--no-config", "-c",
          "source $COMPLETION_TEST_SCRIPTS/accounts.fish; complete -C -- $COMPLETION_TEST_LINE",
        ],
        environment: environment.merging(["COMPLETION_TEST_LINE": line]) { $1 }, timeout: 20)
      guard result.status == 0 else {
        throw DriverError.noCompletion(shell: shell, line: line, transcript: result.description)
      }
      // Each line is a candidate, then a tab and its description when it has one.
      return lines(result.standardOutput).map {
        String($0.split(separator: "\t", omittingEmptySubsequences: false)[0])
      }.sorted()
    }
  }

  /// Types `line`, presses TAB once and then Enter in bash or zsh, and returns the arguments
  /// `accounts` ran with: what completion put on the command line, as the shell parsed it.
  func ran(_ shell: Shell, _ line: String) throws -> [String] {
    try? FileManager.default.removeItem(atPath: directory + "/ran")
    let result = try interactive(shell, line + "\t\n" + "exit\n")
    guard let text = try? String(contentsOfFile: directory + "/ran", encoding: .utf8) else {
      throw DriverError.noCompletion(shell: shell, line: line, transcript: result.description)
    }
    return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
  }

  /// Files that appeared in the working directory: evidence that a shell ran or globbed a name.
  func strayFiles() throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: directory))
      .subtracting(initialFiles).subtracting(["offered", "ran"])
  }

  func close() { try? FileManager.default.removeItem(atPath: directory) }

  private func interactive(_ shell: Shell, _ keys: String) throws -> ProcessResult {
    let arguments =
      shell == .bash
      ? ["/bin/bash", "--noprofile", "--rcfile", directory + "/bashrc", "-i"]
      : ["/usr/bin/zsh", "-d", "-i"]
    // runInTerminal takes no working directory: a shell changes to it first.
    return try runInTerminal(
      "/bin/sh", ["-c", "cd \"$COMPLETION_TEST_DIR\" && exec \"$@\"", "sh"] + arguments,
      environment: environment, steps: [("READY> ", keys)], timeout: 20)
  }

  private func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init).sorted()
  }

  enum Shell: String, CaseIterable, CustomStringConvertible {
    case bash, zsh, fish
    var description: String { rawValue }
  }

  enum DriverError: Error, CustomStringConvertible {
    case noCompletion(shell: Shell, line: String, transcript: String)
    var description: String {
      switch self {
      case .noCompletion(let shell, let line, let transcript):
        "\(shell) never completed `\(line)`:\n\(transcript)"
      }
    }
  }

  /// bash: the committed script, without the bash-completion package. `accounts` is a function
  /// that records its arguments (one per line) instead of running, except for the
  /// `__complete` calls the script makes, which reach the program on PATH. Completion is
  /// wrapped so that COMPREPLY is written down.
  private static let bashrc = #"""
    PS1='READY> '
    source "$COMPLETION_TEST_SCRIPTS/accounts.bash"
    [[ -z $COMPLETION_TEST_UNSET_BREAKS ]] || unset COMP_WORDBREAKS
    [[ -z $COMPLETION_TEST_ERREXIT ]] || set -e
    accounts() {
      if [[ $1 == __complete ]]; then command accounts "$@"; else printf '%s\n' "$@" >"$COMPLETION_TEST_DIR/ran"; fi
    }
    _accounts_test_capture() {
      _accounts "$@"
      local status=$?
      : >"$COMPLETION_TEST_DIR/offered"
      ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}" >"$COMPLETION_TEST_DIR/offered"
      return $status
    }
    complete -F _accounts_test_capture accounts
    """#

  /// compinit's dump of which function completes which command, written once per test process
  /// for the same fpath as the shells' (the committed completions first): a compinit without
  /// one reads the first line of each of zsh's thousand completion functions, 0.3 s of CPU for
  /// every shell a test starts. With -C the shells only read it, so they may share it. The
  /// completion functions themselves, _accounts included, still load from $fpath.
  private static func zshCompletionDump() throws -> String {
    guard let dump = zshDump.path else {
      throw DriverError.noCompletion(shell: .zsh, line: "compinit", transcript: zshDump.failure)
    }
    return dump
  }

  private static let zshDump: (path: String?, failure: String) = {
    let directory = NSTemporaryDirectory() + "accounts-zcompdump-\(getpid())"
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "accounts-zcompdump-\(getpid())") }
    let dump = directory + "/zcompdump"
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let result = try runProcess(
        "/usr/bin/zsh",
        [
          "-d", "-f", "-c", #"fpath=("$1" $fpath); autoload -U compinit && compinit -u -d "$2""#, "zsh",
          PackagePaths.root.appendingPathComponent("completions").path, dump,
        ],
        environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
      guard result.status == 0, FileManager.default.fileExists(atPath: dump) else { return (nil, result.description) }
      return (dump, "")
    } catch {
      return (nil, "\(error)")
    }
  }()

  /// zsh: the committed _accounts autoloaded from $fpath by compinit, as installed. compadd is
  /// wrapped: it also asks the builtin which of the words match (-O) and writes them down.
  /// compprefuncs runs once, before the completion: it starts the record empty.
  private static let zshrc = #"""
    PS1='READY> '
    fpath=("$COMPLETION_TEST_SCRIPTS" $fpath)
    autoload -U compinit && compinit -u -C -d "$COMPLETION_TEST_ZCOMPDUMP"
    accounts() {
      if [[ $1 == __complete ]]; then command accounts "$@"; else print -rl -- "$@" >"$COMPLETION_TEST_DIR/ran"; fi
    }
    compadd() {
      local -a __test_options=("${(@)argv[1,(i)--]}")
      if (( ${__test_options[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi
      local -a __test_hits
      builtin compadd -O __test_hits "$@"
      (( ${#__test_hits} )) && print -rl -- "${(@)__test_hits}" >>"$COMPLETION_TEST_DIR/offered"
      builtin compadd "$@"
    }
    _accounts_test_start() { : >"$COMPLETION_TEST_DIR/offered" }
    compprefuncs=(_accounts_test_start)
    """#
}
