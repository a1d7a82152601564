// A test-only interposer (LD_PRELOAD): fork(2) fails with EAGAIN in a lease keeper (`accounts
// __lease-keeper`), as when a machine runs out of processes, so the keeper never runs. Every
// other process it is loaded into (accounts itself, the command a lease runs) forks as usual.
//
// Built by the tests with `cc -shared -fPIC -o keeper-no-fork.so keeper-no-fork.c -ldl`.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int is_keeper(void) {
  static const char keeper[] = "accounts\0__lease-keeper";  // argv, NUL-separated
  char cmdline[sizeof keeper + 1];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t length = read(fd, cmdline, sizeof cmdline);
  close(fd);
  return length == (ssize_t)sizeof keeper && memcmp(cmdline, keeper, sizeof keeper) == 0;
}

pid_t fork(void) {
  if (is_keeper()) {
    errno = EAGAIN;
    return -1;
  }
  static pid_t (*real)(void) = NULL;
  if (real == NULL) real = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
  return real();
}
