import Foundation

/// Runs a program on a fresh pseudo-terminal, as a person at a terminal would: waits for each
/// expected text to appear (after where the previous one was seen), then types the answer. Returns everything the terminal showed (the
/// transcript, echo included) as `standardOutput`, and the program's exit status.
///
/// Python's `pty` module does the terminal work: the program gets the pty as its controlling
/// terminal, so it can open /dev/tty and switch echo off exactly as for a real user. Bounded:
/// each step and the whole run give up after `timeout` seconds. With `transcript`, what the
/// terminal showed so far is also written to that file as it comes, for a test that acts
/// beside the program while it runs (approves what it shows elsewhere).
public func runInTerminal(
  _ executable: String, _ arguments: [String], environment: [String: String],
  steps: [(expect: String, type: String)], timeout: Double = 30, transcript: String? = nil
) throws -> ProcessResult {
  let plan = try JSONSerialization.data(withJSONObject: steps.map { [$0.expect, $0.type] })
  return try runProcess(
    "/usr/bin/python3",
    ["-c", driver, String(decoding: plan, as: UTF8.self), String(timeout), transcript ?? "", executable] + arguments,
    environment: environment, timeout: timeout + 10)
}

private let driver = #"""
  import json, os, pty, select, signal, sys, time
  steps, timeout, transcript, argv = json.loads(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4:]
  pid, fd = pty.fork()
  if pid == 0:
      # A login shell blocks no signal; the test runner that started us may (SIGTSTP).
      signal.pthread_sigmask(signal.SIG_SETMASK, [])
      os.execv(argv[0], argv)
  out = b""
  deadline = time.time() + timeout
  def read_some():
      global out
      ready, _, _ = select.select([fd], [], [], 0.2)
      if not ready:
          return True
      try:
          chunk = os.read(fd, 4096)
      except OSError:  # EIO: the program closed the terminal
          return False
      out += chunk
      if transcript:
          with open(transcript, "wb") as f:
              f.write(out)
      return bool(chunk)
  seen = 0
  for expect, answer in steps:
      while expect.encode() not in out[seen:]:
          if time.time() > deadline or not read_some():
              sys.stdout.buffer.write(out)
              sys.stderr.write("never saw %r\n" % expect)
              os.kill(pid, 9)
              sys.exit(124)
      seen = out.index(expect.encode(), seen) + len(expect.encode())
      os.write(fd, answer.encode())
  while time.time() < deadline and read_some():
      pass
  if time.time() >= deadline:
      os.kill(pid, 9)
  _, status = os.waitpid(pid, 0)
  sys.stdout.buffer.write(out)
  sys.exit(os.waitstatus_to_exitcode(status))
  """#
