@testable import AccountsContract
import AccountsSystem
import Testing

/// What a user or backend name may hold, and the one sanitiser of text for a terminal.
@Suite struct NamesTests {
  @Test func userNamesMayBeEmailsButNotOptionsOrControlCharacters() throws {
    try Names.checkUser("alice")
    try Names.checkUser("bob@example.com")
    try Names.checkUser("13800138000")
    try Names.checkUser("张三")
    try Names.checkUser("bob+qa@example.com")
    try Names.checkUser("josé.müller_2")
    try Names.checkUser(String(repeating: "x", count: 256))
    for bad in ["", "-rf", "a b", "a\nb", "a\u{7}b", String(repeating: "x", count: 257)] {
      #expect(throws: CommandError.self) { try Names.checkUser(bad) }
    }
  }

  /// Names reach shells (completion) and terminals (list): nothing either would act on.
  @Test func userNamesRefuseShellMetacharactersAndInvisibleCharacters() {
    let shell = ["x$(id>f)", "x`id`", "o'brien", "a\"b", "a;b", "a|b", "a&b", "a>b", "a<b", "a(b", "a)b",
      "a{b", "a}b", "a[b", "a]b", "a*b", "a?b", "a!b", "a#b", "~alice", "a=b", "a%b", "a:b", "a/b", "a\\b", "a,b", "a^b"]
    for name in shell {
      #expect(!Names.isValidUser(name), "\(name)")
    }
    // Bidi overrides, zero-width and other format characters; C1 controls; separators.
    // ... and letters or marks that render as nothing: Hangul fillers, variation selectors,
    // the combining grapheme joiner, Khmer inherent vowels.
    for scalar: UInt32 in [0x202E, 0x2066, 0x200B, 0x200D, 0xFEFF, 0x85, 0x9B, 0x2028, 0xA0, 0x3000,
                           0x3164, 0xFFA0, 0x115F, 0xFE0F, 0xE0101, 0x034F, 0x17B4] {
      let name = "ali" + String(Character(Unicode.Scalar(scalar)!)) + "ce"
      #expect(!Names.isValidUser(name), "U+\(String(scalar, radix: 16))")
    }
    #expect(Names.userProblem("x$(id)") == "the user name 'x$(id)' contains '$' (U+0024)")
    #expect(Names.userProblem("ali\u{202E}ce") == "the user name 'ali\\u{202e}ce' contains the invisible character U+202E")
    #expect(throws: CommandError.usage(
      "the user name 'a b' contains a space", fix: "user names may hold \(Names.userRule)")) { try Names.checkUser("a b") }
  }

  @Test func theSanitiserEscapesWhatATerminalWouldActOn() {
    #expect(Names.printable("plain 张三 text") == "plain 张三 text")
    #expect(Names.printable("\u{1B}]0;owned\u{7}") == "\\u{1b}]0;owned\\u{7}")
    #expect(Names.printable("a\u{9B}31mb\u{202E}c\u{2028}d\u{7F}") == "a\\u{9b}31mb\\u{202e}c\\u{2028}d\\u{7f}")
    #expect(Names.printable("line\nbreak\ttab") == "line\\u{a}break\\u{9}tab")
    #expect(Names.printable("abcdef", limit: 3) == "abc…")
    #expect(Names.printable("abc", limit: 3) == "abc")
  }

  @Test func backendNames() {
    #expect(Names.isBackendName("corp"))
    #expect(Names.isBackendName("corp-staging.v2_1"))
    #expect(!Names.isBackendName(""))
    #expect(!Names.isBackendName("-corp"))
    #expect(!Names.isBackendName("co rp"))
    #expect(!Names.isBackendName("corp@x"))
    #expect(!Names.isBackendName(String(repeating: "a", count: 65)))
  }
}
