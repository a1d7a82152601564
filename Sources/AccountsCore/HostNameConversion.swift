/// Host names as a resolver looks them up: the ASCII form (IDNA's `xn--` labels) of a host a
/// user wrote in Unicode. A service of the system (libidn2's UTS #46 processing, which maps
/// decomposed, fullwidth and upper-case input as browsers and curl do), reached through this
/// port: the domain converts no host by hand.
public protocol HostNameConversion: Sendable {
  /// The ASCII form of `host` (`xn--mnchen-3ya.de` for `münchen.de`), or why it has none.
  func asciiHost(_ host: String) -> Result<String, HostNameConversionError>
}

/// Why a host has no ASCII form.
public enum HostNameConversionError: Error, Equatable, Sendable {
  /// The host is no valid international name (a character IDNA disallows...): the converter's
  /// own words.
  case invalid(String)
  /// The converter could not be used (libidn2 missing): why.
  case unavailable(String)
}
