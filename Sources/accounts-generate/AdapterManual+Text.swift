/// The text of accounts-adapter(7). Every rule here is a rule of accounts_adapter.h (the ABI,
/// whose comments are the reference) or of the host that enforces it.
extension AdapterManual {
  static func sections(example: String) -> [Section] {
    [
      Section("NAME", [.roff(["accounts\\-adapter \\- writing login adapters for accounts"])]),
      Section("SYNOPSIS", [
        .roff([
          ".nf",
          ".B #include <accounts_adapter.h>",
          ".PP",
          ".BI \"const acc_adapter *accounts_adapter_v1(uint32_t \" host_abi_version );",
          ".fi",
        ])
      ]),
      Section("DESCRIPTION", description),
      Section("LOADING", loading),
      Section("VERSIONING", versioning),
      Section("THE DESCRIPTOR", descriptor),
      Section("SESSIONS AND STEPS", steps),
      Section("OPERATIONS", operations),
      Section("HOST SERVICES", hostServices),
      Section("MEMORY AND THREADS", memory),
      Section("LIMITS", limits),
      Section("BUILT-IN ADAPTERS", builtIn),
      Section("BUILDING", building),
      Section("EXAMPLE", [
        .text("""
          A complete adapter in C. It logs in with a form POST of the user name and password to \
          `base_url/login_path` and reads `userId`, `token` and `expiresIn` from the JSON reply; \
          CHECK and LOGOUT trust the local state, and CALL is not supported. The tests of \
          accounts build it and log in with it.
          """),
        .code(example),
        .text("Build, install and use it:"),
        .code("""
          cc -shared -fPIC -I accounts/Sources/CAccountsAdapter/include -o example.so example.c
          install -D -m 0644 example.so ~/.local/share/accounts/adapters/example.so
          accounts adapters example
          accounts backend add demo --adapter example --set base_url=https://id.example.com/plain/plain
          accounts add alice@demo
          accounts login alice@demo
          """),
      ]),
      Section("FILES", [
        .terms([
          ("*~/.local/share/accounts/adapters/*",
           "The user's adapters (`$XDG_DATA_HOME/accounts/adapters`)."),
          ("*PREFIX/lib/accounts/adapters/*",
           "The built-in adapters of an accounts installed as *PREFIX/bin/accounts*; a build of accounts uses the build directory."),
          ("*Sources/CAccountsAdapter/include/accounts_adapter.h*",
           "The ABI, in the accounts source tree."),
          ("*Tests/Fixtures/adapters/example.c*", "The example above, in the source tree."),
        ])
      ]),
      Section("ENVIRONMENT", [
        .terms([
          ("`ACCOUNTS_ADAPTER_PATH`",
           "Colon-separated directories searched for adapters before the others. Entries that do not start with / are ignored."),
          ("`XDG_DATA_HOME`",
           "The user's adapters are in `$XDG_DATA_HOME/accounts/adapters` (default `~/.local/share/accounts/adapters`)."),
          ("`ACCOUNTS_NETWORK_TIMEOUT`",
           "Seconds the adapter operations of one command may take together, requests included (default 20, at most 3600)."),
          ("`ACCOUNTS_ADAPTER_LOAD_TIMEOUT`",
           "Seconds `accounts adapters` and `accounts doctor` give each adapter to load before they stop it and report it (default 5, at most 3600)."),
          ("`ACCOUNTS_DEBUG`", "When set, the lines adapters log go to stderr."),
        ])
      ]),
      Section("SEE ALSO", [.roff([".BR accounts (1),", ".BR dlopen (3)"])]),
    ]
  }

  private static let description: [Block] = [
    .text("""
      An adapter teaches `accounts`(1) one backend's login protocol. It is a shared library \
      that exports one function, `accounts_adapter_v1`, returning a static descriptor: the \
      adapter's name and version, the settings a backend using it needs, and three functions \
      that run sessions.
      """),
    .text("""
      An adapter is a pure encoder and decoder: it never opens a socket, a file or a thread. \
      The host (accounts) performs the HTTP requests, stores tokens and secrets, asks for \
      passwords, and lends the adapter a clock, random bytes, digests and HMAC, so an adapter \
      needs no library but libc.
      """),
    .text("""
      The ABI is the header `accounts_adapter.h`, version 1.1; its comments are the reference \
      and this page states its rules. Strings are `acc_string`: a pointer and a length in \
      bytes, UTF-8, not NUL-terminated (the host happens to NUL-terminate what it hands over; \
      do not rely on it). An empty string may have a NULL pointer. `acc_pairs` is a list of \
      name and value pairs with unique names; its `count` may be 0 with `items` NULL.
      """),
  ]

  private static let versioning: [Block] = [
    .text("""
      `ACC_ADAPTER_ABI_VERSION` is *major* << 16 | *minor*. The host calls the entry with its \
      own version. Return the descriptor, whose `abi_version` is the `ACC_ADAPTER_ABI_VERSION` \
      of the header you built with, or NULL when you cannot work with that host (at least \
      when `host_abi_version >> 16` is not `ACC_ADAPTER_ABI_MAJOR`).
      """),
    .text("""
      The host refuses a descriptor of another major version, or of a newer minor version \
      than its own: an adapter built with header 1.0 works with every 1.x host.
      """),
    .text("""
      Version 1.1 added `one_time_code` at the end of `acc_session_config` and the flag \
      `ACC_SETTING_ONE_TIME_CODE`. An adapter built with header 1.0 keeps working: the host \
      ignores that flag on a 1.0 descriptor and never gets a one-time code for it. An adapter \
      built with 1.1 that returns its descriptor to a 1.0 host reads `one_time_code` only when \
      `config->size` covers it.
      """),
    .text("""
      Within a major version structs only grow at the end, and every struct that grows starts \
      with `size`, the sizeof as its writer knew it. Read a field of `acc_session_config`, \
      `acc_host` or `acc_response` only when their `size` covers it, and write no field of \
      `acc_step_output` beyond its `size`. A change that is not a growth renames the entry \
      (`accounts_adapter_v2`).
      """),
  ]

  private static let descriptor: [Block] = [
    .text("""
      `acc_adapter` is static and never freed. `name` equals the *NAME* of the file, lowercase \
      [a-z0-9_-]; `version` is the adapter's own, e.g. 1.2.0; `description` is one line \
      saying which backends it speaks to. `settings` and `settings_count` declare the \
      settings; `session_new`, `step` and `session_free` run sessions.
      """),
    .text("""
      Each `acc_setting` has a `name` (lowercase [a-z0-9_], at most 64 bytes, e.g. base_url), \
      a one-line `label` for humans, `flags`, and a `default_value`, which is for display \
      only (empty when none): the host does not fill it in, the adapter applies its own \
      defaults. A setting without `ACC_SETTING_OPTIONAL` is required.
      """),
    .terms([
      ("`ACC_SETTING_SECRET`", """
        A secret, such as a key. `accounts backend add` asks for it without echo (or reads it \
        with `--secret-stdin` *NAME*), keeps it in the Secret Service, never takes it from \
        `--set` and never prints it.
        """),
      ("`ACC_SETTING_OPTIONAL`", "May be left out; the adapter then uses its documented default."),
      ("`ACC_SETTING_PER_ACCOUNT`", "May differ per account. Reserved: hosts up to 1.1 treat it as per backend."),
      ("`ACC_SETTING_ONE_TIME_CODE`", """
        (1.1) When the backend gives this setting a value, LOGIN needs a one-time code: the \
        host computes the current one from the seed kept for the account, else asks for it on \
        a terminal, else fails with status 3 without calling the adapter; it hands the code \
        over in `one_time_code`. The value is the adapter's to use, e.g. the name of the \
        field the code goes in. This is how the host knows, without knowing the adapter.
        """),
    ]),
    .text("""
      A session gets only the declared settings the backend gives, as the user gave them: the \
      others from the backend's configuration, the secret ones from the keyring. \
      `accounts backend add` refuses unknown settings and missing required ones, asks for the \
      secret ones, and runs VALIDATE before it saves anything.
      """),
  ]

  private static let steps: [Block] = [
    .text("""
      Each operation is one session: `session_new`, then `step` until a result other than \
      SEND, then `session_free`. `session_new` gets the `acc_session_config` (see OPERATIONS) \
      and returns an opaque pointer, NULL only when out of memory (status 9); report problems \
      with the settings from the first step, as `ACC_STEP_ERROR`.
      """),
    .text("""
      `step(session, response, out)` gets `response` NULL on the first call, then the answer \
      to the last SEND: `status`, `headers` (names lowercased) and `body`. The host zeroes \
      `*out` and sets its `size` before every call; write only the fields your result needs, \
      and put a one-line message for the user in `message` with any result. The result, and \
      the exit status of accounts it leads to:
      """),
    .terms([
      ("`ACC_STEP_SEND`", """
        Perform `out->request` and call step again with the response. The request has a \
        `method` (uppercase, e.g. POST), an absolute http:// or https:// `url` with the query \
        string already percent-encoded, `headers` and a `body`. The host sends the body as \
        is (set Content-Type yourself), adds no cookies and follows no redirects: a 3xx \
        reaches the adapter like any other status. A multi-step login (a challenge, then a \
        proof) is more SENDs.
        """),
      ("`ACC_STEP_OK`", "The operation succeeded (0)."),
      ("`ACC_STEP_WRONG_PASSWORD`", """
        The backend rejected the user name or password (4), or the one-time code. The host \
        forgets the remembered password (not when the login carried a code, which may have \
        been the wrong part), so return it only when the backend said so.
        """),
      ("`ACC_STEP_SESSION_EXPIRED`", """
        The token is no longer good (5). The host deletes it and may log in again, once, with \
        a remembered password.
        """),
      ("`ACC_STEP_KICKED`", """
        Another login took the session over, single sign-on (5). The host deletes the token \
        and does not log in again by itself.
        """),
      ("`ACC_STEP_UPGRADE_REQUIRED`", """
        The backend wants a newer client (6). Put the update link in `out->link`; the host \
        changes nothing and shows message and link.
        """),
      ("`ACC_STEP_ERROR`", """
        Anything else: bad settings, a malformed or unexpected reply (8). `message` is \
        required: say why.
        """),
    ]),
    .text("""
      Any other return value, and any breach of this page that the host notices (a malformed \
      request or output, a limit exceeded, a call that does not return in time), is a \
      misbehaving adapter: the command ends with status 9 and a message naming the adapter.
      """),
    .text("""
      After a result other than SEND the host calls `session_free` and nothing else. It frees \
      the session and everything the session returned; wipe secrets first. A session whose \
      call missed the deadline is abandoned, not freed, and the process exits soon after.
      """),
  ]

  private static let operations: [Block] = [
    .text("""
      `config->operation` says what the session is for. Every operation gets `settings` and \
      `host`, and `user`, the account's user name (empty for VALIDATE).
      """),
    .terms([
      ("`ACC_OP_LOGIN`", """
        Gets `password`, and (1.1) `one_time_code`: the current code (6 to 8 digits) when a \
        setting flagged `ACC_SETTING_ONE_TIME_CODE` has a value, else empty; wipe your copies \
        when the session is freed. Log in; on OK return \
        `token` (printable ASCII without spaces, kept in the keyring), `expires_in` (seconds \
        the token stays valid, 0 when unknown) and `session_values`: values to keep with the \
        session and hand back later, such as userId (names [A-Za-z0-9_]; the values are not \
        secret, they are stored in the account index; `accounts exec` exports userId as \
        ACCOUNTS_USER_ID).
        """),
      ("`ACC_OP_CHECK`", """
        Gets `token` and `session_values`. Prove that the token is still good: OK (with \
        `expires_in` when known), or SESSION_EXPIRED or KICKED. The host checks the token's \
        local expiry first and does not ask about a token that expired; an adapter that \
        cannot check may return OK without a SEND.
        """),
      ("`ACC_OP_LOGOUT`", """
        Gets `token` and `session_values`. Tell the backend the session ends; return OK \
        without a SEND when it has no such request.
        """),
      ("`ACC_OP_CALL`", """
        Gets `token`, `session_values`, `method` (e.g. POST), `path` below the backend's base \
        (e.g. user/info) and `parameters` in the order the user gave them. Build the request \
        (signing it if the backend wants that); on OK return the response body for the user \
        in `body`, usually JSON. On SESSION_EXPIRED the host logs in again once with a \
        remembered password and retries.
        """),
      ("`ACC_OP_VALIDATE`", """
        Gets only the settings. Check them without any network (no SEND): OK, or ERROR with \
        why, which `accounts backend add` shows before it exits with status 2, saving nothing.
        """),
    ]),
  ]

  private static let hostServices: [Block] = [
    .text("""
      `config->host` points to the services the host lends; it stays valid for the life of \
      the session, and every function may be called from any thread.
      """),
    .terms([
      ("`int64_t now(void)`", "Seconds since 1970-01-01 00:00:00 UTC."),
      ("`int32_t local_utc_offset(int64_t when)`", """
        Seconds east of UTC of the user's local time zone at `when`, e.g. 28800 for +08:00.
        """),
      ("`void random_bytes(uint8_t *buffer, size_t length)`", "Cryptographically random bytes."),
      ("`size_t digest(algorithm, data, length, out, capacity)`", """
        Writes the raw digest (not hex) of `data` into `out` and returns its length, or 0 for \
        an unknown algorithm or a too small `capacity`; 32 bytes is enough for every \
        algorithm: `ACC_DIGEST_MD5`, `ACC_DIGEST_SHA1`, `ACC_DIGEST_SHA256`. GLib computes it.
        """),
      ("`size_t hmac(algorithm, key, key_length, data, length, out, capacity)`",
       "As `digest`, for the HMAC of `data` with `key`."),
      ("`void log(int32_t level, acc_string message)`", """
        A diagnostic line at `ACC_LOG_DEBUG`, `ACC_LOG_INFO` or `ACC_LOG_WARNING`, written to \
        stderr when ACCOUNTS_DEBUG is set. Never log a secret.
        """),
    ]),
  ]

  private static let memory: [Block] = [
    .text("""
      What the host hands an adapter is borrowed for that one call: the configuration during \
      `session_new`, the response during that `step`. Copy what you keep. Only `config->host` \
      lives as long as the session.
      """),
    .text("""
      What an adapter hands back belongs to the adapter. The descriptor and its settings live \
      forever; a step's output (request, message, token, values, body, link) stays valid \
      until the next `step` or `session_free` on that session, so keep it in the session. \
      Nobody frees the other side's memory. Wipe secrets before freeing them: the password, \
      keys, tokens, and whatever holds or proves them, such as a request body.
      """),
    .text("""
      The host may run several sessions at once on different threads (`accounts status` \
      does), but never calls into one session from two threads at once; successive calls on \
      one session may come from different threads. Keep state in the session, not in globals \
      or thread-local storage.
      """),
    .text("""
      Nothing may unwind across the boundary: no C++ exceptions, no Rust panics, no longjmp. \
      Catch trouble and return `ACC_STEP_ERROR` with a message. The adapter runs inside the \
      user's process: never exit or abort for a problem you can report.
      """),
  ]

  private static let limits: [Block] = [
    .text("""
      The host bounds every operation, so an adapter that loops or returns garbage ends the \
      command with an error, not a hang:
      """),
    .terms([
      ("`ACC_HOST_STEP_LIMIT` (16)", "SENDs per operation; one more is status 9."),
      ("`ACC_HOST_STRING_LIMIT` (1 MiB)", """
        Bytes of any one string an adapter returns, except a CALL's `body`; more is status 9.
        """),
      ("`ACC_HOST_RESPONSE_LIMIT` (4 MiB)", """
        Bytes of a response body the host reads (a longer one fails the step, status 8), and \
        of the `body` a CALL returns.
        """),
      ("Deadline", """
        Each operation, requests included, must end within ACCOUNTS_NETWORK_TIMEOUT seconds \
        (default 20), all of one command's operations together. A backend that is too slow is status 8; an adapter call that does not \
        return in time is status 9.
        """),
    ]),
    .text("""
      Only http:// and https:// URLs are requested, without redirects or cookies. A request \
      `method` is uppercase letters; a `url` is printable ASCII without spaces; at most 64 \
      headers, named with HTTP token characters, values without CR, LF or NUL. A `token` is \
      printable ASCII without spaces. At most 32 session values, names up to 64 bytes, values \
      up to 1024 bytes without control characters. A `link` has at most 2048 bytes. Messages \
      are shown on one line.
      """),
  ]

  private static let builtIn: [Block] = [
    .text("""
      Three adapters come with accounts, written in Swift against this same ABI and loaded \
      like any other: plain, hmac and signed. Their backends answer JSON. An error reply is \
      `{"err": {"code": N, "msg": "...", "eventId": "..."}}`: `msg` is the message, and with \
      upgrade required `eventId` is the update link. HTTP 401 means the session expired \
      (at login: the password is wrong). *md5hex* is a lowercase hex MD5, *hmac_md5hex* the \
      same for HMAC-MD5; defaults are in parentheses.
      """),
    .subsection("Settings of all three"),
    .terms([
      ("`base_url`", "Base URL of the API, http:// or https://, e.g. https://id.example.com/api. Required."),
      ("`login_path` (login)", "Path of the login request below `base_url`."),
      ("`check_path`", "Path that checks a token; without it CHECK trusts the local expiry."),
      ("`logout_path`", "Path that ends a session; without it LOGOUT is local only."),
      ("`codes` (-100=expired,-101=kicked,-99=upgrade)", """
        What the backend's `err.code` means: comma-separated *CODE*=*OUTCOME*, *OUTCOME* one \
        of expired, kicked, upgrade or wrong_password, merged over the defaults.
        """),
    ]),
    .subsection("plain"),
    .text("""
      Form login. Success when the reply's `success_field` is a number > 0, which becomes the \
      session's userId; later requests carry the token in the header `token_header`.
      """),
    .terms([
      ("`method` (POST)", "POST sends a form body, GET a query string."),
      ("`username_field` (username), `password_field` (password)", "The form's fields."),
      ("`encoding` (plain)", """
        How the password is sent: plain, base64, md5 (*md5hex(password)*), md5-salt \
        (*md5hex(password + salt)*) or md5-hmac (*md5hex(hmac_md5hex(key=hmac_key, \
        msg=password))*).
        """),
      ("`salt`", "Required with md5-salt."),
      ("`hmac_key`", "Secret; required with md5-hmac."),
      ("`success_field` (userId), `token_field` (token), `expires_field` (expiresIn)", """
        The reply's fields: user id, token, lifetime in seconds.
        """),
      ("`token_header` (AuthorisedToken)", "The request header that carries the token."),
      ("`otp_field`", """
        The form field that carries the login's current one-time (TOTP) code, e.g. otp. \
        Flagged `ACC_SETTING_ONE_TIME_CODE`: when it is set, every login needs a code. Unset, \
        no code is sent.
        """),
      ("`allow_insecure_transport` (false)", """
        plain and base64 put a recoverable password on the wire: over http:// they are \
        refused unless this is true.
        """),
    ]),
    .subsection("hmac"),
    .text("""
      As plain, but the password field carries a proof, so the password never leaves the \
      machine: *k = md5hex(hmac_key)*, *base = hmac_md5hex(key=k, msg=password)*, *minute* \
      the current minute in `time_zone` as yyyy-MM-ddHH:mm, *proof = hmac_md5hex(key=k, \
      msg=base + minute)*. `otp_field` as in plain. No `encoding`, `salt` or \
      `allow_insecure_transport`; instead:
      """),
    .terms([
      ("`hmac_key`", "Secret, required: the key shared with the backend."),
      ("`time_zone` (local)", "The zone of the minute: local, UTC, +HH:MM or -HH:MM."),
    ]),
    .subsection("signed"),
    .text("""
      Every request, login included, sends app_id, plat, ver, rand (16 random characters of \
      [0-9A-Za-z]), timestamp (local yyyy-MM-dd-HH:mm:ss), userId and token once logged in, \
      the call's own parameters, and *sign = md5hex* of every *key=value* and \
      private_key=*private_key*, sorted by key bytewise and joined with &, over the raw values. \
      The private key is never sent. Login sends `user_param` and password and reads userId, \
      token and expiresIn.
      """),
    .terms([
      ("`app_id`", "Required: the application id the backend issued."),
      ("`private_key`", "Secret, required: the signing key."),
      ("`plat` (linux)", "Sent as plat."),
      ("`ver`", "Required: the client version sent as ver, e.g. 1.0."),
      ("`user_param` (phoneNo)", "The login field carrying the user name."),
      ("`password_encoding` (plain)", "plain, or md5 to send *md5hex(password)*."),
      ("`otp_param`", """
        The login parameter that carries the current one-time (TOTP) code, e.g. otp; signed \
        like every other parameter. As `otp_field` of plain.
        """),
    ]),
  ]

  private static let building: [Block] = [
    .subsection("C"),
    .text("""
      Compile against the header and nothing else, and make every function but the entry \
      `static`:
      """),
    .code("cc -shared -fPIC -I PATH/TO/accounts/Sources/CAccountsAdapter/include -o NAME.so NAME.c"),
    .subsection("Rust"),
    .text("""
      A `cdylib` crate; `cargo build --release` writes target/release/lib*NAME*.so (a `-` in \
      the crate name becomes `_`). Mirror the structs with `#[repr(C)]`, by hand or with \
      bindgen, and export the entry (`#[unsafe(no_mangle)]` in edition 2024). The static \
      descriptor holds raw pointers: wrap it in a type with `unsafe impl Sync`. Run the body \
      of every exported function in `std::panic::catch_unwind` and turn a panic into \
      `ACC_STEP_ERROR`; `panic = "abort"` is fine too, an abort ends the command.
      """),
    .code("""
      [lib]
      crate-type = ["cdylib"]

      [profile.release]
      panic = "abort"

      #[no_mangle]
      pub extern "C" fn accounts_adapter_v1(host_abi_version: u32) -> *const AccAdapter { ... }
      """),
    .subsection("Swift"),
    .text("""
      A `.dynamic` library product; `swift build -c release` writes .build/release/lib*NAME*.so. \
      Put `accounts_adapter.h` in a C target's include/ directory, depend on it, and export \
      the entry with `@_cdecl("accounts_adapter_v1")`. Build the descriptor once, in a global \
      `let`, and never free it. A trap (a nil unwrapped, an overflow) ends the process: check \
      instead. Use the Swift toolchain accounts was built with, as a process has one Swift \
      runtime. The built-in adapters under Plugins/ in the source tree are complete examples.
      """),
    .code("""
      .library(name: "NAME", type: .dynamic, targets: ["NAME"]),

      @_cdecl("accounts_adapter_v1")
      public func entry(_ hostABIVersion: UInt32) -> UnsafePointer<acc_adapter>? { ... }
      """),
    .subsection("Installing"),
    .text("""
      Install the file with mode 0644 in a directory that is not writable by group or others, \
      then check that accounts accepts it:
      """),
    .code("""
      install -D -m 0644 NAME.so ~/.local/share/accounts/adapters/NAME.so
      accounts adapters NAME
      """),
  ]
}
