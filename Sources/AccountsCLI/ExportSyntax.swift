import AccountsServices

/// The shells `accounts env` writes for, and how each one quotes a value so that `eval` (or
/// fish's `source`) gives back the exact bytes and runs nothing: no `$(...)`, backquote, glob,
/// `~` or newline in a value is ever seen by the shell outside single quotes.
enum ExportSyntax: String, CaseIterable, Sendable {
  /// `export NAME='...'`, a quote written `'\''`; sh, dash and ksh read it too.
  case bash
  /// As bash: zsh's single quotes are as literal (RC_QUOTES only adds `''`, unused here).
  case zsh
  /// `set -gx NAME '...'`: fish's single quotes take `\\` and `\'` as escapes, nothing else.
  case fish

  /// The syntax for a login shell path such as `$SHELL`: its last component when it names one
  /// of the three, else bash's, which every POSIX shell reads.
  static func forShell(path: String?) -> ExportSyntax {
    guard let path, let name = path.split(separator: "/").last else { return .bash }
    return ExportSyntax(rawValue: String(name)) ?? .bash
  }

  /// Appends a line that sets NAME to VALUE and exports it.
  func appendExport(_ name: String, _ value: some Collection<UInt8>, to out: inout [UInt8]) {
    out.append(contentsOf: (self == .fish ? "set -gx \(name) " : "export \(name)=").utf8)
    appendQuoted(value, to: &out)
    out.append(10)
  }

  /// Appends a line that removes NAME from the shell and its environment. fish's `set -e`
  /// fails (status 4) when NAME is not set, and a later `set -gx` keeps that status, which
  /// would become `source`'s: `or true` makes a missing variable no failure.
  func appendUnset(_ name: String, to out: inout [UInt8]) {
    out.append(contentsOf: (self == .fish ? "set -e \(name); or true\n" : "unset \(name)\n").utf8)
  }

  /// Appends VALUE in single quotes, byte by byte (a secret is never made into a String).
  func appendQuoted(_ value: some Collection<UInt8>, to out: inout [UInt8]) {
    let quote: UInt8 = 39
    let backslash: UInt8 = 92
    out.append(quote)
    for byte in value {
      switch (self, byte) {
      case (.fish, quote), (.fish, backslash): out.append(contentsOf: [backslash, byte])
      case (_, quote): out.append(contentsOf: [quote, backslash, quote, quote])
      default: out.append(byte)
      }
    }
    out.append(quote)
  }
}

extension SessionVariables {
  /// The lines that set the variables in `syntax`'s shell: the account, the user id (or its
  /// removal), the removal of the token files (a shell has none of its own), then the token,
  /// so that the last command, and with it the status of `eval` or fish's `source`, succeeds.
  func appendExports(_ syntax: ExportSyntax, to out: inout [UInt8]) {
    syntax.appendExport(Self.accountName, account.utf8, to: &out)
    if let userID {
      syntax.appendExport(Self.userIDName, userID.utf8, to: &out)
    } else {
      syntax.appendUnset(Self.userIDName, to: &out)
    }
    syntax.appendUnset(TokenFile.variable, to: &out)
    syntax.appendUnset(TokenFile.listVariable, to: &out)
    token.withUnsafeBytes { syntax.appendExport(Self.tokenName, $0, to: &out) }
  }
}
