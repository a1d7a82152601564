// A test-only interposer (LD_PRELOAD): an exit handler registered by any thread but the main
// one (OpenSSL's, registered while libcurl initialises on the thread that loads it) is
// registered, then that thread sleeps for a third of a second, as a slow machine would leave it
// in the middle of the library's initialisation. Each such registration, once the sleep is
// over, and the main thread's exit() are logged, in order, to $SLOW_ATEXIT_LOG.
//
// Built by the tests with `cc -shared -fPIC -o slow-thread-atexit.so slow-thread-atexit.c -ldl`.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void log_line(const char *line) {
  const char *path = getenv("SLOW_ATEXIT_LOG");
  if (path == NULL) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  (void)!write(fd, line, strlen(line));
  close(fd);
}

int __cxa_atexit(void (*function)(void *), void *argument, void *dso) {
  static int (*real)(void (*)(void *), void *, void *) = NULL;
  if (real == NULL) real = (int (*)(void (*)(void *), void *, void *))dlsym(RTLD_NEXT, "__cxa_atexit");
  int result = real(function, argument, dso);
  if (gettid() != getpid()) {
    struct timespec third = {0, 333 * 1000 * 1000};
    nanosleep(&third, NULL);
    log_line("thread registered an exit handler\n");
  }
  return result;
}

void exit(int status) {
  static void (*real)(int) = NULL;
  if (real == NULL) real = (void (*)(int))dlsym(RTLD_NEXT, "exit");
  if (gettid() == getpid()) log_line("main thread exits\n");
  real(status);
  _exit(status);  // not reached
}
