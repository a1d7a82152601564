// A test-only interposer (LD_PRELOAD) that stops the built `accounts` binary just before it
// reads secrets from the Secret Service, so that an end-to-end test can delete the items it
// found meanwhile (a logout racing the read), without a test hook in the product:
//
//   READS_STOP=1   raise(SIGSTOP) before the first GetSecret or GetSecrets call that libsecret
//                  sends (the read after the search, whichever libsecret call makes it)
//
// libsecret sends every Secret Service method through g_dbus_proxy_call, which this wraps.
// Built by the tests with `cc -shared -fPIC -o reads.so reads.c -ldl`.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

typedef void (*proxy_call_function)(void *, const char *, void *, int, int, void *, void *, void *);

void g_dbus_proxy_call(void *proxy, const char *method, void *parameters, int flags, int timeout,
                       void *cancellable, void *callback, void *user_data) {
  static proxy_call_function real = NULL;
  static int stopped = 0;
  if (real == NULL) {
    // accounts dlopens libsecret (and GIO with it) RTLD_LOCAL: not in the global scope that
    // RTLD_NEXT searches, so GIO is asked for by name (it is loaded: libsecret called this).
    void *gio = dlopen("libgio-2.0.so.0", RTLD_LAZY | RTLD_NOLOAD);
    real = (proxy_call_function)dlsym(gio != NULL ? gio : RTLD_NEXT, "g_dbus_proxy_call");
  }
  int read = strcmp(method, "GetSecret") == 0 || strcmp(method, "GetSecrets") == 0;
  if (read && !stopped && getenv("READS_STOP") != NULL) {
    stopped = 1;
    raise(SIGSTOP);
  }
  real(proxy, method, parameters, flags, timeout, cancellable, callback, user_data);
}
