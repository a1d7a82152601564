/*
 * A system library loaded with dlopen the first time a command needs it (libgcrypt, libcurl,
 * hiredis): most commands need none of them, and each costs its loading time in every process
 * that links it. One helper for all three: the library, the symbols to fill, and an optional
 * set-up step, run once per process, thread-safe.
 */
#ifndef ACCOUNTS_LAZY_LIBRARY_H
#define ACCOUNTS_LAZY_LIBRARY_H

#include <pthread.h>

/** A symbol to look up and where its address goes. A list of them ends with {NULL, NULL}. */
struct accounts_lazy_symbol {
  const char *name;
  void **slot;
};

struct accounts_lazy_library {
  /** What dlopen loads, e.g. "libgcrypt.so.20". */
  const char *soname;
  /** The Debian package that installs it, named in the error when it is missing. */
  const char *package;
  const struct accounts_lazy_symbol *symbols;
  /** Run once after every symbol is found (a library's global initialisation): NULL when
   *  ready, else why not (a static string). May be NULL. */
  const char *(*prepare)(void);

  pthread_mutex_t lock;
  int loaded;
  const char *error;
  char error_text[512];
};

#define ACCOUNTS_LAZY_LIBRARY(soname, package, symbols, prepare) \
  { (soname), (package), (symbols), (prepare), PTHREAD_MUTEX_INITIALIZER, 0, NULL, {0} }

/** Loads the library the first time (the first caller does the work; the others wait for it):
 *  NULL when every symbol is filled in and `prepare` succeeded, else why not, the same text
 *  on every later call. RTLD_LOCAL: the library's symbols stay out of everyone else's way;
 *  RTLD_LAZY: its calls are bound when first made. */
const char *accounts_lazy_load(struct accounts_lazy_library *library);

/** Starts loading the library on a thread of its own and returns at once: a command that will
 *  need it soon overlaps the loading with its other work. A later accounts_lazy_load waits for
 *  that thread's result. Does nothing when the library is loaded already. */
void accounts_lazy_load_in_background(struct accounts_lazy_library *library);

/** Waits until every loading started by accounts_lazy_load_in_background has ended (or does it
 *  here): call it before exit(), whose handlers must not run beside a library's initialisation. */
void accounts_lazy_settle(void);

#endif
