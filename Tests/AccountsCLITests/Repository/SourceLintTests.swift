import Foundation
import TestSupport
import Testing

/// The Swift sources of a folder, by path below the package root, with their text.
func swiftSources(under folders: [String]) throws -> [(path: String, text: String)] {
  var files: [(String, String)] = []
  for folder in folders {
    let root = PackagePaths.root.appendingPathComponent(folder).path
    guard let names = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] else { continue }
    for name in names.sorted() where name.hasSuffix(".swift") {
      files.append((folder + "/" + name, try String(contentsOfFile: root + "/" + name, encoding: .utf8)))
    }
  }
  return files
}

/// A source's lines without their `//` comments (a rule may name what it forbids in prose).
func codeLines(_ text: String) -> [(number: Int, code: Substring)] {
  text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
    let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
    return (index + 1, code)
  }
}

/// Rules on the sources that no compiler checks.
@Suite struct SourceLintTests {
  /// Each system primitive is written once: the loop over interrupted system calls, fcntl, the
  /// kernel's randomness in AccountsSystem, the wiping of memory in SecretMemory. Everywhere
  /// else (the domain, the command line, the private library, the adapters) uses them, so a
  /// fix in one (a retry forgotten, a lock released by a stray close) is a fix everywhere.
  @Test func systemPrimitivesAreWrittenOnlyInTheSystemModules() throws {
    let forbidden = ["EINTR", "fcntl(", "getrandom(", "explicit_bzero("]
    var found: [String] = []
    var read = 0
    for (path, text) in try swiftSources(under: ["Sources", "Plugins"]) {
      if path.hasPrefix("Sources/AccountsSystem/") || path.hasPrefix("Sources/SecretMemory/") { continue }
      read += 1
      for (number, code) in codeLines(text) {
        for word in forbidden where code.contains(word) { found.append("\(path):\(number): \(word)") }
      }
    }
    #expect(read > 150)
    let advice = "use AccountsSystem's primitives (retryingInterrupts, FileDescriptor, fillRandom) or SecretMemory's wipe"
    #expect(found.isEmpty, "\(advice):\n\(found.joined(separator: "\n"))")
  }

  /// The lint reads what it claims to read: a planted use is found.
  @Test func theLintFindsAPlantedUse() {
    let planted = "let x = 1\n  while read() < 0 && errno == EINTR {}  \n// EINTR in a comment is prose\n"
    let hits = codeLines(planted).filter { $0.code.contains("EINTR") }.map(\.number)
    #expect(hits == [2])
  }

  /// The domain is rules over ports: it imports no C module, no Glibc, no Foundation. What it
  /// needs of the system comes through AccountsSystem's typed primitives, and every system part
  /// it reaches through a port lives in AccountsServices.
  @Test func theDomainImportsNoSystemModule() throws {
    let system = /^\s*(@testable\s+|@_implementationOnly\s+|(public|internal|package)\s+)*import\s+(Glibc|Foundation\w*|Dispatch|C[A-Z]\w*)\b/
    var found: [String] = []
    let sources = try swiftSources(under: ["Sources/AccountsCore"])
    #expect(sources.count > 50)
    for (path, text) in sources {
      for (number, code) in codeLines(text) where code.contains(system) { found.append("\(path):\(number): \(code)") }
    }
    #expect(found.isEmpty, "move the system part into AccountsSystem or AccountsServices:\n\(found.joined(separator: "\n"))")
    #expect(codeLines("import CHiredis\n@testable import Glibc\nimport AccountsSystem").filter { $0.code.contains(system) }.count == 2)
  }

  /// The private library links the contract it shares with the binary, never the domain: not a
  /// symbol of AccountsCore (nor of the services or the command line) is in it.
  @Test func thePrivateLibraryHoldsNoDomain() throws {
    let library = PackagePaths.products.appendingPathComponent("libAccountsPrivate.so").path
    let symbols = try runProcess("/usr/bin/nm", [library], environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
    #expect(symbols.status == 0, "\(symbols.standardError)")
    let lines = symbols.standardOutput.split(separator: "\n")
    #expect(lines.contains { $0.contains("16AccountsContract") }, "the contract is in it")
    for module in ["12AccountsCore", "16AccountsServices", "11AccountsCLI"] {
      #expect(!lines.contains { $0.contains(module) }, "\(module) is linked into the private library")
    }
  }
}
