// The kernel's key management calls, which glibc does not wrap (libkeyutils does, and accounts
// does not depend on it): syscall(2) is variadic, which Swift cannot call, so each call gets a
// typed inline wrapper here. And sem_clockwait, which glibc declares only under _GNU_SOURCE
// (Swift's Glibc module is built without it). And getrandom(2), whose sys/random.h Swift's Glibc
// module does not export. Nothing else belongs in this header.
#ifndef ACCOUNTS_SYSTEM_H
#define ACCOUNTS_SYSTEM_H

#include <stdint.h>
#include <stddef.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <semaphore.h>
#include <sys/random.h>
#include <time.h>

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

#endif
