#include <glib.h>
// getrandom(2) for the adapters' randomness: Swift's Glibc module does not export sys/random.h.
#include <sys/random.h>
