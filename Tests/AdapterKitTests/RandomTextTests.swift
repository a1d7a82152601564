import Testing

@testable import AdapterKit

@Suite struct RandomTextTests {
  @Test func bytesMapOntoTheAlphabetModulo62() {
    #expect(RandomText.characters(from: [0, 9, 10, 35, 36, 61]) == Array("09AZaz".utf8))
    #expect(RandomText.characters(from: [62, 123, 124, 247]) == Array("0z0z".utf8))
  }

  @Test func bytesFrom248OnAreRejected() {
    #expect(RandomText.characters(from: [248, 249, 255]) == [])
    #expect(RandomText.characters(from: [247, 248]) == Array("z".utf8))
  }

  @Test func everyCharacterIsEquallyLikelyOverAllAcceptedBytes() {
    let all = RandomText.characters(from: (0...255).map { UInt8($0) })
    #expect(all.count == 248)
    for character in RandomText.alphabet {
      #expect(all.filter { $0 == character }.count == 4)
    }
  }

  @Test func theVectorRandComesFromItsBytes() throws {
    let host = FakeHost()
    let vector = Array("12dwfhdy487rSels".utf8)
    host.random =
      [255, 248] + vector.map { UInt8(RandomText.alphabet.firstIndex(of: $0)!) + 62 }
    #expect(try RandomText.make(count: 16, host: host) == "12dwfhdy487rSels")
    #expect(host.randomRequests == [16, 2], "draws again for the two rejected bytes")
  }

  @Test func aHostThatOnlyGivesRejectedBytesIsAnErrorNotALoop() {
    let host = FakeHost()  // an empty queue yields 255s
    #expect(
      errorMessage { () throws(AdapterError) in try RandomText.make(count: 16, host: host) }
        == "the host's random bytes are not random (all rejected)")
  }
}
