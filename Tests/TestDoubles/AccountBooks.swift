import AccountsContract
import AccountsCore

extension AccountBook {
  /// When the accounts of `named` were added.
  public static let addedAt = Timestamp(secondsSince1970: 1_800_000_000)

  /// A book of the accounts `names` ("USER@BACKEND", the backend after the last @), with
  /// `autoLogin` in the slot.
  public static func named(_ names: [String], autoLogin: AccountID? = nil) throws -> AccountBook {
    let accounts = names.map { name in
      let at = name.lastIndex(of: "@")!
      let id = AccountID(user: String(name[..<at]), backend: String(name[name.index(after: at)...]))
      return Account(id: id, addedAt: addedAt)
    }
    return try AccountBook(accounts: accounts, autoLogin: autoLogin, previousAutoLogin: nil)
  }
}
