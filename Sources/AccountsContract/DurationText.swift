/// How a length of time reads in messages, written once for every command, the adapter host and
/// the library: "45 s", "2 h 30 min", "0.5 s".
public enum DurationText {
  /// A span in its largest units, rounded down (a token's lifetime): "45 s", "59 min", "1 h",
  /// "2 h 30 min", "3 d".
  public static func span(seconds: Int64) -> String {
    switch seconds {
    case ..<60: "\(seconds) s"
    case ..<3600: "\(seconds / 60) min"
    case ..<86400:
      seconds % 3600 >= 60 ? "\(seconds / 3600) h \(seconds % 3600 / 60) min" : "\(seconds / 3600) h"
    default: "\(seconds / 86400) d"
    }
  }

  /// Seconds to a tenth (a timeout): "1 s", "0.5 s".
  public static func seconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\((seconds * 10).rounded() / 10) s"
  }

  /// Seconds with every digit they have (a deadline the user may have set to the millisecond):
  /// "5 s", "0.25 s".
  public static func seconds(exactly seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
  }

  /// Milliseconds as seconds with every digit they have: "30 s", "1.5 s", "0.001 s".
  public static func seconds(milliseconds: Int64) -> String {
    seconds(exactly: Double(milliseconds) / 1000)
  }
}
