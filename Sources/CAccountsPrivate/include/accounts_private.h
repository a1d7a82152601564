/*
 * accounts_private.h: the one door between the `accounts` executable and its private library
 * (libAccountsPrivate.so: the Secret Service through libsecret, and the adapter host).
 *
 * The library exports one symbol, ACCOUNTS_PRIVATE_ENTRY_NAME, of type accounts_private_entry.
 * The executable dlopens the library the first time a command needs a secret or an adapter
 * (so `list` and completion never load libsecret, GLib or libcurl), calls the entry with
 * ACCOUNTS_PRIVATE_VERSION and gets a table of the library's calls, or NULL when the library
 * speaks another version. Both sides are compiled against this header, so every signature is
 * checked by the compiler: nothing is cast by hand.
 *
 * VERSIONING. A change to an existing field bumps ACCOUNTS_PRIVATE_VERSION; a new call is
 * added at the end of the table, whose `size` says how much of it the library filled in.
 * Executable and library are built and installed together, so the loader refuses any other
 * version or a table smaller than its own.
 *
 * STRINGS are NUL-terminated UTF-8. Secrets are bytes and a length.
 *
 * ERRORS. A call that fails returns -1 (or NULL) and sets `*error` to a JSON text
 * (SecretStoreError.wireText for the secret_ calls, AdapterError.wireText for the adapter_
 * calls). Success returns 0 (secret_lookup: 1 found, 0 not found).
 *
 * MEMORY. What the library returns (answers, secrets, error texts) is the library's: hand it
 * back with `release(pointer, length)`, which wipes `length` bytes (a NUL-terminated string
 * when length is -1) and frees it.
 *
 * THREADS. Every call may be made from any thread, several at once.
 */
#ifndef ACCOUNTS_PRIVATE_H
#define ACCOUNTS_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <accounts_adapter.h>

#pragma clang assume_nonnull begin

/** The version of this table; the entry returns NULL for any other. */
static const uint32_t ACCOUNTS_PRIVATE_VERSION = 1;
/** The one exported symbol, for dlsym. */
#define ACCOUNTS_PRIVATE_ENTRY_NAME "accounts_private_v1"

/** A store handle (secret_open): one per process, never freed. */
typedef void accounts_secret_store;
/** Where a call puts its error text (or another string answer), NULL until it does. (Pointers
 * to pointers are marked: assume_nonnull does not reach them.) */
typedef char *_Nullable *_Nonnull accounts_text_out;

typedef struct accounts_private {
  /** ACCOUNTS_PRIVATE_VERSION, and sizeof(accounts_private) as the library knew it. */
  uint32_t version;
  uint32_t size;

  /* The Secret Service (libsecret). Each call runs on the library's worker thread under the
   * store's deadlines; a call that has to be abandoned answers with the "stuck" error. */

  /** A store with these deadlines (seconds). quiet != 0: GLib's own warnings are dropped. */
  accounts_secret_store *_Nonnull (*_Nonnull secret_open)(double timeout, double prompt_timeout, int32_t may_prompt, int32_t quiet);
  int32_t (*_Nonnull secret_store)(
    accounts_secret_store *store, const char *backend, const char *account, const char *kind,
    const void *_Nullable bytes, size_t length, accounts_text_out error);
  /** 1 and the secret in *bytes and *length when found, 0 when not. */
  int32_t (*_Nonnull secret_lookup)(
    accounts_secret_store *store, const char *backend, const char *account, const char *kind,
    void *_Nullable *_Nonnull bytes, size_t *length, accounts_text_out error);
  /** Every item of `kind`, as SecretRecords bytes (release with their length). */
  int32_t (*_Nonnull secret_lookup_all)(
    accounts_secret_store *store, const char *kind, void *_Nullable *_Nonnull records, size_t *length,
    accounts_text_out error);
  /** The kinds of one account's items (of a backend's: account ""), one per line. */
  int32_t (*_Nonnull secret_kinds)(
    accounts_secret_store *store, const char *backend, const char *account, accounts_text_out kinds,
    accounts_text_out error);
  int32_t (*_Nonnull secret_delete)(
    accounts_secret_store *store, const char *backend, const char *account, const char *kind,
    accounts_text_out error);
  int32_t (*_Nonnull secret_delete_all)(
    accounts_secret_store *store, const char *backend, const char *account, accounts_text_out error);
  int32_t (*_Nonnull secret_delete_settings)(accounts_secret_store *store, const char *backend, accounts_text_out error);
  /** The program that provides the Secret Service; *name stays NULL when unknown. */
  int32_t (*_Nonnull secret_provider)(accounts_secret_store *store, accounts_text_out name, accounts_text_out error);
  /** Locks the default collection; *label gets its label. */
  int32_t (*_Nonnull secret_lock)(accounts_secret_store *store, accounts_text_out label, accounts_text_out error);
  /** *report gets the JSON of SecretServiceReport.wireText. */
  int32_t (*_Nonnull secret_report)(accounts_secret_store *store, accounts_text_out report, accounts_text_out error);
  /** 1 once a call was abandoned (the "stuck" error): its thread may still hold GLib's locks,
   * so the process should end without running exit handlers (_exit). Else 0. */
  int32_t (*_Nonnull secret_abandoned)(void);

  /* The adapter host: requests and answers are JSON texts (AdapterWire); secrets travel as
   * acc_pairs named "password", "one_time_code" (a LOGIN's, when it has one), "token" or
   * "setting:NAME". */

  /** From now on a crash or exit() inside adapter code ends the process with exit status 9
   * and one line on `descriptor` (the command's own stderr). */
  void (*_Nonnull adapter_contain)(int32_t descriptor);
  /** One adapter file, checked and loaded: its AdapterEntry, described or refused. */
  char *_Nonnull (*_Nonnull adapter_probe)(const char *path);
  /** One adapter, loaded: its AdapterDescription, or NULL and *error. */
  char *_Nullable (*_Nonnull adapter_describe)(const char *name, const char *search_path, accounts_text_out error);
  /** One operation: an AdapterOutcome, or NULL and *error. A LOGIN's token is put in
   * *token and *token_length (release with its length), never in the outcome's text. */
  char *_Nullable (*_Nonnull adapter_run)(
    const char *request, const acc_pair *_Nullable secrets, size_t secret_count, void *_Nullable *_Nonnull token,
    size_t *token_length, accounts_text_out error);

  /** Wipes `length` bytes (-1: a NUL-terminated string) of what the library returned, and frees it. */
  void (*_Nonnull release)(void *_Nullable pointer, ptrdiff_t length);

  /* Added after version 1's first table (the size tells): */

  /** HMAC of `data` under `key` with GLib's GHmac, for one-time codes (TOTP): `algorithm` is an
   * ACCOUNTS_HMAC_ value. Writes the digest to `out` and returns its length; 0 for another
   * algorithm or a `capacity` too small (64 bytes hold any). */
  size_t (*_Nonnull hmac)(
    int32_t algorithm, const uint8_t *_Nullable key, size_t key_length, const uint8_t *_Nullable data, size_t length,
    uint8_t *out, size_t capacity);
} accounts_private;

/** The algorithms of `hmac` (not the adapter ABI's ACC_DIGEST_ codes: SHA-512 is the host's only). */
#define ACCOUNTS_HMAC_SHA1 1
#define ACCOUNTS_HMAC_SHA256 2
#define ACCOUNTS_HMAC_SHA512 3

/** The type of ACCOUNTS_PRIVATE_ENTRY_NAME: the table, or NULL for another version. */
typedef const accounts_private *_Nullable (*_Nonnull accounts_private_entry)(uint32_t host_version);

#pragma clang assume_nonnull end

#endif
