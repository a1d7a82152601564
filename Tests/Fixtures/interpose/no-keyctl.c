// A test-only interposer (LD_PRELOAD): syscall(2) fails with ENOSYS for add_key, keyctl and
// request_key, as in a container whose seccomp profile blocks the kernel keyring; every other
// system call goes through. The token cache must then fall back to the Secret Service, silently.
//
// Built by the tests with `cc -shared -fPIC -o no-keyctl.so no-keyctl.c -ldl`.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

long syscall(long number, ...) {
  if (number == SYS_add_key || number == SYS_keyctl || number == SYS_request_key) {
    errno = ENOSYS;
    return -1;
  }
  // Six arguments is the most a system call takes; unused ones are passed on and ignored.
  va_list list;
  va_start(list, number);
  long a1 = va_arg(list, long), a2 = va_arg(list, long), a3 = va_arg(list, long);
  long a4 = va_arg(list, long), a5 = va_arg(list, long), a6 = va_arg(list, long);
  va_end(list);
  static long (*real)(long, ...) = NULL;
  if (real == NULL) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  return real(number, a1, a2, a3, a4, a5, a6);
}
