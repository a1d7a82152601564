import Testing

@testable import AdapterKit

@Suite struct ErrorCodesTests {
  @Test func theDefaultsAreTheSeedsCodes() throws {
    let codes = try ErrorCodes(parsing: "")
    #expect(codes == .defaults)
    #expect(codes[-100] == .expired)
    #expect(codes[-101] == .kicked)
    #expect(codes[-99] == .upgrade)
    #expect(codes[-1] == nil)
  }

  @Test func givenEntriesAreMergedOverTheDefaults() throws {
    let codes = try ErrorCodes(parsing: " -102 = kicked , -100=wrong_password,1001=expired,")
    #expect(codes[-102] == .kicked)
    #expect(codes[-101] == .kicked, "untouched defaults stay")
    #expect(codes[-100] == .wrongPassword, "a given entry replaces the default")
    #expect(codes[1001] == .expired)
    #expect(codes[-99] == .upgrade)
  }

  @Test func theDocumentedDefaultParsesToTheDefaults() throws {
    #expect(try ErrorCodes(parsing: "-100=expired,-101=kicked,-99=upgrade") == .defaults)
  }

  @Test(arguments: [
    "x=y", "-100=gone", "=expired", "-100", "1=2=3", "99999999999999999999=expired", "+5=kicked",
    "1 2=kicked", "-=expired", "-100=Expired",
  ])
  func malformedEntriesAreRefusedByName(text: String) {
    let message = errorMessage { () throws(AdapterError) in try ErrorCodes(parsing: text) }
    #expect(message?.hasPrefix("setting codes has the unknown entry \"") == true)
    #expect(message?.hasSuffix("OUTCOME one of expired, kicked, upgrade, wrong_password") == true)
  }

  @Test func theExtremesOf64BitsAreCodes() throws {
    let codes = try ErrorCodes(parsing: "-9223372036854775808=kicked,9223372036854775807=expired")
    #expect(codes[Int64.min] == .kicked)
    #expect(codes[Int64.max] == .expired)
  }
}
