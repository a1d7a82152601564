import Foundation

/// The test-only LD_PRELOAD library of Tests/Fixtures/interpose/steps.c, built once per test
/// process: it logs the built binary's fsync and rename calls and can stop it (SIGSTOP) before
/// or after the Nth rename of the index or the config, so a test can kill it, race it or fill
/// its disk between two steps without a test hook in the product.
public enum Interposer {
  /// The path of the built library.
  public static let path: String = build("steps")

  /// Tests/Fixtures/interpose/no-keyctl.c built: the kernel keyring's system calls fail with
  /// ENOSYS, as in a container that blocks them.
  public static let withoutKernelKeyring: String = build("no-keyctl")

  /// Tests/Fixtures/interpose/keeper-stop.c built: a lease keeper stops itself (SIGSTOP) as it
  /// starts, for the test to resume.
  public static let stoppingLeaseKeepers: String = build("keeper-stop")

  /// Tests/Fixtures/interpose/keeper-no-fork.c built: fork fails in a lease keeper, which so
  /// never runs.
  public static let failingLeaseKeeperForks: String = build("keeper-no-fork")

  /// Tests/Fixtures/interpose/slow-thread-atexit.c built: a thread that registers an exit
  /// handler then sleeps a third of a second; it logs that and the main thread's exit().
  public static let slowThreadExitHandlers: String = build("slow-thread-atexit")

  /// Tests/Fixtures/interpose/NAME.c built into a library in this test process's directory.
  public static func build(_ name: String) -> String {
    let directory = NSTemporaryDirectory() + "accounts-interpose-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let output = directory + "/\(name).so"
    let source = PackagePaths.root.appendingPathComponent("Tests/Fixtures/interpose/\(name).c").path
    let result = try? runProcess(
      "/usr/bin/cc", ["-std=c11", "-Wall", "-Werror", "-shared", "-fPIC", "-o", output, source, "-ldl"],
      environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
    precondition(result?.status == 0, "cannot build the interposer \(name): \(String(describing: result))")
    return output
  }

  /// Environment variables that load the interposer, logging to `log` and stopping as `stop`
  /// says ("before:N" or "after:N").
  public static func environment(log: String? = nil, stop: String? = nil) -> [String: String] {
    var variables = ["LD_PRELOAD": path]
    if let log { variables["STEPS_LOG"] = log }
    if let stop { variables["STEPS_STOP"] = stop }
    return variables
  }
}
