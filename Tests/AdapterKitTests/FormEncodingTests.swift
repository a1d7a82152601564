import SecretMemory
import Testing

@testable import AdapterKit

@Suite struct FormEncodingTests {
  @Test func unreservedBytesStayAndEverythingElseIsPercentEncoded() {
    let body = FormEncoding.encode([
      FormField("username", "alice"),
      FormField("a b", "c&d=e+f/g?h%i"),
      FormField("safe", "AZaz09-._~"),
      FormField("utf8", "é中"),
      FormField("empty", ""),
    ])
    #expect(
      body.text
        == "username=alice&a%20b=c%26d%3De%2Bf%2Fg%3Fh%25i&safe=AZaz09-._~"
        + "&utf8=%C3%A9%E4%B8%AD&empty=")
  }

  @Test func noFieldsIsAnEmptyBody() {
    #expect(FormEncoding.encode([]).isEmpty)
  }

  @Test func secretValuesAreEncodedFromTheirBytes() {
    let password = SecretBytes(Array("p@ss word\n".utf8))
    #expect(
      FormEncoding.encode([FormField("password", secret: password)]).text
        == "password=p%40ss%20word%0A")
  }

  @Test func aSecretIsEscapedIntoSecretBytes() {
    let secret = SecretBytes(Array("s3cr:t+/ é".utf8))
    #expect(FormEncoding.escaped(secret).text == "s3cr%3At%2B%2F%20%C3%A9")
    #expect(FormEncoding.escaped(secret).text == FormEncoding.escape(secret))
  }

  @Test func controlAndHighBytesUseUppercaseHex() {
    #expect(FormEncoding.escape([0x00, 0x1F, 0x7F, 0xFF] as [UInt8]) == "%00%1F%7F%FF")
    #expect(FormEncoding.escape("~") == "~")
  }

  @Test func joinTrimsOneSideEachAndKeepsInnerSlashes() {
    #expect(URLBuilder.join("https://x/api/", "/login") == "https://x/api/login")
    #expect(URLBuilder.join("https://x/api///", "///v1/user/info") == "https://x/api/v1/user/info")
    #expect(URLBuilder.join("https://x", "") == "https://x/")
    #expect(URLBuilder.join("https://x", "a b#c") == "https://x/a%20b%23c")
    #expect(URLBuilder.join("https://x", "ä") == "https://x/%C3%A4")
    #expect(URLBuilder.join("https://x", "login.php?act=in") == "https://x/login.php?act=in")
  }

  @Test func queryIsAppendedAfterTheRightSeparator() {
    #expect(URLBuilder.appending(query: "a=1", to: "https://x/p") == "https://x/p?a=1")
    #expect(URLBuilder.appending(query: "a=1", to: "https://x/p?b=2") == "https://x/p?b=2&a=1")
    #expect(URLBuilder.appending(query: "", to: "https://x/p") == "https://x/p")
  }

  @Test(arguments: [
    ("https://id.example.com/api/", "https://id.example.com/api"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
    ("HTTPS://X", "HTTPS://X"),
  ])
  func baseURLsThatAreAccepted(value: String, checked: String) throws {
    #expect(try URLBuilder.checkedBase(value, setting: "base_url") == checked)
  }

  @Test(arguments: [
    "ftp://x", "x", "https://", "https:///", "https://x y", "https://x/?a=1", "https://x/#f",
    "https://é.example", "", "https://x\n",
  ])
  func baseURLsThatAreRefused(value: String) {
    let message = errorMessage { () throws(AdapterError) in
      try URLBuilder.checkedBase(value, setting: "base_url")
    }
    #expect(message?.hasPrefix("setting base_url must be an http:// or https:// URL") == true)
    #expect(message?.contains("\n") == false)
  }

  /// An endpoint's trailing slash may matter to its server: `checked` keeps the value whole.
  @Test func aCheckedURLKeepsItsTrailingSlash() throws {
    #expect(
      try URLBuilder.checked("https://id.example/o/token/", setting: "token_endpoint", example: "https://e/t")
        == "https://id.example/o/token/")
    #expect(
      errorMessage { () throws(AdapterError) in
        try URLBuilder.checked("https://id.example/o/token?x=1", setting: "token_endpoint", example: "https://e/t")
      } == "setting token_endpoint must be an http:// or https:// URL without spaces, query or fragment, "
        + "e.g. https://e/t, not \"https://id.example/o/token\"")
  }

  @Test func plainHTTPIsRecognisedInAnyCase() {
    #expect(URLBuilder.isPlainHTTP("http://x"))
    #expect(URLBuilder.isPlainHTTP("HTTP://x"))
    #expect(!URLBuilder.isPlainHTTP("https://x"))
  }

  @Test func base64MatchesRFC4648Vectors() {
    let vectors = [
      ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
      ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"), ("123456", "MTIzNDU2"),
    ]
    for (input, output) in vectors {
      #expect(Base64.encode(input).text == output, "base64(\(input))")
    }
    #expect(Base64.encode([0xFB, 0xFF] as [UInt8]).text == "+/8=")
  }
}
