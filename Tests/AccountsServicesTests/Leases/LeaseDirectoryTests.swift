@testable import AccountsServices
@testable import AccountsCore
import AccountsSystem
import Foundation
import TestSupport
import Testing

extension LocalLeaseTests {
  /// The lease directory is the user's own: planted directories and files are refused, not used.
  @Suite(.blocking, .withoutSpawnsElsewhere) struct LeaseDirectoryTests {
    /// Every refusal is a FileError.refused naming the path, and nothing was leased.
    private func expectRefused(
      _ sandbox: LeaseSandbox, _ path: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      do {
        _ = try sandbox.store().take([qa(1)])
        Issue.record("the lease was granted", sourceLocation: sourceLocation)
      } catch let error as FileError {
        guard case .refused(let refused, _, _) = error else {
          Issue.record("\(error)", sourceLocation: sourceLocation)
          return
        }
        #expect(refused == path, sourceLocation: sourceLocation)
      } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
      }
    }

    @Test func theDirectoryIsCreatedPrivate() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      _ = try sandbox.store().take([qa(1)], ttl: 5)
      var status = stat()
      #expect(lstat(sandbox.directory, &status) == 0 && status.st_mode & 0o7777 == 0o700)
      for name in try FileManager.default.contentsOfDirectory(atPath: sandbox.directory) {
        #expect(lstat(sandbox.directory + "/" + name, &status) == 0 && status.st_mode & 0o7777 == 0o600, "\(name)")
      }
    }

    @Test func aSymbolicLinkInPlaceOfTheDirectoryIsRefused() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      mkdir(sandbox.root + "/elsewhere", 0o700)
      symlink(sandbox.root + "/elsewhere", sandbox.directory)
      expectRefused(sandbox, sandbox.directory)
      #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/elsewhere") == [])
    }

    @Test func aGroupOrWorldWritableDirectoryIsRefused() throws {
      for mode: mode_t in [0o770, 0o702, 0o777] {
        let sandbox = try LeaseSandbox()
        defer { sandbox.remove() }
        mkdir(sandbox.directory, 0o700)
        chmod(sandbox.directory, mode)
        expectRefused(sandbox, sandbox.directory)
      }
    }

    @Test func aDirectoryOfAnotherUserIsRefused() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      mkdir(sandbox.directory, 0o700)
      let other = LocalLeaseStore(directory: sandbox.directory, userID: getuid() + 1)
      #expect(throws: FileError.self) { _ = try other.take([qa(1)]) }
      #expect(throws: FileError.self) { _ = try other.leases(now: leaseNow) }
    }

    @Test func aWorldWritableDirectoryAboveIsRefused() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      chmod(sandbox.root, 0o777)
      #expect(throws: FileError.self) { _ = try sandbox.store().take([qa(1)]) }
      #expect(access(sandbox.directory, F_OK) != 0)  // nothing was created there first
    }

    @Test func plantedFilesAreRefused() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      _ = try store.take([qa(1)])  // the directory and qa1's files exist
      let files = store.files.files(of: qa(1))
      // A lock file that is a link elsewhere, a FIFO as a record, a record writable by others.
      unlink(files.lock)
      symlink(sandbox.root + "/target", files.lock)
      expectRefused(sandbox, files.lock)
      unlink(files.lock)
      unlink(files.record)
      mkfifo(files.record, 0o600)
      expectRefused(sandbox, files.record)
      unlink(files.record)
      _ = try store.take([qa(1)], ttl: 5)
      chmod(files.record, 0o622)
      expectRefused(sandbox, files.record)
      #expect(throws: FileError.self) { _ = try store.leases(now: leaseNow) }
    }

    /// A record copied or planted into another account's file: neither makes that account
    /// busy behind `leases`' back (which never showed it) nor is taken as its record.
    @Test func aRecordInAnotherAccountsFileIsReportedLikeAMalformedOne() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      _ = try store.take([qa(2)], ttl: 60)
      let files = store.files
      try FileManager.default.copyItem(atPath: files.files(of: qa(2)).record, toPath: files.files(of: qa(1)).record)
      for attempt in [{ _ = try store.take([qa(1)]) }, { _ = try store.leases(now: leaseNow) }] {
        #expect {
          try attempt()
        } throws: { error in
          guard case .malformed(let path, let detail, _) = error as? FileError else { return false }
          return path == files.files(of: qa(1)).record && detail.contains("qa2@corp")
        }
      }
    }

    /// The lease id and the holder's host reach messages, a terminal and `accounts release`:
    /// a record whose id is no lease id, or whose host holds an escape sequence, is refused
    /// like a malformed one.
    @Test func aRecordWithAHostileIdOrHostIsRefused() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let grant = try #require(try store.take([qa(1)], ttl: 60))
      let path = store.files.files(of: qa(1)).record
      let original = try String(contentsOfFile: path, encoding: .utf8)
      for (from, to) in [
        (grant.lease, "x; rm -rf ~"), ("\"host\":\"test-host\"", "\"host\":\"evil\\u001b[2J\""),
        ("\"host\":\"test-host\"", "\"host\":\"\""),
      ] {
        let planted = original.replacingOccurrences(of: from, with: to)
        #expect(planted != original, "\(from)")
        try Data(planted.utf8).write(to: URL(fileURLWithPath: path))
        #expect {
          try store.leases(now: leaseNow)
        } throws: { error in
          guard case .malformed(let file, _, _) = error as? FileError else { return false }
          return file == path
        }
      }
    }

    @Test func aMalformedRecordIsReportedNotTakenOver() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      _ = try store.take([qa(1)], ttl: 60)
      let record = store.files.files(of: qa(1)).record
      try Data("{\"version\":1,\"lease\":".utf8).write(to: URL(fileURLWithPath: record))
      #expect(throws: FileError.self) { _ = try store.take([qa(1)]) }
    }
  }
}
