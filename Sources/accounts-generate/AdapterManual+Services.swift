// HOST SERVICES, MEMORY AND THREADS, LIMITS, BUILT-IN ADAPTERS and BUILDING of
// man/accounts-adapter.7 (see AdapterManual+Text.swift for the rest).
extension AdapterManual {
  static let hostServices: [Block] = [
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
        algorithm: `ACC_DIGEST_MD5`, `ACC_DIGEST_SHA1`, `ACC_DIGEST_SHA256`. libgcrypt computes it.
        """),
      ("`size_t hmac(algorithm, key, key_length, data, length, out, capacity)`",
       "As `digest`, for the HMAC of `data` with `key`."),
      ("`void log(int32_t level, acc_string message)`", """
        A diagnostic line at `ACC_LOG_DEBUG`, `ACC_LOG_INFO` or `ACC_LOG_WARNING`, written to \
        stderr when ACCOUNTS_DEBUG is set. Never log a secret.
        """),
    ]),
  ]

  static let memory: [Block] = [
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

  static let limits: [Block] = [
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

  static let builtIn: [Block] = [
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

  static let building: [Block] = [
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
