import AccountsJSON
import Testing

/// JSONObject: members kept in order, subscripts that add, replace and remove, equality.
@Suite struct JSONObjectTests {
  @Test func literalsKeepTheirOrder() {
    let object: JSONObject = ["state": .string("none"), "expires_at": .null]
    #expect(object.keys == ["state", "expires_at"])
    #expect(object.values == [.string("none"), .null])
    #expect(object.count == 2)
    #expect(!object.isEmpty)
    #expect(object.map(\.key) == ["state", "expires_at"])
    #expect(JSONObject().isEmpty)
  }

  @Test func subscriptsAddReplaceAndRemove() {
    var object = JSONObject()
    object["a"] = .number(JSONNumber(1))
    object["b"] = .number(JSONNumber(2))
    object["c"] = .number(JSONNumber(3))
    object["a"] = .bool(true)
    #expect(object.keys == ["a", "b", "c"], "replacing keeps the position")
    #expect(object["a"] == .bool(true))
    object["b"] = nil
    #expect(object.keys == ["a", "c"])
    #expect(object["b"] == nil)
    object["missing"] = nil
    #expect(object.count == 2)
    object["b"] = .null
    #expect(object.keys == ["a", "c", "b"], "re-adding appends")
    #expect(object["b"] == .null, "a null member is present")
    #expect(object.contains(key: "b") && !object.contains(key: "z"))
  }

  @Test func largeObjectsStayConsistentThroughEdits() {
    var object = JSONObject()
    var reference: [(String, Int)] = []
    for number in 0..<200 {
      object["k\(number)"] = .number(JSONNumber(number))
      reference.append(("k\(number)", number))
    }
    for number in stride(from: 0, to: 200, by: 3) {
      object["k\(number)"] = nil
      reference.removeAll { $0.0 == "k\(number)" }
    }
    object["k1"] = .string("one")
    reference[reference.firstIndex { $0.0 == "k1" }!].1 = -1
    object["new"] = .null
    #expect(object.keys == reference.map(\.0) + ["new"])
    for (key, number) in reference where key != "k1" {
      #expect(object[key] == .number(JSONNumber(number)))
    }
    #expect(object["k1"] == .string("one"))
    #expect(object["k3"] == nil)
    #expect(object["new"] == .null)
  }

  @Test func equalityIsOrderSensitive() {
    let ab: JSONObject = ["a": .null, "b": .null]
    let ba: JSONObject = ["b": .null, "a": .null]
    #expect(ab != ba)
    var built = JSONObject()
    built["a"] = .null
    built["b"] = .null
    #expect(ab == built)
  }

  @Test func numbersCompareByText() {
    #expect(JSONNumber(text: "1.0") != JSONNumber(text: "1"))
    #expect(JSONNumber(text: "10") == JSONNumber(10))
    #expect(JSONNumber(7).description == "7")
  }
}
