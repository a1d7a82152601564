import AccountsJSON
import AccountsSystem
import SecretMemory

// The adapter host lives in a shared library that the command line loads only for the commands
// that use adapters (see AccountsCLI/PrivateAdapterHost.swift). Requests, descriptions and
// outcomes cross that C boundary as JSON texts; secrets cross as bytes beside them. Both sides
// compile these definitions.

/// A wire text that does not read back: a bug or a mismatched library, never user input.
public struct AdapterWireError: Error {
  public var detail: String
}

private func string(_ value: String) -> JSONValue { .string(value) }
private func number(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }

private func object(_ pairs: [String: String]) -> JSONValue {
  var object = JSONObject()
  for key in pairs.keys.sorted() { object[key] = .string(pairs[key]!) }
  return .object(object)
}

private func pairs(_ reader: JSONReader) throws(JSONShapeError) -> [String: String] {
  var result: [String: String] = [:]
  for (key, _) in try reader.asObject() { result[key] = try reader.string(key) }
  return result
}

private func parse<T>(_ text: String, _ body: (JSONReader) throws -> T) throws(AdapterWireError) -> T {
  do {
    return try body(JSONReader(try JSON.parse(text)))
  } catch {
    throw AdapterWireError(detail: "\(error)")
  }
}

extension AdapterSearchPath {
  public var wireValue: JSONValue {
    .array(directories.map { directory in
      var entry: JSONObject = ["path": string(directory.path)]
      if let names = directory.onlyNames { entry["only"] = .array(names.map(string)) }
      return .object(entry)
    })
  }

  public init(wireReader reader: JSONReader) throws(JSONShapeError) {
    var directories: [Directory] = []
    for entry in try reader.asArray() {
      directories.append(Directory(
        path: try entry.string("path"),
        onlyNames: try entry.optionalArray("only")?.map { (name) throws(JSONShapeError) in try name.asString() }))
    }
    self.init(directories: directories)
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

extension AdapterDescription {
  public static func from(wireText: String) throws(AdapterWireError) -> AdapterDescription {
    try parse(wireText) { try AdapterDescription(wireReader: $0) }
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

extension AdapterRequest {
  /// The secrets that travel beside `wireText`, never inside it, by name: the operation's
  /// "password" (with "one_time_code" when LOGIN has one) or "token", and each secret setting
  /// as "setting:NAME".
  public func wireSecrets(secretSettings: [String: SecretBytes]) -> [(name: String, value: SecretBytes)] {
    var named: [(name: String, value: SecretBytes)] = []
    if let password = operation.password { named.append(("password", password)) }
    if let code = operation.oneTimeCode { named.append(("one_time_code", code)) }
    if let token = operation.token { named.append(("token", token)) }
    for name in secretSettings.keys.sorted() { named.append(("setting:\(name)", secretSettings[name]!)) }
    return named
  }

  /// Everything but the secrets, and where to look for the adapter.
  public func wireText(searchPath: AdapterSearchPath) -> String {
    var value: JSONObject = [
      "adapter": string(adapter), "backend": string(backend), "operation": string(operation.kind.rawValue),
      "settings": object(settings), "user": string(user), "session_values": object(sessionValues),
      "timeout_ms": number(Int64((timeout * 1000).rounded())),
      "search_path": searchPath.wireValue,
    ]
    if case .call(_, let method, let path, let parameters) = operation {
      value["method"] = string(method)
      value["path"] = string(path)
      value["parameters"] = .array(parameters.map { .array([string($0.0), string($0.1)]) })
    }
    return JSON.serialize(.object(value), pretty: false)
  }

  /// The request `wireText` describes, with the secrets that came beside it put back: the
  /// operation's into the operation, the settings' returned by name.
  public static func from(wireText: String, secrets: [(name: String, value: SecretBytes)]) throws(AdapterWireError)
    -> (request: AdapterRequest, secretSettings: [String: SecretBytes], searchPath: AdapterSearchPath)
  {
    var password: SecretBytes?
    var oneTimeCode: SecretBytes?
    var token: SecretBytes?
    var secretSettings: [String: SecretBytes] = [:]
    for (name, value) in secrets {
      switch name {
      case "password": password = value
      case "one_time_code": oneTimeCode = value
      case "token": token = value
      case let setting where setting.hasPrefix("setting:"): secretSettings[String(setting.dropFirst(8))] = value
      default: continue
      }
    }
    return try parse(wireText) { reader in
      guard let kind = AdapterOperationKind(rawValue: try reader.string("operation")) else {
        throw AdapterWireError(detail: "unknown operation")
      }
      func secret(_ value: SecretBytes?, _ name: String) throws(AdapterWireError) -> SecretBytes {
        guard let value else { throw AdapterWireError(detail: "no \(name) beside a \(kind.rawValue) request") }
        return value
      }
      let operation: AdapterOperation
      switch kind {
      case .login: operation = .login(password: try secret(password, "password"), oneTimeCode: oneTimeCode)
      case .check: operation = .check(token: try secret(token, "token"))
      case .logout: operation = .logout(token: try secret(token, "token"))
      case .validate: operation = .validate
      case .call:
        var parameters: [(String, String)] = []
        for pair in try reader.array("parameters") {
          let items = try pair.asArray()
          guard items.count == 2 else { throw AdapterWireError(detail: "parameter is not a pair") }
          parameters.append((try items[0].asString(), try items[1].asString()))
        }
        operation = .call(
          token: try secret(token, "token"), method: try reader.string("method"), path: try reader.string("path"),
          parameters: parameters)
      }
      let request = AdapterRequest(
        adapter: try reader.string("adapter"), backend: try reader.string("backend"),
        settings: try pairs(try reader.object("settings")), user: try reader.string("user"),
        sessionValues: try pairs(try reader.object("session_values")), operation: operation,
        timeout: Double(try reader.int64("timeout_ms")) / 1000)
      guard let searchPath = try reader.member("search_path") else {
        throw AdapterWireError(detail: "no search path")
      }
      return (request, secretSettings, try AdapterSearchPath(wireReader: searchPath))
    }
  }
}

extension AdapterOutcome {
  /// LOGIN's token, which travels beside the wire text, never inside it.
  public var token: SecretBytes? {
    if case .ok(let success) = self { success.token } else { nil }
  }

  /// The wire text: everything but the token.
  public var wireText: String {
    var value: JSONObject = ["case": string(name)]
    switch self {
    case .ok(let success):
      value["expires_in"] = number(success.expiresIn)
      value["session_values"] = object(success.sessionValues)
      value["message"] = string(success.message)
      if let body = success.body { value["body"] = string(body) }
    case .wrongPassword(let message), .sessionExpired(let message), .kicked(let message),
      .backendError(let message), .adapterFailed(let message):
      value["message"] = string(message)
    case .upgradeRequired(let message, let link):
      value["message"] = string(message)
      value["link"] = string(link)
    }
    return JSON.serialize(.object(value), pretty: false)
  }

  /// The outcome `wireText` describes, with the token that came beside it.
  public init(wireText: String, token: SecretBytes? = nil) throws(AdapterWireError) {
    self = try parse(wireText) { reader in
      let message = try reader.string("message")
      switch try reader.string("case") {
      case "ok":
        return .ok(AdapterSuccess(
          token: token, expiresIn: try reader.int64("expires_in"),
          sessionValues: try pairs(try reader.object("session_values")),
          body: try reader.optionalString("body"), message: message))
      case "wrong_password": return .wrongPassword(message: message)
      case "session_expired": return .sessionExpired(message: message)
      case "kicked": return .kicked(message: message)
      case "upgrade_required": return .upgradeRequired(message: message, link: try reader.string("link"))
      case "backend_error": return .backendError(message: message)
      case "adapter_failed": return .adapterFailed(message: message)
      case let other: throw AdapterWireError(detail: "unknown outcome \(other)")
      }
    }
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
