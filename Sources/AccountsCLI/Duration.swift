/// "45 s", "59 min", "1 h", "2 h 30 min", "3 d"
enum Duration {
  static func text(seconds: Int64) -> String {
    switch seconds {
    case ..<60: "\(seconds) s"
    case ..<3600: "\(seconds / 60) min"
    case ..<86400:
      seconds % 3600 >= 60 ? "\(seconds / 3600) h \(seconds % 3600 / 60) min" : "\(seconds / 3600) h"
    default: "\(seconds / 86400) d"
    }
  }
}
