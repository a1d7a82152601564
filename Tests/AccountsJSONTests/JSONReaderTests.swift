import AccountsJSON
import Testing

/// Reading a parsed document by member and type, each mistake named by its full path.
@Suite struct JSONReaderTests {
  static let config = """
    {
      "version": 1,
      "ratio": 1.5,
      "big": 9223372036854775808,
      "exponent": 1e3,
      "backends": {
        "corp": {
          "adapter": "signed",
          "settings": {"base_url": "https://api.corp.example", "timeout": 30},
          "secret_settings": ["private_key", null],
          "note": null
        }
      }
    }
    """

  let root: JSONReader

  init() throws {
    root = JSONReader(try JSON.parse(Self.config))
  }

  @Test func requiredMembersAreRead() throws {
    #expect(root.path == "")
    #expect(try root.int64("version") == 1)
    let corp = try root.object("backends").object("corp")
    #expect(corp.path == "backends.corp")
    #expect(try corp.string("adapter") == "signed")
    #expect(try corp.object("settings").path == "backends.corp.settings")
    #expect(try corp.object("settings").int64("timeout") == 30)
  }

  @Test func missingMembersAreNamedByTheirFullPath() {
    #expect(
      shapeError { try root.int64("revision") }
        == JSONShapeError(path: "revision", problem: "missing"))
    let error = shapeError { try root.object("backends").object("corp").object("adapters") }
    #expect(error?.description == "backends.corp.adapters: missing")
    #expect(
      shapeError { try root.object("backends").bool("corp2") }?.description
        == "backends.corp2: missing")
  }

  @Test func wrongTypesNameWhatWasExpectedAndFound() {
    let corp = { () throws(JSONShapeError) in try root.object("backends").object("corp") }
    #expect(
      shapeError { try corp().bool("adapter") }?.description
        == "backends.corp.adapter: expected a boolean, found a string")
    #expect(
      shapeError { try root.string("version") }?.description
        == "version: expected a string, found a number")
    #expect(
      shapeError { try root.array("backends") }?.description
        == "backends: expected an array, found an object")
    #expect(
      shapeError { try corp().object("secret_settings") }?.description
        == "backends.corp.secret_settings: expected an object, found an array")
    #expect(
      shapeError { try corp().string("note") }?.description
        == "backends.corp.note: expected a string, found null")
    #expect(
      shapeError { try corp().object("adapter").string("x") }?.description
        == "backends.corp.adapter: expected an object, found a string")
  }

  @Test func integersAreExact() {
    #expect(
      shapeError { try root.int64("ratio") }?.description == "ratio: expected an integer, found 1.5"
    )
    #expect(
      shapeError { try root.int64("exponent") }?.description
        == "exponent: expected an integer, found 1e3")
    #expect(
      shapeError { try root.int64("big") }?.description
        == "big: expected a 64-bit integer, found 9223372036854775808")
    #expect(
      shapeError { try root.int64("backends") }?.description
        == "backends: expected an integer, found an object")
  }

  @Test func optionalMembersAreNilWhenMissingOrNull() throws {
    let corp = try root.object("backends").object("corp")
    #expect(try corp.optionalString("note") == nil)
    #expect(try corp.optionalString("absent") == nil)
    #expect(try corp.optionalObject("note") == nil)
    #expect(try corp.optionalArray("absent") == nil)
    #expect(try corp.optionalBool("note") == nil)
    #expect(try corp.optionalInt64("absent") == nil)
    #expect(try corp.optionalString("adapter") == "signed")
    #expect(try corp.optionalObject("settings")?.path == "backends.corp.settings")
    #expect(try corp.optionalArray("secret_settings")?.count == 2)
    #expect(try root.optionalInt64("version") == 1)
  }

  @Test func optionalMembersOfTheWrongTypeStillThrow() throws {
    let corp = try root.object("backends").object("corp")
    #expect(
      shapeError { try corp.optionalString("settings") }?.description
        == "backends.corp.settings: expected a string, found an object")
    #expect(
      shapeError { try corp.optionalObject("adapter") }?.description
        == "backends.corp.adapter: expected an object, found a string")
    #expect(
      shapeError { try corp.optionalArray("adapter") }?.description
        == "backends.corp.adapter: expected an array, found a string")
    #expect(
      shapeError { try root.optionalInt64("ratio") }?.description
        == "ratio: expected an integer, found 1.5")
  }

  @Test func arrayElementsAreNamedByIndex() throws {
    let settings = try root.object("backends").object("corp").array("secret_settings")
    #expect(
      settings.map(\.path) == [
        "backends.corp.secret_settings[0]", "backends.corp.secret_settings[1]",
      ])
    #expect(try settings[0].asString() == "private_key")
    #expect(
      shapeError { try settings.map { try $0.asString() } }?.description
        == "backends.corp.secret_settings[1]: expected a string, found null")
    let top = try JSONReader(JSON.parse(#"[{"a": true}, {"a": 1}]"#)).asArray()
    #expect(top.map(\.path) == ["[0]", "[1]"])
    #expect(
      shapeError { try top[1].bool("a") }?.description
        == "[1].a: expected a boolean, found a number")
  }

  @Test func objectsAreWalkedByKey() throws {
    let backends = try root.object("backends")
    var names: [String] = []
    for (name, _) in try backends.asObject() {
      names.append(name)
      #expect(try backends.object(name).string("adapter") == "signed")
    }
    #expect(names == ["corp"])
    #expect(try backends.member("corp")?.path == "backends.corp")
    #expect(try backends.object("corp").member("note")?.value == .null)
    #expect(try backends.member("absent") == nil)
  }

  @Test func theRootMustBeAnObjectForMemberAccess() {
    let array = JSONReader(.array([]))
    #expect(
      shapeError { try array.int64("version") }
        == JSONShapeError(path: "", problem: "expected an object, found an array"))
    #expect(
      shapeError { try array.int64("version") }?.description == "expected an object, found an array"
    )
    #expect(
      shapeError { try JSONReader(.null).asObject() }?.description
        == "expected an object, found null")
    #expect(
      shapeError { try JSONReader(.bool(true), path: "x").asString() }?.description
        == "x: expected a string, found a boolean")
  }

  @Test func shapeErrorsDescribeThemselves() {
    #expect(
      JSONShapeError(path: "accounts[1].remembered", problem: "expected a boolean, found a string")
        .description
        == "accounts[1].remembered: expected a boolean, found a string")
    #expect(JSONShapeError(path: "", problem: "missing").description == "missing")
  }

  @Test func theIndexReportsTheAccountThatIsWrong() throws {
    let text = """
      {"version": 1, "accounts": [
        {"user": "a", "remembered": false},
        {"user": "c", "remembered": "yes"}
      ]}
      """
    let accounts = try JSONReader(JSON.parse(text)).array("accounts")
    #expect(try accounts[0].bool("remembered") == false)
    #expect(
      shapeError { try accounts.map { try $0.bool("remembered") } }?.description
        == "accounts[1].remembered: expected a boolean, found a string")
  }
}
