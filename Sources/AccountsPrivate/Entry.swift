import CAccountsPrivate
import SecretService

// The one exported symbol of libAccountsPrivate.so, and the table it hands out: the calls of
// the Secret Service (SecretService/SecretCalls.swift), typed by accounts_private.h, so the compiler checks each
// against the header the command line reads them through. Nothing else is exported (the
// linker's version script, exports.map).

/// The table, or NULL for an executable that speaks another version of accounts_private.h.
@_cdecl("accounts_private_v1")
public func accountsPrivateV1(_ hostVersion: UInt32) -> UnsafePointer<accounts_private>? {
  hostVersion == ACCOUNTS_PRIVATE_VERSION ? table.pointer : nil
}

/// Built once, never freed: the executable keeps its address.
private let table = Table()

private struct Table: @unchecked Sendable {
  let pointer: UnsafePointer<accounts_private>

  init() {
    let table = UnsafeMutablePointer<accounts_private>.allocate(capacity: 1)
    table.initialize(
      to: accounts_private(
        version: ACCOUNTS_PRIVATE_VERSION, size: UInt32(MemoryLayout<accounts_private>.size),
        secret_open: openSecretStore, secret_store: storeSecret, secret_lookup: lookUpSecret,
        secret_lookup_all: lookUpAllSecrets, secret_kinds: secretKinds, secret_delete: deleteSecret,
        secret_delete_all: deleteAccountSecrets, secret_delete_settings: deleteBackendSettings,
        secret_provider: secretProvider, secret_lock: lockCollection, secret_report: reportSecretService,
        secret_abandoned: secretCallAbandoned,
        release: releaseSecretMemory))
    pointer = UnsafePointer(table)
  }
}
