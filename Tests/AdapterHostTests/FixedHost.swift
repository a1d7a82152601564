import CAccountsAdapter

@testable import AdapterHost

/// A host whose clock stands at 2017-12-09 13:39:39 UTC (local time = UTC) and whose random
/// bytes spell the signed vector's rand, "12dwfhdy487rSels"; digests are the real libgcrypt ones.
nonisolated(unsafe) let fixedHost: UnsafePointer<acc_host> = {
  let host = UnsafeMutablePointer<acc_host>.allocate(capacity: 1)
  host.initialize(to: acc_host(
    size: UInt32(MemoryLayout<acc_host>.size),
    now: { 1_512_826_779 },
    local_utc_offset: { _ in 0 },
    random_bytes: { buffer, length in
      let spelled: [UInt8] = [1, 2, 39, 58, 41, 43, 39, 60, 4, 8, 7, 53, 28, 40, 47, 54]
      for index in 0..<length { buffer![index] = spelled[index % spelled.count] }
    },
    digest: { HostServiceTable.digest($0, $1, $2, $3, $4) },
    hmac: { HostServiceTable.hmac($0, $1, $2, $3, $4, $5, $6) },
    log: { _, _ in }))
  return UnsafePointer(host)
}()
