import AccountsSystem
import Glibc

/// What the dynamic loader would load with a library, asked of the loader itself instead of
/// guessed: `LD_TRACE_LOADED_OBJECTS=1 LOADER FILE` (what `ldd` runs) prints every library it
/// would load, transitively, found through each object's RUNPATH or RPATH, LD_LIBRARY_PATH,
/// ld.so.cache and the system directories, exactly as `dlopen` searches. In trace mode the
/// loader maps the files and stops before relocating them: no constructor and no IFUNC
/// resolver runs. It runs as a child in a session of its own, bounded in time, its process
/// group killed when it ends.
public enum LibraryDependencies {
  /// A library the loader names.
  public enum Entry: Equatable, Sendable {
    /// `name` (DT_NEEDED, or a path) is the file at `path`.
    case found(name: String, path: String)
    case missing(name: String)
  }

  /// Seconds the loader may take to list a file's libraries.
  public static let timeout = 10.0

  /// The dynamic loader of this process: PT_INTERP of /proc/self/exe (the kernel keeps the
  /// file this process was started from, even when it has been replaced since).
  public static let systemLoader: Result<String, Refusal> = {
    do throws(Refusal) {
      let descriptor: FileDescriptor
      do {
        descriptor = try .open("/proc/self/exe", O_RDONLY)
      } catch {
        throw Refusal("cannot open /proc/self/exe to find the dynamic loader: \(error)")
      }
      defer { descriptor.close() }
      let size: Int
      do {
        size = Int(try descriptor.status().st_size)
      } catch {
        throw Refusal("cannot stat /proc/self/exe: \(error)")
      }
      guard let loader = try ELFFile(descriptor, size: size).interpreter(), loader.hasPrefix("/") else {
        throw Refusal("this program names no dynamic loader (PT_INTERP) to ask which libraries a library needs")
      }
      return .success(loader)
    } catch {
      return .failure(error)
    }
  }()

  /// The libraries the loader would load with the file `path` (absolute), in its order.
  public static func list(_ path: String, loader: String, timeout: Double = timeout) -> Result<[Entry], Refusal> {
    // Only what changes where the loader looks; nothing that makes it load more (LD_PRELOAD,
    // LD_AUDIT) or relocate (LD_WARN, LD_BIND_NOW). LD_LIBRARY_PATH is this process's own,
    // which dlopen uses too.
    var variables = ["LD_TRACE_LOADED_OBJECTS": "1"]
    for name in ["LD_LIBRARY_PATH", "GLIBC_TUNABLES"] {
      if let value = getenv(name) { variables[name] = String(cString: value) }
    }
    let child: ChildProcess
    do {
      child = try ChildProcess(
        loader, arguments: [loader, path], environment: .only(variables), readErrors: true, lineLimit: 1 << 16)
    } catch {
      return .failure(Refusal("cannot run the dynamic loader \(loader) to list its libraries: \(error.errno)"))
    }
    defer { child.reap() }
    let deadline = ChildProcess.now() + UInt64(timeout * 1e9)
    var lines: [String] = []
    while true {
      switch child.next(until: deadline) {
      case .line(let line):
        lines.append(line)
        guard lines.count <= 4096 else { return .failure(Refusal("the dynamic loader lists more than 4096 libraries")) }
      case .lineTooLong:
        return .failure(Refusal("the dynamic loader's list of its libraries has a line longer than 64 KiB"))
      case .timedOut:
        return .failure(Refusal("the dynamic loader did not list its libraries within \(Int(timeout)) s"))
      case .ended(let termination):
        guard termination == .exited(0) else {
          let said = lines.last.map { ": \($0.drop { $0 == "\t" })" } ?? ""
          return .failure(Refusal("the dynamic loader cannot list its libraries (\(describe(termination)))\(said)"))
        }
        return parse(lines)
      }
    }
  }

  /// The trace's lines: `\tNAME => PATH (0xADDRESS)`, `\tNAME => not found`, `\tPATH
  /// (0xADDRESS)` for a library named by its path and the loader itself, `\tlinux-vdso.so.1
  /// (0xADDRESS)` for the kernel's (no file), or `\tstatically linked`. Anything else is
  /// refused with the line: the loader said something accounts cannot check.
  public static func parse(_ lines: [String]) -> Result<[Entry], Refusal> {
    var entries: [Entry] = []
    for line in lines {
      guard line.hasPrefix("\t") else { return .failure(unexpected(line)) }
      let text = line.dropFirst()
      if text == "statically linked" { continue }
      if let arrow = text.firstRange(ofText: " => ") {
        let name = String(text[..<arrow.lowerBound])
        let rest = text[arrow.upperBound...]
        if rest == "not found" {
          entries.append(.missing(name: name))
        } else if let path = withoutAddress(rest), !name.isEmpty {
          entries.append(.found(name: name, path: path))
        } else {
          return .failure(unexpected(line))
        }
      } else if let path = withoutAddress(text) {
        // No slash: the kernel's vDSO, which is no file.
        if path.contains("/") { entries.append(.found(name: path, path: path)) }
      } else {
        return .failure(unexpected(line))
      }
    }
    return .success(entries)
  }

  /// "PATH" of "PATH (0x7f...)"; nil when the line does not end so.
  private static func withoutAddress(_ text: Substring) -> String? {
    guard text.hasSuffix(")"), let open = text.ranges(ofText: " (0x").last,
      text[open.upperBound..<text.index(before: text.endIndex)].allSatisfy(\.isHexDigit),
      open.lowerBound > text.startIndex
    else { return nil }
    return String(text[..<open.lowerBound])
  }

  private static func unexpected(_ line: String) -> Refusal {
    Refusal("the dynamic loader says something accounts cannot check: \(line.drop { $0 == "\t" })")
  }

  private static func describe(_ termination: ChildProcess.Termination) -> String {
    switch termination {
    case .exited(let status): "exit status \(status)"
    case .signaled(let signal): ChildProcess.signalName(signal)
    }
  }
}

extension AdapterFileCheck {
  /// What a passing dependency check depended on: what `VerdictCache` re-checks instead of
  /// asking the loader again.
  public struct DependencyInputs {
    /// Every library the loader named, as it was opened and checked (its `fstat`).
    public var libraries: [(path: String, status: stat)] = []
    /// Names the loader did not find, accepted because this process had loaded one of that name.
    public var loaded: [String] = []
    /// The RUNPATH and RPATH directories of the adapter and of every library, expanded.
    public var searched: [String] = []
  }

  /// Every library the dynamic loader would load with `file`, transitively, as it says: each
  /// must pass the adapter file's own rules (SafePath, the file rule, an ELF shared library for
  /// this machine) and its RUNPATH and RPATH the search directory rules. A library it does not
  /// find is refused by name (`dlopen` would fail), unless this process has loaded one of that
  /// name already, which `dlopen` then uses without searching (`isLoaded`).
  public func checkDependencies(_ file: CheckedFile, loader: String, isLoaded: (String) -> Bool) -> Refusal? {
    switch vetDependencies(file, loader: loader, isLoaded: isLoaded) {
    case .success: nil
    case .failure(let refusal): refusal
    }
  }

  /// `checkDependencies`, with what the verdict depended on when it passes.
  public func vetDependencies(_ file: CheckedFile, loader: String, isLoaded: (String) -> Bool)
    -> Result<DependencyInputs, Refusal>
  {
    let entries: [LibraryDependencies.Entry]
    switch LibraryDependencies.list(file.path, loader: loader) {
    case .success(let listed): entries = listed
    case .failure(let refusal): return .failure(refusal)
    }
    var inputs = DependencyInputs()
    inputs.searched = searchDirectories(file)
    var checked = Set<String>()
    for entry in entries {
      switch entry {
      case .missing(let name):
        guard isLoaded(name) else { return .failure(Refusal("needs \(name), which the dynamic loader does not find")) }
        inputs.loaded.append(name)
      case .found(let name, let path):
        guard checked.insert(path).inserted else { continue }
        let context = "library \(name) (\(path)): "
        guard path.hasPrefix("/") else {
          return .failure(Refusal("\(context)a relative path, opened from the current directory"))
        }
        switch open(path) {
        case .failure(let refusal): return .failure(refusal.within(context))
        case .success(let library):
          defer { library.descriptor.close() }
          if let refusal = checkLinking(library, asDependency: true) { return .failure(refusal.within(context)) }
          guard let status = try? library.descriptor.status() else {
            return .failure(Refusal("\(context)cannot stat it"))
          }
          inputs.libraries.append((path, status))
          inputs.searched += searchDirectories(library)
        }
      }
    }
    return .success(inputs)
  }

  /// The RUNPATH and RPATH entries of a checked file, `$ORIGIN` expanded: where the loader
  /// looks for the libraries it needs, so where a new file can change what it finds.
  public func searchDirectories(_ file: CheckedFile) -> [String] {
    guard let dynamic = try? file.elf.dynamic() else { return [] }
    let origin = String(file.path[..<(file.path.lastIndex(of: "/") ?? file.path.startIndex)])
    let linking = LinkingCheck(files: self, origin: origin.isEmpty ? "/" : origin)
    return [dynamic.runpath, dynamic.rpath].compactMap { $0 }.flatMap { value in
      value.split(separator: ":").compactMap { try? linking.expand(String($0), tag: "") }
    }
  }
}
