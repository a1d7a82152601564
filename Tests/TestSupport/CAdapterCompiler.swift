import Foundation

/// Builds adapters from the C fixtures in Tests/Fixtures/adapters with the system C compiler
/// and nothing but the ABI header: what a third party does.
public enum CAdapterCompiler {
  /// The ABI header's directory: the current one, or a copy of version 1.0's, 1.1's or 1.2's.
  public enum Header: String, Sendable {
    case current = "Sources/CAccountsAdapter/include"
    case version1_0 = "Tests/Fixtures/adapters/abi-1.0"
    case version1_1 = "Tests/Fixtures/adapters/abi-1.1"
    case version1_2 = "Tests/Fixtures/adapters/abi-1.2"
  }

  /// Compiles `source` (a file name under Tests/Fixtures/adapters) into `directory/NAME.so`;
  /// `linkerArguments` come after the source (libraries to link, `-Wl,-rpath,...`).
  @discardableResult
  public static func build(
    _ source: String, name: String, defines: [String] = [], linkerArguments: [String] = [],
    header: Header = .current, into directory: String
  ) throws -> String {
    try library(
      source, at: "\(directory)/\(name).so", defines: defines, linkerArguments: linkerArguments,
      header: header)
  }

  /// Compiles `source` into the shared library `output`, whatever its name.
  @discardableResult
  public static func library(
    _ source: String, at output: String, defines: [String] = [], linkerArguments: [String] = [],
    header: Header = .current
  ) throws -> String {
    let include = PackagePaths.root.appendingPathComponent(header.rawValue).path
    let file = PackagePaths.root.appendingPathComponent("Tests/Fixtures/adapters/\(source)").path
    let result = try runProcess(
      "/usr/bin/cc",
      ["-std=c11", "-Wall", "-Werror", "-shared", "-fPIC", "-I", include]
        + defines.map { "-D\($0)" } + ["-o", output, file] + linkerArguments,
      environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
    guard result.status == 0 else { throw CompileError(output: result.description) }
    return output
  }

  /// A hostile fixture in one of its modes, named `name`.
  @discardableResult
  public static func hostile(_ mode: String, name: String, into directory: String) throws -> String {
    try build("hostile.c", name: name, defines: ["MODE=\(mode)", "NAME=\"\(name)\""], into: directory)
  }

  public struct CompileError: Error, CustomStringConvertible {
    public let output: String
    public var description: String { "cc failed: \(output)" }
  }
}

/// A fresh directory under /tmp, mode 0755, for adapter files; removed by `remove()`.
public final class ScratchDirectory: @unchecked Sendable {
  public let path: String

  public init() throws {
    var template = Array("/tmp/accounts-test-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    path = String(cString: made)
    chmod(path, 0o755)
  }

  deinit { remove() }

  public func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}
