import CAccountsAdapter
import Testing

@testable import AdapterKit

/// Drives a descriptor's C functions the way a host does, with configurations and outputs of
/// any size a host may have.
struct DescriptorDriver {
  let descriptor: acc_adapter
  let arena = OutputArena()

  init(_ exported: ExportedAdapter, host: UInt32 = ExportedAdapter.abiVersion) throws {
    descriptor = try #require(exported.descriptor(forHost: host)).pointee
  }

  func newSession(
    operation: Int32, settings: [Pair], user: String = "bob", code: String = "",
    refreshToken: String = "", configSize: Int = MemoryLayout<acc_session_config>.size
  ) -> UnsafeMutableRawPointer? {
    var config = acc_session_config()
    config.size = UInt32(configSize)
    config.operation = operation
    config.settings = arena.pairs(settings)
    config.user = arena.string(user)
    config.password = arena.string("secret")
    config.one_time_code = arena.string(code)
    config.refresh_token = arena.string(refreshToken)
    return withUnsafePointer(to: &config) { descriptor.session_new?($0) }
  }

  func step(
    _ session: UnsafeMutableRawPointer?, status: Int32? = nil, body: String = "",
    outputSize: Int = MemoryLayout<acc_step_output>.size
  ) -> (code: Int32, out: acc_step_output) {
    var out = acc_step_output()
    out.size = UInt32(outputSize)
    let code = withUnsafeMutablePointer(to: &out) { step(session, status: status, body: body, into: $0) }
    return (code, out)
  }

  /// A step into `out` as the host laid it out; nil `status` hands no response.
  func step(
    _ session: UnsafeMutableRawPointer?, status: Int32?, body: String = "",
    into out: UnsafeMutablePointer<acc_step_output>
  ) -> Int32 {
    guard let status else { return descriptor.step?(session, nil, out) ?? -1 }
    var response = acc_response(
      size: UInt32(MemoryLayout<acc_response>.size), status: status, headers: acc_pairs(),
      body: arena.string(body))
    return withUnsafePointer(to: &response) { descriptor.step?(session, $0, out) ?? -1 }
  }

  /// What `login_needs` answers for `settings`; nil when the descriptor has none.
  func loginNeeds(_ settings: [Pair]) -> UInt32? {
    guard let loginNeeds = descriptor.login_needs else { return nil }
    var pairs = arena.pairs(settings)
    return withUnsafePointer(to: &pairs) { loginNeeds($0) }
  }
}

func text(_ string: acc_string) -> String { string.text }
