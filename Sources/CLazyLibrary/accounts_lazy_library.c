#include "accounts_lazy_library.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>

static void load(struct accounts_lazy_library *library) {
  /* RTLD_LAZY: the library's own calls (and its dependencies', libcurl's TLS, Kerberos and LDAP
   * among them) are bound when first made, as they are for a program that links it; RTLD_NOW
   * bound every one of their thousands of symbols first, most of the cost of libcurl's load. */
  void *handle = dlopen(library->soname, RTLD_LAZY | RTLD_LOCAL);
  if (handle == NULL) {
    snprintf(library->error_text, sizeof library->error_text, "%s (install %s)", dlerror(), library->package);
    library->error = library->error_text;
    return;
  }
  for (const struct accounts_lazy_symbol *symbol = library->symbols; symbol->name != NULL; symbol++) {
    if ((*symbol->slot = dlsym(handle, symbol->name)) == NULL) {
      snprintf(library->error_text, sizeof library->error_text, "%s lacks %s (install a newer %s)", library->soname,
               symbol->name, library->package);
      library->error = library->error_text;
      return;
    }
  }
  library->error = library->prepare != NULL ? library->prepare() : NULL;
}

/* `loaded` is read without the lock only with acquire ordering, and written under it with
 * release ordering after `error` and every slot: whoever sees it set sees them too. */
const char *accounts_lazy_load(struct accounts_lazy_library *library) {
  if (__atomic_load_n(&library->loaded, __ATOMIC_ACQUIRE)) return library->error;
  pthread_mutex_lock(&library->lock);
  if (!library->loaded) {
    load(library);
    __atomic_store_n(&library->loaded, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&library->lock);
  return library->error;
}

static void *load_on_thread(void *library) {
  accounts_lazy_load(library);
  return NULL;
}

/* The libraries whose loading was started on a thread, for accounts_lazy_settle. */
static pthread_mutex_t started_lock = PTHREAD_MUTEX_INITIALIZER;
static struct accounts_lazy_library *started[8];
static int started_count;

/* The thread blocks every signal (it inherits the mask it is created with): a signal meant for
 * the command is handled where the command expects it. When no thread can be started, the first
 * caller of accounts_lazy_load does the work as before. */
void accounts_lazy_load_in_background(struct accounts_lazy_library *library) {
  if (__atomic_load_n(&library->loaded, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&started_lock);
  int known = 0;
  for (int i = 0; i < started_count; i++) known |= started[i] == library;
  int room = started_count < (int)(sizeof started / sizeof started[0]);
  if (!known && room) started[started_count++] = library;
  pthread_mutex_unlock(&started_lock);
  if (known || !room) return;
  sigset_t all, previous;
  sigfillset(&all);
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) return;
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_t thread;
  (void)pthread_create(&thread, &attributes, load_on_thread, library);
  pthread_sigmask(SIG_SETMASK, &previous, NULL);
  pthread_attr_destroy(&attributes);
}

/* exit() runs the atexit handlers a library registered while it initialised (OpenSSL's, through
 * curl_global_init) while the thread may still be initialising it: the process waits for every
 * loading it started before it exits. */
void accounts_lazy_settle(void) {
  pthread_mutex_lock(&started_lock);
  int count = started_count;
  pthread_mutex_unlock(&started_lock);
  for (int i = 0; i < count; i++) (void)accounts_lazy_load(started[i]);
}
