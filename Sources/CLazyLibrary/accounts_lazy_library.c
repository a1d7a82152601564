#include "accounts_lazy_library.h"

#include <dlfcn.h>
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
