import AccountsContract
import AccountsCore
@testable import AccountsServices
import Testing


/// What a probe child writes is re-checked by the parent: the adapter could have written it.
@Suite struct AdapterProbeTests {
  let file = AdapterEntry(path: "/a/example.so", name: "example")

  func described(name: String = "example", settings: [String] = ["base_url"]) -> AdapterEntry {
    AdapterEntry(
      path: "/a/example.so", name: "example",
      description: AdapterDescription(
        name: name, version: "1", summary: "s", abiVersion: 1 << 16,
        settings: settings.map { AdapterSetting(name: $0, label: "l") }, path: "/a/example.so"))
  }

  @Test func onlyAnAnswerAboutThisFileWithNamesTheHostAcceptsIsBelieved() {
    #expect(AdapterProbe.isValid(described(), for: file))
    #expect(AdapterProbe.isValid(file.refused("writable"), for: file))
    #expect(!AdapterProbe.isValid(file, for: file), "neither described nor refused")
    #expect(!AdapterProbe.isValid(AdapterEntry(path: "/a/other.so", name: "example", refusal: "x"), for: file))
    #expect(!AdapterProbe.isValid(AdapterEntry(path: "/a/example.so", name: "other", refusal: "x"), for: file))
    #expect(!AdapterProbe.isValid(described(name: "\u{1b}[31mexample"), for: file))
    #expect(!AdapterProbe.isValid(described(settings: ["Bad\u{7}"]), for: file))
    #expect(!AdapterProbe.isValid(described(settings: ["a", "a"]), for: file))
  }

  @Test func theProtocolLinesReadBack() {
    guard case .ready = ProbeLine(text: ProbeLine.ready.text) else { Issue.record("ready"); return }
    guard case .unreadable = ProbeLine(text: "hello") else { Issue.record("junk"); return }
  }
}
