@testable import AccountsContract
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCore

/// Backend preparation: the settings and secret settings a session hands its adapter.
extension SessionFlowTests {
  /// accounts' own secret setting (lease_store_password, the Redis password of the lease store)
  /// is for the lease commands: a session never reads it from the keyring nor hands it to the
  /// adapter, unless the adapter declares a setting of that name itself, which then is its own.
  @Test(arguments: [false, true])
  func aSessionReadsLeaseStorePasswordOnlyWhenTheAdapterDeclaresIt(declared: Bool) throws {
    let world = try World(token: false)
    let name = OwnBackendSetting.leaseStorePassword
    if declared { world.host.declared = [AdapterSetting(name: name, label: "its own", isSecret: true)] }
    try ConfigStore(paths: world.tree.paths).update { $0.update("corp") { $0.secretSettings = [name] } }
    try world.store.store(secret("redis-pw"), for: .setting(name, backend: "corp"))
    _ = try world.flow.session(for: alice, prove: true, password: .rememberedOnly)
    #expect(!world.host.secretSettingNames.isEmpty)
    #expect(world.host.secretSettingNames.allSatisfy { $0 == (declared ? [name] : []) }, "\(world.host.secretSettingNames)")
  }
}
