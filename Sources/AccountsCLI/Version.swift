// Generated from VERSION by scripts/generate; do not edit (a test fails when they differ).
extension AccountsCommandLine {
  /// The version (--version, the man pages' .TH, the package): VERSION's first line.
  public static let version = "0.1.0"
  /// The release date (the man pages' .TH, the package's changelog): VERSION's second line.
  public static let releaseDate = "2026-11-26"
}
