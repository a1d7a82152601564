// The kernel's key management calls, which glibc does not wrap (libkeyutils does, and accounts
// does not depend on it): syscall(2) is variadic, which Swift cannot call, so each call gets a
// typed inline wrapper here. And sem_clockwait, which glibc declares only under _GNU_SOURCE
// (Swift's Glibc module is built without it). And getrandom(2), whose sys/random.h Swift's Glibc
// module does not export. And the open file description locks (F_OFD_*), which glibc declares
// only under _GNU_SOURCE and whose `struct flock` Swift confuses with flock(2). And pipe2(2)
// and close_range(2), which the Glibc module does not export. And prctl(2)'s parent-death
// signal: prctl is variadic. Nothing else belongs in this header.
#ifndef ACCOUNTS_SYSTEM_H
#define ACCOUNTS_SYSTEM_H

#include <stdint.h>
#include <stddef.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <semaphore.h>
#include <sys/random.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>

#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#define F_OFD_SETLKW 38
#endif

/// add_key(2): a key of `type` named `description` with `payload` in `keyring`; its serial or -1.
static inline int32_t accounts_add_key(
    const char *type, const char *description, const void *payload, size_t length, int32_t keyring) {
  return (int32_t)syscall(SYS_add_key, type, description, payload, length, keyring);
}

/// keyctl(2) with up to four integer arguments; -1 and errno on failure.
static inline long accounts_keyctl(
    int operation, unsigned long argument2, unsigned long argument3, unsigned long argument4,
    unsigned long argument5) {
  return syscall(SYS_keyctl, operation, argument2, argument3, argument4, argument5);
}

/// sem_clockwait(3) (glibc 2.30): waits on `semaphore` until `until` on the monotonic clock, so
/// that a change of the wall clock moves no deadline; 0, or -1 and errno (ETIMEDOUT, EINTR).
int sem_clockwait(sem_t *semaphore, clockid_t clock, const struct timespec *until);
static inline int accounts_semaphore_wait_monotonic(sem_t *semaphore, const struct timespec *until) {
  return sem_clockwait(semaphore, CLOCK_MONOTONIC, until);
}

/// getrandom(2) from the kernel's pool, no flags: the number of bytes written, or -1 and errno.
static inline ssize_t accounts_getrandom(void *buffer, size_t length) {
  return getrandom(buffer, length, 0);
}

/// fcntl(2) with an open file description lock over `length` bytes from `start` (0: to the end
/// of the file, however long it grows): `command` is F_OFD_SETLK, F_OFD_SETLKW or F_OFD_GETLK,
/// `*type` F_WRLCK, F_RDLCK or F_UNLCK. After F_OFD_GETLK, `*type` is F_UNLCK when nobody
/// else's lock would conflict. 0, or -1 and errno.
static inline int accounts_open_file_lock(int descriptor, int command, short *type, off_t start, off_t length) {
  struct flock lock = {0};  // l_pid must be 0 for F_OFD_*
  lock.l_type = *type;
  lock.l_whence = SEEK_SET;
  lock.l_start = start;
  lock.l_len = length;
  int result = fcntl(descriptor, command, &lock);
  *type = lock.l_type;
  return result;
}

/// pipe2(2) with O_CLOEXEC: both ends close-on-exec from the start, so no child another thread
/// starts meanwhile inherits them. 0, or -1 and errno.
static inline int accounts_pipe_cloexec(int ends[2]) { return (int)syscall(SYS_pipe2, ends, O_CLOEXEC); }

/// Closes every descriptor from `first` up (close_range(2), Linux 5.9; before it, one by one up
/// to the soft limit). 0, or -1 and errno.
static inline int accounts_close_from(unsigned int first) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, first, ~0U, 0) == 0) return 0;
#endif
  long limit = sysconf(_SC_OPEN_MAX);
  for (long descriptor = first; descriptor < (limit > 0 ? limit : 1024); descriptor++) close((int)descriptor);
  return 0;
}

/// Has the kernel send this process SIGKILL when the thread that started it ends
/// (PR_SET_PDEATHSIG), then checks that `parent` still is its parent: a parent that ended
/// before the call sends nothing. 1 when it is, 0 when it is not (or the call failed).
static inline int accounts_end_with_parent(pid_t parent) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) return 0;
  return getppid() == parent;
}

#endif
