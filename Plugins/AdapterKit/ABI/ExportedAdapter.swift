import CAccountsAdapter

/// The C face of an `Adapter`: the static acc_adapter descriptor the entry function returns.
///
/// A plugin keeps one in a global `let` (initialised once, thread-safely, and never freed) and
/// exports it:
///
///     @_cdecl("accounts_adapter_v1")
///     public func accountsAdapterV1(_ hostABIVersion: UInt32) -> UnsafePointer<acc_adapter>? {
///       exported.descriptor(forHost: hostABIVersion)
///     }
///
///     private let exported = ExportedAdapter(PlainAdapter.self) { config in
///       newSession(PlainAdapter.self, config)
///     }
///
/// An adapter whose LOGIN may need a person also passes
/// `loginNeeds: { settings in loginNeeds(MyAdapter.self, settings) }`.
///
/// The plugin passes `sessionNew` (and `loginNeeds`) because a C function pointer cannot carry
/// which adapter it is for, and AdapterKit keeps no global state of its own: it is linked into every plugin,
/// and in a debug build one image's copy of its symbols may stand in for another's.
public struct ExportedAdapter: @unchecked Sendable {
  // @unchecked Sendable: the descriptors are written once in init and only read afterwards.
  private let pointer: UnsafePointer<acc_adapter>
  /// The same descriptor with a step that never returns SHOW, for hosts older than 1.3.
  private let olderHostPointer: UnsafePointer<acc_adapter>

  /// The header version the descriptor is built against (ACC_ADAPTER_ABI_VERSION).
  public static let abiVersion =
    UInt32(ACC_ADAPTER_ABI_MAJOR) << 16 | UInt32(ACC_ADAPTER_ABI_MINOR)

  /// Builds the descriptor of `adapter` once; its memory is never freed.
  ///
  /// `loginNeeds` is the descriptor's login_needs (ABI 1.3) for an adapter whose LOGIN may need
  /// a person (`Adapter.loginNeeds`): `{ settings in loginNeeds(MyAdapter.self, settings) }`.
  /// Without it the host takes LOGIN to need the password, as for older adapters.
  public init(
    _ adapter: any Adapter.Type,
    sessionNew: @convention(c) (UnsafePointer<acc_session_config>?) -> UnsafeMutableRawPointer?,
    loginNeeds: (@convention(c) (UnsafePointer<acc_pairs>?) -> UInt32)? = nil
  ) {
    let definitions = adapter.settings
    let settings = UnsafeMutablePointer<acc_setting>.allocate(capacity: max(definitions.count, 1))
    for (index, definition) in definitions.enumerated() {
      (settings + index).initialize(
        to: acc_setting(
          name: Self.permanent(definition.name), label: Self.permanent(definition.label),
          flags: definition.flags.rawValue, default_value: Self.permanent(definition.defaultValue)))
    }
    let template = acc_adapter(
      abi_version: Self.abiVersion,
      name: Self.permanent(adapter.name),
      version: Self.permanent(adapter.version),
      description: Self.permanent(adapter.summary),
      settings: UnsafePointer(settings),
      settings_count: definitions.count,
      session_new: sessionNew,
      step: { session, response, out in
        SessionBridge.step(session, response, out, hostShows: true)
      },
      session_free: { session in
        SessionBridge.free(session)
      },
      flags: adapter.declaresSessionCheck ? ACC_ADAPTER_CHECK_DECLARED : 0,
      login_needs: loginNeeds)
    var older = template
    older.step = { session, response, out in
      SessionBridge.step(session, response, out, hostShows: false)
    }
    pointer = Self.permanent(template)
    olderHostPointer = Self.permanent(older)
  }

  /// The descriptor for a host of `hostABIVersion`, or nil when its major version is not ours.
  /// A host older than 1.3 gets one whose step turns a SHOW into an ERROR: it could not show it.
  public func descriptor(forHost hostABIVersion: UInt32) -> UnsafePointer<acc_adapter>? {
    guard hostABIVersion >> 16 == UInt32(ACC_ADAPTER_ABI_MAJOR) else { return nil }
    return hostABIVersion & 0xFFFF >= Self.showMinorVersion ? pointer : olderHostPointer
  }

  /// The minor version that brought ACC_STEP_SHOW.
  static let showMinorVersion: UInt32 = 3

  private static func permanent(_ descriptor: acc_adapter) -> UnsafePointer<acc_adapter> {
    let pointer = UnsafeMutablePointer<acc_adapter>.allocate(capacity: 1)
    pointer.initialize(to: descriptor)
    return UnsafePointer(pointer)
  }

  /// A copy of `text` that lives for the rest of the process.
  private static func permanent(_ text: StaticString) -> acc_string {
    text.withUTF8Buffer { bytes in
      guard !bytes.isEmpty else { return acc_string(bytes: nil, length: 0) }
      let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
      bytes.withMemoryRebound(to: CChar.self) { characters in
        if let base = characters.baseAddress { copy.initialize(from: base, count: bytes.count) }
      }
      (copy + bytes.count).initialize(to: 0)
      return acc_string(bytes: UnsafePointer(copy), length: bytes.count)
    }
  }
}

/// session_new for a plugin's `sessionNew`: a retained box the host holds as `void *`.
public func newSession(
  _ adapter: any Adapter.Type, _ config: UnsafePointer<acc_session_config>?
) -> UnsafeMutableRawPointer? {
  Unmanaged.passRetained(SessionBox(adapter: adapter, config: config)).toOpaque()
}

/// login_needs for a plugin's `loginNeeds`: `adapter.loginNeeds` of the settings the host lends.
public func loginNeeds(_ adapter: any Adapter.Type, _ settings: UnsafePointer<acc_pairs>?)
  -> UInt32
{
  let raw = (settings?.pointee.borrowedItems).map { items in
    items.map { (name: $0.name.text, value: $0.value.secret) }
  }
  let given = Settings(definitions: adapter.settings, raw: raw ?? [])
  return adapter.loginNeeds(settings: given).rawValue
}

/// step and session_free, the same for every adapter.
enum SessionBridge {
  /// `hostShows`: whether the host knows ACC_STEP_SHOW (ABI 1.3 or later).
  static func step(
    _ session: UnsafeMutableRawPointer?, _ response: UnsafePointer<acc_response>?,
    _ out: UnsafeMutablePointer<acc_step_output>?, hostShows: Bool
  ) -> Int32 {
    guard let out else { return Int32(ACC_STEP_ERROR) }
    let writer = StepOutputWriter(out)
    guard let session else {
      writer.set(\.message, noSessionMessage)
      return Int32(ACC_STEP_ERROR)
    }
    return Unmanaged<SessionBox>.fromOpaque(session).takeUnretainedValue()
      .step(response, into: writer, hostShows: hostShows)
  }

  static func free(_ session: UnsafeMutableRawPointer?) {
    guard let session else { return }
    // Releasing the box wipes the last output (its arena) and the password copy.
    Unmanaged<SessionBox>.fromOpaque(session).release()
  }

  /// A message that needs no session to keep it alive.
  private static var noSessionMessage: acc_string {
    let text: StaticString = "the host called step without a session"
    return text.withUTF8Buffer { bytes in
      acc_string(
        bytes: UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self),
        length: bytes.count)
    }
  }
}
