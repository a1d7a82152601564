import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Glibc
import Testing

/// git's credential helper protocol as `accounts git-credential` reads it: strict, bounded, and
/// never echoing what it refuses.
@Suite struct GitCredentialRequestTests {
  func parse(_ text: String, limit: Int = GitCredentialRequest.inputLimit) throws(CommandError) -> GitCredentialRequest {
    try GitCredentialRequest.parse(Array(text.utf8), limit: limit)
  }

  @Test func readsKeyValueLinesUpToTheBlankLine() throws {
    let request = try parse("protocol=https\nhost=git.corp.example\npath=a=b.git\nusername=alice\n\nhost=evil.example\n")
    #expect(request.values == ["protocol": "https", "host": "git.corp.example", "path": "a=b.git", "username": "alice"])
    #expect(request.host == "git.corp.example" && request.username == "alice")
  }

  @Test func endOfInputEndsARequestTooAndTheLastValueWins() throws {
    #expect(try parse("host=a.example\nhost=b.example").host == "b.example")
    #expect(try parse("").values.isEmpty)
  }

  @Test func unknownKeysAndPasswordsAreNotKept() throws {
    let request = try parse("host=h\npassword=s3cret\ncapability[]=authtype\nwwwauth[]=Basic realm=\"x\"\nfuture=1\n")
    #expect(request.values == ["host": "h"])
  }

  @Test func aMissingOrEmptyHostIsNoHost() throws {
    #expect(try parse("protocol=https\npath=x\n").host == nil)
    #expect(try parse("host=\n").host == nil)
    #expect(try parse("username=\n").username == nil)
  }

  @Test func linesGitWouldNotWriteAreRefusedWithoutEchoingThem() {
    let cases: [(String, String)] = [
      ("host=h\r\npassword=s3cret\r\n", "line 1 holds a carriage return"),
      ("host=h\npassword=s3\u{0}cret\n", "line 2 holds a NUL byte"),
      ("host=h\njustpassword-s3cret\n", "line 2 is not KEY=VALUE"),
      ("=s3cret\n", "line 1 is not KEY=VALUE"),
    ]
    for (input, reason) in cases {
      #expect(throws: CommandError(
        .usage, "git-credential: git's request refused: \(reason)",
        fix: "git writes KEY=VALUE lines ended by a newline; see `man git-credential`")
      ) { try parse(input) }
    }
  }

  @Test func inputIsBoundedOnBothSidesOfTheLimit() throws {
    let line = "path=" + String(repeating: "p", count: 95) + "\n"  // 101 bytes
    #expect(try parse(line, limit: 101).values["path"]?.count == 95)
    #expect(throws: CommandError.self) { try parse(line, limit: 100) }
    #expect(GitCredentialRequest.inputLimit == 65536)
  }

  /// Reading stops at the blank line even when the writer keeps the pipe open, and an endless
  /// writer is cut off at the limit rather than read forever.
  @Test func readingStopsAtTheBlankLineOrTheLimit() throws {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer {
      close(ends[0])
      close(ends[1])
    }
    let request = Array("host=h\n\nhost=later\n".utf8)
    #expect(write(ends[1], request, request.count) == request.count)
    #expect(try GitCredentialRequest.read(from: FileDescriptor(rawValue: ends[0])).host == "h")

    let flood = [UInt8](repeating: UInt8(ascii: "x"), count: 8192)
    #expect(write(ends[1], Array("path=".utf8), 5) == 5)
    #expect(write(ends[1], flood, flood.count) == flood.count)
    #expect(throws: CommandError.self) { try GitCredentialRequest.read(from: FileDescriptor(rawValue: ends[0]), limit: 4096) }
  }
}
