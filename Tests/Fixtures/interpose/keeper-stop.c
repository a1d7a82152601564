// A test-only interposer (LD_PRELOAD): a lease keeper (`accounts __lease-keeper`) stops itself
// (SIGSTOP) as it starts, before it has read its order, as a keeper slow to start on a busy
// machine would be late; the test resumes it (SIGCONT) when it likes. Every other process it is
// loaded into (accounts itself, the command a lease runs) goes on untouched.
//
// Built by the tests with `cc -shared -fPIC -o keeper-stop.so keeper-stop.c -ldl`.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void stop_a_starting_keeper(void) {
  static const char keeper[] = "accounts\0__lease-keeper";  // argv, NUL-separated
  char cmdline[sizeof keeper + 1];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t length = read(fd, cmdline, sizeof cmdline);
  close(fd);
  if (length == (ssize_t)sizeof keeper && memcmp(cmdline, keeper, sizeof keeper) == 0) raise(SIGSTOP);
}
