/*
 * accounts_private.h: the one door between the `accounts` executable and its private library
 * (libAccountsPrivate.so: the Secret Service through libsecret).
 *
 * The library exports one symbol, ACCOUNTS_PRIVATE_ENTRY_NAME, of type accounts_private_entry.
 * The executable dlopens the library the first time a command needs libsecret (so `list`,
 * completion, `otp`, a readable secret and a request with a cached token never load libsecret
 * or GLib), calls the entry with
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
 * (SecretStoreError.wireText). Success returns 0 (secret_lookup: 1 found, 0 not found).
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

#pragma clang assume_nonnull begin

/** The version of this table; the entry returns NULL for any other. */
static const uint32_t ACCOUNTS_PRIVATE_VERSION = 3;
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
  /** `url`: the web address a password item also carries (SecretKey.url), or NULL. */
  int32_t (*_Nonnull secret_store)(
    accounts_secret_store *store, const char *backend, const char *account, const char *kind,
    const char *_Nullable url, const void *_Nullable bytes, size_t length, accounts_text_out error);
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

  /** Wipes `length` bytes (-1: a NUL-terminated string) of what the library returned, and frees it. */
  void (*_Nonnull release)(void *_Nullable pointer, ptrdiff_t length);

} accounts_private;

/** The type of ACCOUNTS_PRIVATE_ENTRY_NAME: the table, or NULL for another version. */
typedef const accounts_private *_Nullable (*_Nonnull accounts_private_entry)(uint32_t host_version);

#pragma clang assume_nonnull end

#endif
