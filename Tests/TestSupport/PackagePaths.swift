import Foundation

/// Where the package and its built products are, seen from a running test.
public enum PackagePaths {
  /// The package root (the directory holding Package.swift).
  public static let root: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
      url.deleteLastPathComponent()
      if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
        return url
      }
    }
    fatalError("Package.swift not found above \(#filePath)")
  }()

  /// The directory SwiftPM built into: the test runner lives there, beside `accounts` and the
  /// adapter libraries.
  public static let products: URL = {
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    var url = URL(fileURLWithPath: executable)
    // .build/<triple>/debug/accountsPackageTests.xctest
    url.deleteLastPathComponent()
    return url
  }()

  /// The built `accounts` executable.
  public static var accounts: String { products.appendingPathComponent("accounts").path }

  /// A script under scripts/.
  public static func script(_ name: String) -> String {
    root.appendingPathComponent("scripts").appendingPathComponent(name).path
  }
}
