// The C side of the SecretService module: libsecret's headers, plus what Swift cannot spell
// itself. SecretSchema ends in a fixed-size C array, which Swift imports as a 32-tuple, so the
// schema is written here; everything else is called from Swift directly.
#ifndef ACCOUNTS_CLIBSECRET_SHIM_H
#define ACCOUNTS_CLIBSECRET_SHIM_H

// The D-Bus-path calls (secret-paths.h: search, read and unlock by object path, without a proxy
// object per item or collection) are stable since libsecret 0.7 but still behind this define.
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>

/// The one schema every accounts item uses: attributes backend, account and kind (SPEC §2),
/// which every lookup uses. Password items also carry service ("accounts:BACKEND") and username,
/// the attributes other tools (python keyring, secret-tool users) look items up by; they are
/// declared so that libsecret accepts them. The schema name is stored with each item as
/// `xdg:schema` and matched on every search.
static inline const SecretSchema *accounts_secret_schema(void) {
  static const SecretSchema schema = {
    "io.accounts.Secret",
    SECRET_SCHEMA_NONE,
    {
      { "backend", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "account", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "service", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "username", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    },
  };
  return &schema;
}

/// A string-to-string hash table that owns (and frees) its keys and values, as libsecret's
/// attribute tables are.
static inline GHashTable *accounts_attributes_new(void) {
  return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

#endif
