#include "accounts_idn.h"

#include <accounts_lazy_library.h>
#include <idn2.h>

/* Typed by idn2.h's own declarations, so the compiler checks every call. */
static struct {
  __typeof__(idn2_to_ascii_8z) *to_ascii_8z;
  __typeof__(idn2_strerror) *strerror;
  __typeof__(idn2_free) *free;
} idn2;

#define SYMBOL(field) {"idn2_" #field, (void **)&idn2.field}

static const struct accounts_lazy_symbol symbols[] = {SYMBOL(to_ascii_8z), SYMBOL(strerror), SYMBOL(free), {NULL, NULL}};

static struct accounts_lazy_library library = ACCOUNTS_LAZY_LIBRARY("libidn2.so.0", "libidn2-0", symbols, NULL);

const char *accounts_idn_load(void) { return accounts_lazy_load(&library); }

int accounts_idn_to_ascii(const char *host, char **ascii) {
  *ascii = NULL;
  return idn2.to_ascii_8z(host, ascii, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
}

const char *accounts_idn_strerror(int code) { return idn2.strerror(code); }

void accounts_idn_free(char *text) { idn2.free(text); }
