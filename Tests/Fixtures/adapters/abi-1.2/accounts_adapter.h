/*
 * accounts_adapter.h: the adapter ABI of `accounts`, version 1.2.
 *
 * An adapter teaches `accounts` one backend's login protocol. It is a shared library that
 * exports one function, ACC_ADAPTER_ENTRY (accounts_adapter_v1), returning a static
 * descriptor. The adapter is a pure encoder and decoder: it never opens a socket, a file or a
 * thread. The host (`accounts`) does the HTTP, the storage, the prompting, and lends the
 * adapter a clock, randomness, digests and HMAC, so an adapter needs no library but libc.
 *
 * Build one from this header alone:
 *
 *     cc -shared -fPIC -I /path/to/this/directory -o example.so example.c
 *     install -m 0644 example.so ~/.local/share/accounts/adapters/
 *     accounts adapters
 *
 * The file is NAME.so or libNAME.so (as cargo and SwiftPM name libraries); NAME must equal the
 * descriptor's name (here "example").
 * man 7 accounts-adapter tells the same story with a complete example.
 *
 * LOADING. The host searches $ACCOUNTS_ADAPTER_PATH (colon-separated), then
 * $XDG_DATA_HOME/accounts/adapters (~/.local/share/accounts/adapters), then the directory the
 * built-in adapters were installed into; the first file of a NAME wins. Before dlopen the
 * file must be a regular ELF shared library for this machine, and every directory its path
 * leads through (links followed one name at a time) owned by root or the user and not writable
 * by group or others (a root-owned sticky directory such as /tmp is accepted when what is found
 * in it is root's or the user's). Its RUNPATH/RPATH entries must be absolute or start with
 * $ORIGIN and name such directories; libraries named by a path must pass the same checks.
 * The host opens it with RTLD_NOW | RTLD_LOCAL and never closes it. A refused adapter is
 * reported with its path and the reason; the others keep working. `accounts adapters` and
 * `accounts doctor` load each adapter in a separate process, so a crash while loading (in a
 * constructor, the entry, or the descriptor) is reported, not fatal to them.
 *
 * VERSIONING. ACC_ADAPTER_ABI_VERSION is major << 16 | minor. The host calls the entry with its
 * own version; the adapter returns its descriptor (whose abi_version says which header it was
 * built against) or NULL when it cannot work with that host. The host refuses a descriptor of
 * another major version, or of a newer minor than its own. Within a major version structs only
 * grow at the end, and every struct that grows starts with `size` (sizeof as its writer knew
 * it): read a field only when `size` covers it. A change that is not a growth renames the
 * entry symbol (accounts_adapter_v2).
 *
 * 1.1 added, at the end of acc_session_config, `one_time_code` (LOGIN's current one-time code)
 * and the setting flag ACC_SETTING_ONE_TIME_CODE. An adapter built against 1.0 keeps loading
 * and working: its descriptor says 1.0, so the host ignores that flag on its settings (a 1.0
 * adapter never declared it) and never asks anyone for a code on its behalf. An adapter built
 * against 1.1 that may run on a 1.0 host reads `one_time_code` only when `size` covers it.
 *
 * 1.2 added, at the end of acc_adapter, `flags`, whose ACC_ADAPTER_CHECK_DECLARED says that
 * CHECK asks the backend only when a setting flagged ACC_SETTING_SESSION_CHECK (also 1.2) has a
 * value. For a backend where none has, the host proves a session by its token and expiry alone,
 * without loading the adapter (`lease`, `status`). The host reads `flags` only from a
 * descriptor that says 1.2 or later, and ignores ACC_SETTING_SESSION_CHECK on older ones: 1.0
 * and 1.1 adapters keep loading, and every CHECK of theirs runs.
 *
 * STRINGS are acc_string: a pointer and a length in bytes, UTF-8, not NUL-terminated (the host
 * happens to NUL-terminate what it hands over, but do not rely on it). An empty string may
 * have a NULL pointer.
 *
 * MEMORY. Whatever the host hands an adapter (configuration, response, host services) is
 * borrowed for the duration of that one call: copy what you keep. Whatever an adapter hands
 * back (the descriptor, requests, outputs) belongs to the adapter: the descriptor must live
 * forever (make it static), and a step's output must stay valid until the next call to step or
 * session_free on that session. Nobody frees the other side's memory.
 *
 * THREADS. The host may run several sessions at once on different threads, but never calls
 * into one session from two threads at once. Keep state in the session, not in globals; the
 * host services may be called from any thread.
 *
 * ERRORS. Nothing may unwind across this boundary: no C++ exceptions, no Rust panics, no
 * longjmp. Report trouble as ACC_STEP_ERROR with a message (exit status 8). The host treats a
 * result code it does not know, a malformed output, or a broken rule as a failed adapter
 * (exit status 9). It enforces a step limit (ACC_HOST_STEP_LIMIT SENDs), an overall deadline
 * (ACCOUNTS_NETWORK_TIMEOUT, default 20 s) that also bounds each step call, and size limits
 * (ACC_HOST_STRING_LIMIT for a returned string, ACC_HOST_RESPONSE_LIMIT for a CALL's body and
 * for a response; at most 64 headers and 32 session values of 1024 bytes), so an adapter that
 * loops, spins or returns garbage ends the command with a message, not a hang.
 */
#ifndef ACCOUNTS_ADAPTER_H
#define ACCOUNTS_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACC_ADAPTER_ABI_MAJOR 1
#define ACC_ADAPTER_ABI_MINOR 2
#define ACC_ADAPTER_ABI_VERSION ((uint32_t)((ACC_ADAPTER_ABI_MAJOR << 16) | ACC_ADAPTER_ABI_MINOR))
/** The entry symbol's name as a string, for dlsym: its name carries the major version. */
#define ACC_ADAPTER_ENTRY_NAME "accounts_adapter_v1"

/** How many SENDs one operation may take before the host gives up (exit 9). */
#define ACC_HOST_STEP_LIMIT 16
/** The most bytes a string returned by an adapter may have, but a CALL's body. */
#define ACC_HOST_STRING_LIMIT 1048576 /* 1 MiB */
/** The most bytes of an HTTP response body the host reads before failing the step (exit 8). */
#define ACC_HOST_RESPONSE_LIMIT 4194304 /* 4 MiB */

/** UTF-8 bytes: a pointer and a length, not NUL-terminated. */
typedef struct acc_string {
  const char *bytes;
  size_t length;
} acc_string;

/** An acc_string from a string literal, for static descriptors: ACC_STRING("plain"). */
#define ACC_STRING(literal) {(literal), sizeof(literal) - 1}

/** One name and its value. */
typedef struct acc_pair {
  acc_string name;
  acc_string value;
} acc_pair;

/** A list of pairs; `count` may be 0 with `items` NULL. Names are unique within a list. */
typedef struct acc_pairs {
  const acc_pair *items;
  size_t count;
} acc_pairs;

/* ---- The descriptor: what the adapter is and which settings it needs ---------------------- */

/** The setting holds a secret (a key): `backend add` prompts for it, keeps it in the Secret
 *  Service, never takes it from the command line and never prints it. */
#define ACC_SETTING_SECRET 0x1u
/** The setting may be left out; the adapter then uses its documented default. */
#define ACC_SETTING_OPTIONAL 0x2u
/** The setting may differ per account (reserved: hosts up to 1.2 treat it as per backend). */
#define ACC_SETTING_PER_ACCOUNT 0x4u
/** (1.1) When the backend gives this setting a value, LOGIN needs a one-time code: the host gets
 *  the current one (from the seed kept for the account, else by asking on a terminal) and hands
 *  it over in acc_session_config.one_time_code. The setting's value is the adapter's to use
 *  (e.g. the form field the code goes in). Ignored on the settings of a 1.0 descriptor. */
#define ACC_SETTING_ONE_TIME_CODE 0x8u
/** (1.2) With ACC_ADAPTER_CHECK_DECLARED: CHECK asks the backend only when this setting (or
 *  another so flagged) has a value, e.g. the path of a check request. */
#define ACC_SETTING_SESSION_CHECK 0x10u

/** (1.2) The adapter's CHECK sends a request only when a setting flagged
 *  ACC_SETTING_SESSION_CHECK has a value; otherwise it answers ACC_STEP_OK at once, sending
 *  nothing. An adapter whose CHECK never asks the backend sets this and flags no setting. */
#define ACC_ADAPTER_CHECK_DECLARED 0x1u

/** One setting a backend using this adapter can (or must) have. */
typedef struct acc_setting {
  /** Lowercase [a-z0-9_], e.g. "base_url". */
  acc_string name;
  /** One line for humans, e.g. "Base URL of the API, e.g. https://id.example.com/api". */
  acc_string label;
  /** ACC_SETTING_* flags. */
  uint32_t flags;
  /** The default when OPTIONAL and left out, for display only (empty when none). */
  acc_string default_value;
} acc_setting;

/* Operations: what a session is asked to do. */
/** Log in with user and password (and a one-time code when one is needed); on OK return
 *  token, expires_in and session values. */
#define ACC_OP_LOGIN 1
/** Prove that the token is still good (OK), or say why not. */
#define ACC_OP_CHECK 2
/** Tell the backend the session ends. */
#define ACC_OP_LOGOUT 3
/** Call an API: method, path and parameters in; the response body out. */
#define ACC_OP_CALL 4
/** Check the settings without any network (used by `backend add`): OK, or ERROR with why.
 *  A SEND in VALIDATE is a broken rule. */
#define ACC_OP_VALIDATE 5

/* Step results. Any other value is treated by the host as ACC_STEP_ERROR. */
/** Perform out->request and call step again with the response. */
#define ACC_STEP_SEND 1
/** The operation succeeded. */
#define ACC_STEP_OK 2
/** The backend rejected the user name, password or one-time code (exit 4). */
#define ACC_STEP_WRONG_PASSWORD 3
/** The token expired (exit 5; the host may log in again with a remembered password). */
#define ACC_STEP_SESSION_EXPIRED 4
/** Another login took the session over (single sign-on, exit 5; no automatic re-login). */
#define ACC_STEP_KICKED 5
/** The backend wants a newer client; put the update link in out->link (exit 6). */
#define ACC_STEP_UPGRADE_REQUIRED 6
/** Anything else went wrong: bad settings, a malformed reply (exit 8); say why in message. */
#define ACC_STEP_ERROR 7

/* Digest algorithms for acc_host.digest and acc_host.hmac. */
#define ACC_DIGEST_MD5 1
#define ACC_DIGEST_SHA1 2
#define ACC_DIGEST_SHA256 3

/* Log levels for acc_host.log; shown on stderr when ACCOUNTS_DEBUG is set (never log secrets). */
#define ACC_LOG_DEBUG 1
#define ACC_LOG_INFO 2
#define ACC_LOG_WARNING 3

/** Services the host lends the adapter. Every function may be called from any thread. */
typedef struct acc_host {
  /** sizeof(acc_host) as the host knows it. */
  uint32_t size;
  /** Seconds since 1970-01-01 00:00:00 UTC. */
  int64_t (*now)(void);
  /** Seconds east of UTC of the user's local time zone at `when` (e.g. 28800 for +08:00). */
  int32_t (*local_utc_offset)(int64_t when);
  /** Fills `buffer` with `length` cryptographically random bytes. */
  void (*random_bytes)(uint8_t *buffer, size_t length);
  /** Writes the digest of `data` into `out` (32 bytes is enough for every algorithm) and
   *  returns its length, or 0 for an unknown algorithm or a too small `capacity`. */
  size_t (*digest)(int32_t algorithm, const uint8_t *data, size_t length, uint8_t *out,
                   size_t capacity);
  /** As digest, for HMAC with `key`. */
  size_t (*hmac)(int32_t algorithm, const uint8_t *key, size_t key_length, const uint8_t *data,
                 size_t length, uint8_t *out, size_t capacity);
  /** A diagnostic line (never a secret). */
  void (*log)(int32_t level, acc_string message);
} acc_host;

/** What a session is for. Borrowed: valid during session_new only, so copy what you need. */
typedef struct acc_session_config {
  /** sizeof(acc_session_config) as the host knows it. */
  uint32_t size;
  /** ACC_OP_*. */
  int32_t operation;
  /** The backend's settings, secret ones included, as the user gave them: defaults are the
   *  adapter's to apply. Only declared names appear. */
  acc_pairs settings;
  /** The account's user name (empty for VALIDATE). */
  acc_string user;
  /** LOGIN: the password. Wipe your copy when the session is freed. Empty otherwise. */
  acc_string password;
  /** CHECK, LOGOUT, CALL: the token LOGIN returned (empty when there is none). */
  acc_string token;
  /** CHECK, LOGOUT, CALL: the session values LOGIN returned (e.g. userId). */
  acc_pairs session_values;
  /** CALL: the method, e.g. "POST". */
  acc_string method;
  /** CALL: the path below the backend's base, e.g. "user/info". */
  acc_string path;
  /** CALL: the call's parameters, in the order the user gave them. */
  acc_pairs parameters;
  /** The host's services, valid for the life of the session. */
  const acc_host *host;
  /** (1.1; read only when `size` covers it) LOGIN: the current one-time code (digits), when a
   *  setting flagged ACC_SETTING_ONE_TIME_CODE has a value. Empty otherwise. A secret: wipe
   *  your copy when the session is freed. */
  acc_string one_time_code;
} acc_session_config;

/** An HTTP request for the host to perform. The host adds no cookies, follows no redirects,
 *  and sends the body as is: set Content-Type yourself. */
typedef struct acc_request {
  /** "GET", "POST", ... */
  acc_string method;
  /** Absolute http:// or https:// URL, query string included and already percent-encoded. */
  acc_string url;
  acc_pairs headers;
  acc_string body;
} acc_request;

/** The backend's answer to the last SEND. Borrowed for the step call. */
typedef struct acc_response {
  /** sizeof(acc_response) as the host knows it. */
  uint32_t size;
  /** HTTP status, e.g. 200. */
  int32_t status;
  /** Header names lowercased. */
  acc_pairs headers;
  acc_string body;
} acc_response;

/** What a step produced. The host zeroes it and sets `size` before every step call; write
 *  only the fields your result needs. Valid until the next call on the session. */
typedef struct acc_step_output {
  /** sizeof(acc_step_output) as the host knows it: do not write fields beyond it. */
  uint32_t size;
  /** SEND: the request to perform. */
  acc_request request;
  /** Any result: a one-line message for the user (required with ERROR). */
  acc_string message;
  /** LOGIN OK: the token. */
  acc_string token;
  /** LOGIN OK (and CHECK OK when known): seconds the token stays valid; 0 = unknown. */
  int64_t expires_in;
  /** LOGIN OK: values to keep with the session and hand back later (e.g. userId). Names are
   *  [A-Za-z0-9_], values are not secret (they are stored in the account index). */
  acc_pairs session_values;
  /** CALL OK: the response body for the user (usually JSON). */
  acc_string body;
  /** UPGRADE_REQUIRED: where to get the update. */
  acc_string link;
} acc_step_output;

/** The descriptor the entry function returns. Static, never freed. */
typedef struct acc_adapter {
  /** ACC_ADAPTER_ABI_VERSION of the header the adapter was built with. */
  uint32_t abi_version;
  /** Equals the file name without ".so": lowercase [a-z0-9_-]. */
  acc_string name;
  /** The adapter's own version, e.g. "1.2.0". */
  acc_string version;
  /** One line: which backends it speaks to. */
  acc_string description;
  const acc_setting *settings;
  size_t settings_count;
  /** Starts a session for config->operation; NULL only when out of memory. Problems with the
   *  settings are reported by the first step as ACC_STEP_ERROR. */
  void *(*session_new)(const acc_session_config *config);
  /** Advances the session. `response` is NULL on the first call, then the answer to the last
   *  SEND. Returns an ACC_STEP_* code and fills `out`. After a result other than SEND the host
   *  calls session_free and nothing else. */
  int32_t (*step)(void *session, const acc_response *response, acc_step_output *out);
  /** Frees the session and everything it returned (wipe secrets first). */
  void (*session_free)(void *session);
  /** (1.2; read only when abi_version says 1.2 or later) ACC_ADAPTER_* flags. */
  uint32_t flags;
} acc_adapter;

/** The one exported symbol. `host_abi_version` is the host's ACC_ADAPTER_ABI_VERSION. Returns
 *  the static descriptor, or NULL when the adapter cannot work with this host. */
const acc_adapter *accounts_adapter_v1(uint32_t host_abi_version);

#ifdef __cplusplus
}
#endif

#endif /* ACCOUNTS_ADAPTER_H */
