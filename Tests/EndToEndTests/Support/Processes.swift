import Foundation
import TestSupport

/// Polls `condition` every 20 ms for at most `seconds`.
func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if condition() { return true }
    usleep(20_000)
  }
  return condition()
}

/// The state letter of a process from /proc/PID/stat ("R", "S", "T" for stopped, ...).
func processState(_ pid: pid_t) -> String? {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return nil }
  return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").first.map(String.init)
}

/// Whether process `pid` is gone (or a zombie nobody reaped yet).
func processIsGone(_ pid: pid_t) -> Bool {
  guard let state = processState(pid) else { return true }
  return state == "Z"
}

/// A file of /proc, read to its end (Foundation's readers stop after its first page); "" when
/// it cannot be read.
func procFile(_ path: String) -> String {
  guard let file = FileHandle(forReadingAtPath: path) else { return "" }
  defer { try? file.close() }
  return String(decoding: readAll(from: file.fileDescriptor), as: UTF8.self)
}
