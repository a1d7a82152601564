/*
 * planted.c: a library someone else could plant where an adapter's RUNPATH, RPATH, DT_NEEDED
 * or filter entries point. Its constructor creates the file SENTINEL, so a test can tell
 * whether any code of it ran: the host must refuse the adapter before dlopen, not after.
 *
 *     cc -shared -fPIC -DSENTINEL='"/tmp/ran"' -o libplanted.so planted.c
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <unistd.h>

#ifndef SENTINEL
#error "define SENTINEL"
#endif

__attribute__((constructor)) static void planted(void) {
  int descriptor = open(SENTINEL, O_WRONLY | O_CREAT, 0644);
  if (descriptor >= 0) close(descriptor);
}

int planted_value(void) { return 42; }
