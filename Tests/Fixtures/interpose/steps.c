// A test-only interposer (LD_PRELOAD) that lets end-to-end tests see and stop the built
// `accounts` binary between the steps of a write, so that no test hook lives in the product:
//
//   STEPS_LOG=FILE        appends "fsync PATH" and "rename FROM TO" lines, in call order
//   STEPS_STOP=WHEN:N     raise(SIGSTOP) around the Nth rename onto a file named accounts.json
//                         or config.json: WHEN is "before" (the new version is written and
//                         synced but not yet in place) or "after" (it is in place)
//   SPAWNS_LOG=FILE       appends "spawn PATH" for every posix_spawn (children it starts)
//
// Built by the tests with `cc -shared -fPIC -o steps.so steps.c -ldl`.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void log_line(const char *line) {
  const char *path = getenv("STEPS_LOG");
  if (path == NULL) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return;
  ssize_t ignored = write(fd, line, strlen(line));
  (void)ignored;
  close(fd);
}

static int ends_with(const char *text, const char *suffix) {
  size_t length = strlen(text), suffix_length = strlen(suffix);
  return length >= suffix_length && strcmp(text + length - suffix_length, suffix) == 0;
}

int fsync(int fd) {
  static int (*real)(int) = NULL;
  if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  char link[64], target[4096], line[4200];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t length = readlink(link, target, sizeof target - 1);
  target[length < 0 ? 0 : length] = 0;
  snprintf(line, sizeof line, "fsync %s\n", target);
  log_line(line);
  return real(fd);
}

int rename(const char *from, const char *to) {
  static int (*real)(const char *, const char *) = NULL;
  static int count = 0;
  if (real == NULL) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  char line[8300];
  snprintf(line, sizeof line, "rename %s %s\n", from, to);
  log_line(line);
  const char *stop = getenv("STEPS_STOP");
  int watched = ends_with(to, "/accounts.json") || ends_with(to, "/config.json");
  int when_before = stop != NULL && strncmp(stop, "before:", 7) == 0;
  int when_after = stop != NULL && strncmp(stop, "after:", 6) == 0;
  int nth = stop == NULL ? 0 : atoi(strchr(stop, ':') ? strchr(stop, ':') + 1 : "0");
  if (watched) count++;
  if (watched && when_before && count == nth) raise(SIGSTOP);
  int result = real(from, to);
  if (watched && when_after && count == nth) raise(SIGSTOP);
  return result;
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                const posix_spawnattr_t *attributes, char *const argv[], char *const envp[]) {
  static int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                     char *const[], char *const[]) = NULL;
  if (real == NULL) real = dlsym(RTLD_NEXT, "posix_spawn");
  const char *log = getenv("SPAWNS_LOG");
  if (log != NULL) {
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0) {
      char line[4200];
      int length = snprintf(line, sizeof line, "spawn %s\n", path);
      ssize_t ignored = write(fd, line, (size_t)length);
      (void)ignored;
      close(fd);
    }
  }
  return real(pid, path, actions, attributes, argv, envp);
}
