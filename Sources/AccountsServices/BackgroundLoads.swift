import CLazyLibrary

/// The system libraries a command started loading on threads of their own (libcurl, while
/// `request` reads its session).
public enum BackgroundLoads {
  /// Waits for them to finish: before exit(), whose handlers (OpenSSL's, registered while
  /// libcurl initialises) must not run beside an initialisation still under way.
  public static func settle() { accounts_lazy_settle() }
}
