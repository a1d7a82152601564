import AccountsCore
import CIDN

/// `HostNameConversion` by libidn2: UTS #46 non-transitional ToASCII of the host's NFC form,
/// as curl and browsers resolve it. libidn2 is loaded on the first conversion (CIDN), so a
/// command that meets no non-ASCII host never loads it.
public struct IDNAHostNames: HostNameConversion {
  public init() {}

  public func asciiHost(_ host: String) -> Result<String, HostNameConversionError> {
    if let why = accounts_idn_load() { return .failure(.unavailable(String(cString: why))) }
    var ascii: UnsafeMutablePointer<CChar>?
    let code = accounts_idn_to_ascii(host, &ascii)
    guard code == 0, let ascii else { return .failure(.invalid(String(cString: accounts_idn_strerror(code)))) }
    defer { accounts_idn_free(ascii) }
    return .success(String(cString: ascii))
  }
}
