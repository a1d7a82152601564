import AccountsSystem
internal import CLibSecret

/// The accounts schema in libsecret's form (its C `SecretSchema`), built once from AccountsSystem's
/// `SecretSchema`, where its name and attributes are written for both Secret Service clients.
nonisolated(unsafe) let accountsSchema: UnsafePointer<CLibSecret.SecretSchema> = {
  var names: [UnsafePointer<CChar>?] = AccountsSystem.SecretSchema.attributeNames.map { UnsafePointer(strdup($0)) }
  names.append(nil)
  defer { for name in names { free(UnsafeMutableRawPointer(mutating: name)) } }
  return accounts_secret_schema_new(AccountsSystem.SecretSchema.name, names)
}()
