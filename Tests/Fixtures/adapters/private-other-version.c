/* A libAccountsPrivate.so of another version: its entry answers NULL to version 1, as the
 * header says a library that does not speak the host's version does. */
#include <stdint.h>

const void *accounts_private_v1(uint32_t host_version) {
  (void)host_version;
  return 0;
}
