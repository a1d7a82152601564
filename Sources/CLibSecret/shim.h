// The C side of the SecretService module: libsecret's headers, plus two helpers plainer in C
// than in Swift (both make GLib hash tables); everything else is called from Swift directly.
#ifndef ACCOUNTS_CLIBSECRET_SHIM_H
#define ACCOUNTS_CLIBSECRET_SHIM_H

// The D-Bus-path calls (secret-paths.h: search, read and unlock by object path, without a proxy
// object per item or collection) are stable since libsecret 0.7 but still behind this define.
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>

/// The schema every accounts item uses (SPEC §2), built from its name and its string attributes
/// (NULL-terminated), which Swift's `SecretSchema` (AccountsSystem) writes for both Secret
/// Service clients. libsecret copies both; the schema is built once and never freed.
static inline const SecretSchema *accounts_secret_schema_new(const char *name, const char *const *attributes) {
  GHashTable *types = g_hash_table_new(g_str_hash, g_str_equal);
  for (; *attributes != NULL; attributes++) {
    g_hash_table_insert(types, (gpointer)*attributes, GINT_TO_POINTER(SECRET_SCHEMA_ATTRIBUTE_STRING));
  }
  SecretSchema *schema = secret_schema_newv(name, SECRET_SCHEMA_NONE, types);
  g_hash_table_unref(types);
  return schema;
}

/// A string-to-string hash table that owns (and frees) its keys and values, as libsecret's
/// attribute tables are.
static inline GHashTable *accounts_attributes_new(void) {
  return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

#endif
