import AccountsCore
import Testing

/// Hosts as URLs, git and password managers write them, and which of them never leave the machine.
@Suite struct HostNameTests {
  @Test(arguments: [
    ("https://Corp.Example/login", "corp.example"), ("https://bob@corp.example:8443/x?y#z", "corp.example"),
    ("http://[::1]:8080/", "[::1]"), ("corp.example", "corp.example"), ("corp.example./path", "corp.example"),
    ("  https://corp.example", "corp.example"), ("http://sn", "sn"), ("https://user:pw@corp.example", "corp.example"),
    ("corp.example:8443/login", "corp.example"), ("localhost:8080", "localhost"),
  ])
  func theHostOfAURL(url: String, host: String) {
    #expect(HostName.of(url: url) == host)
  }

  @Test(arguments: [
    "", "https://", "https:///", "https://user@", "http://[]:80/", "http://[::1", "corp.example:",
  ])
  func aURLWithoutAHostHasNone(url: String) {
    #expect(HostName.of(url: url) == nil)
  }

  /// The host a browser goes to (the WHATWG URL standard): `\` ends the authority of an http(s)
  /// URL as `/` does, so what follows an `@` after it is no host; slashes of either kind after
  /// the scheme, and a protocol-relative `//HOST`, lead to the host.
  @Test(arguments: [
    ("http://localhost\\@127.0.0.1/", "localhost"), ("https://corp.example\\login@evil.example", "corp.example"),
    ("//127.0.0.1/x", "127.0.0.1"), ("\\\\corp.example\\x", "corp.example"), ("HTTPS:\\\\corp.example", "corp.example"),
    ("https:corp.example/x", "corp.example"), ("https:///corp.example", "corp.example"),
  ])
  func theHostABrowserGoesTo(url: String, host: String) {
    #expect(HostName.of(url: url) == host)
  }

  /// A URL of any other scheme names no site to send a password to.
  @Test(arguments: [
    "mailto:x@localhost", "mailto:bob@corp.example", "androidapp://com.corp.app", "ftp://corp.example/",
    "javascript:alert(1)//corp.example", "file:///etc/passwd", "otpauth://totp/corp.example:bob?secret=JBSW",
  ])
  func otherSchemesNameNoHost(url: String) {
    #expect(HostName.of(url: url) == nil)
  }

  @Test func theHostOfGitsHostLine() {
    #expect(HostName.of(authority: "127.0.0.1:8080") == "127.0.0.1")
    #expect(HostName.of(authority: "[::1]:8080") == "[::1]")
    #expect(HostName.of(authority: "Git.Corp.Example") == "git.corp.example")
  }

  @Test(arguments: ["localhost", "127.0.0.1", "127.1.2.3", "[::1]"])
  func loopbackHosts(host: String) { #expect(HostName.isLoopback(host)) }

  @Test(arguments: [
    "git.corp.example", "128.0.0.1", "10.0.0.1", "127.0.0", "127.0.0.1.example", "127.0.0.256", "localhost.example",
    "[::2]", "127.0.0.-1", "127.0.0.1e",
  ])
  func otherHostsAreNotLoopback(host: String) { #expect(!HostName.isLoopback(host)) }
}
