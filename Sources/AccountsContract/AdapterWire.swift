import AccountsJSON
import AccountsSystem

// What `accounts __probe-adapters` (an adapter loaded in a child process, which a broken adapter
// may take down) writes on its stdout for the command that started it: an adapter file's entry
// (its description, or why it was refused) or a load error, as JSON text.

/// A wire text that does not read back: a bug or a mismatched library, never user input.
public struct AdapterWireError: Error {
  public var detail: String
}

private func string(_ value: String) -> JSONValue { .string(value) }
private func number(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }

private func parse<T>(_ text: String, _ body: (JSONReader) throws -> T) throws(AdapterWireError) -> T {
  do {
    return try body(JSONReader(try JSON.parse(text)))
  } catch {
    throw AdapterWireError(detail: "\(error)")
  }
}

extension AdapterDescription {
  public var wireValue: JSONValue {
    var object: JSONObject = [
      "name": string(name), "version": string(version), "summary": string(summary),
      "abi": number(Int64(abiVersion)), "path": string(path),
      "settings": .array(settings.map { setting in
        .object([
          "name": string(setting.name), "label": string(setting.label),
          "secret": .bool(setting.isSecret), "optional": .bool(setting.isOptional),
          "per_account": .bool(setting.isPerAccount), "one_time_code": .bool(setting.isOneTimeCode),
          "default": string(setting.defaultValue),
        ])
      }),
    ]
    if case .onlyWith(let names) = sessionCheck { object["session_check"] = .array(names.map(string)) }
    return .object(object)
  }

  public init(wireReader reader: JSONReader) throws(JSONShapeError) {
    var settings: [AdapterSetting] = []
    for setting in try reader.array("settings") {
      settings.append(AdapterSetting(
        name: try setting.string("name"), label: try setting.string("label"),
        isSecret: try setting.bool("secret"), isOptional: try setting.bool("optional"),
        isPerAccount: try setting.bool("per_account"), isOneTimeCode: try setting.optionalBool("one_time_code") ?? false,
        defaultValue: try setting.string("default")))
    }
    self.init(
      name: try reader.string("name"), version: try reader.string("version"),
      summary: try reader.string("summary"), abiVersion: UInt32(truncatingIfNeeded: try reader.int64("abi")),
      settings: settings, path: try reader.string("path"),
      sessionCheck: try reader.optionalArray("session_check").map { (names) throws(JSONShapeError) in
        .onlyWith(try names.map { (name) throws(JSONShapeError) in try name.asString() })
      } ?? .undeclared)
  }
}

extension AdapterEntry {
  public var wireValue: JSONValue {
    var entry: JSONObject = ["path": string(path), "name": string(name)]
    if let description { entry["description"] = description.wireValue }
    if let refusal { entry["refusal"] = string(refusal) }
    if let shadowedBy { entry["shadowed_by"] = string(shadowedBy) }
    return .object(entry)
  }

  public init(wireReader reader: JSONReader) throws(JSONShapeError) {
    self.init(
      path: try reader.string("path"), name: try reader.string("name"),
      description: try reader.optionalObject("description").map { (value) throws(JSONShapeError) in
        try AdapterDescription(wireReader: value)
      },
      refusal: try reader.optionalString("refusal"), shadowedBy: try reader.optionalString("shadowed_by"))
  }
}

extension AdapterLoadError {
  public var wireText: String {
    let value: JSONObject
    switch self {
    case .hostMissing(let detail, let fix):
      value = ["case": string("host_missing"), "detail": string(detail), "fix": fix.map(string) ?? .null]
    case .notFound(let name, let searched, let known):
      value = [
        "case": string("not_found"), "name": string(name),
        "searched": .array(searched.map(string)), "known": .array(known.map(string)),
      ]
    case .refused(let path, let reason):
      value = ["case": string("refused"), "path": string(path), "reason": string(reason)]
    }
    return JSON.serialize(.object(value), pretty: false)
  }

  /// The error `wireText` describes; anything unreadable becomes `.hostMissing`.
  public init(wireText: String) {
    do {
      self = try parse(wireText) { reader in
        switch try reader.string("case") {
        case "not_found":
          return .notFound(
            name: try reader.string("name"),
            searched: try reader.array("searched").map { try $0.asString() },
            known: try reader.array("known").map { try $0.asString() })
        case "refused": return .refused(path: try reader.string("path"), reason: try reader.string("reason"))
        default: return .hostMissing(detail: try reader.string("detail"), fix: try reader.optionalString("fix"))
        }
      }
    } catch {
      self = .hostMissing(detail: "unreadable error from the adapter host")
    }
  }
}
