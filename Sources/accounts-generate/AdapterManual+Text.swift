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
      The ABI is the header `accounts_adapter.h`, version 1.3; its comments are the reference \
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
      Version 1.2 added `flags` at the end of `acc_adapter` and the setting flag \
      `ACC_SETTING_SESSION_CHECK`. The host reads `flags` only from a descriptor that says 1.2 \
      or later (an older descriptor ends before it) and ignores that setting flag on older \
      ones: adapters built with 1.0 and 1.1 keep loading, and every CHECK of theirs runs.
      """),
    .text("""
      Version 1.3 added what an OAuth 2.0 provider needs: `ACC_OP_REFRESH` with \
      `refresh_token` at the end of `acc_session_config` and of `acc_step_output`; the result \
      `ACC_STEP_SHOW` and `delay_ms` at the end of `acc_step_output`; `login_needs` at the end \
      of `acc_adapter`. The host reads these output fields and `login_needs` only from a \
      descriptor that says 1.3 or later, treats `ACC_STEP_SHOW` from an older one as an \
      unknown result, and asks REFRESH only of an account that holds a refresh token, which \
      only a 1.3 adapter can have returned: adapters built with 1.0, 1.1 and 1.2 keep loading \
      and working unchanged. An adapter built with 1.3 that returns its descriptor to an older \
      host reads `refresh_token` only when `config->size` covers it and never returns \
      `ACC_STEP_SHOW` to it (`host_abi_version` says which it is).
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
      settings; `session_new`, `step` and `session_free` run sessions. `flags` (1.2) holds \
      `ACC_ADAPTER_CHECK_DECLARED` when CHECK asks the backend only while a setting flagged \
      `ACC_SETTING_SESSION_CHECK` has a value, and otherwise answers `ACC_STEP_OK` at once, \
      sending nothing (an adapter whose CHECK never asks sets it and flags no setting). For a \
      backend where no such setting has a value, `accounts lease` and `accounts status` prove \
      a session by its token and expiry alone, without loading the adapter, once an earlier \
      command has loaded this same file (the host keeps what it declared with the file's \
      verdict in `~/.cache/accounts/adapter-checks.json`, and a changed file is loaded again).
      """),
    .text("""
      `login_needs` (1.3; NULL means `ACC_LOGIN_PASSWORD`) says what LOGIN needs with a \
      backend's settings, which it gets without the secret ones: `ACC_LOGIN_PASSWORD` (the \
      account's password: remembered, given, or asked for), or `ACC_LOGIN_PERSON` (a person \
      approves the login elsewhere, shown a message with `ACC_STEP_SHOW`). The host then asks \
      nobody for a password, runs such a LOGIN only where a person sits at a terminal (else \
      status 3, naming `accounts login` on one), and never to renew a session unattended. It \
      must be pure and quick: no network, no state.
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
      ("`ACC_SETTING_PER_ACCOUNT`", "May differ per account. Reserved: hosts up to 1.3 treat it as per backend."),
      ("`ACC_SETTING_ONE_TIME_CODE`", """
        (1.1) When the backend gives this setting a value, LOGIN needs a one-time code: the \
        host computes the current one from the seed kept for the account, else asks for it on \
        a terminal, else fails with status 3 without calling the adapter; it hands the code \
        over in `one_time_code`. The value is the adapter's to use, e.g. the name of the \
        field the code goes in. This is how the host knows, without knowing the adapter.
        """),
      ("`ACC_SETTING_SESSION_CHECK`", """
        (1.2, with `ACC_ADAPTER_CHECK_DECLARED`) CHECK asks the backend only when this setting \
        (or another so flagged) has a value, e.g. the path of a check request.
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
        The token is no longer good (5). The host renews the session once: with the refresh \
        token when the account holds one, else (or when REFRESH answers SESSION_EXPIRED) with \
        a remembered password; without either it deletes the token.
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
      ("`ACC_STEP_SHOW`", """
        (1.3; LOGIN of an adapter whose `login_needs` says `ACC_LOGIN_PERSON`, at most once) \
        Show a person `out->message` (one line, e.g. enter the code WDJB-MJHT) and `out->link` \
        (the URL to open), then call step again with `response` NULL. `out->expires_in` (1 to \
        3600) is how many seconds they have: from then on it is the operation's deadline, \
        each request still bounded by the network timeout, and SENDs with a `delay_ms` of \
        1000 or more do not count against the step limit. The host strips control characters \
        from both strings. A SEND may carry `delay_ms` (1.3, at most 60000): the host waits \
        that long before it performs the request, e.g. a provider's polling interval.
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
        Gets `password` (empty when `login_needs` says no password), and (1.1) \
        `one_time_code`: the current code (6 to 8 digits) when a \
        setting flagged `ACC_SETTING_ONE_TIME_CODE` has a value, else empty; wipe your copies \
        when the session is freed. Log in; on OK return \
        `token` (printable ASCII without spaces, kept in the keyring), `expires_in` (seconds \
        the token stays valid, 0 when unknown) and `session_values`: values to keep with the \
        session and hand back later, such as userId (names [A-Za-z0-9_]; the values are not \
        secret, they are stored in the account index; `accounts exec` exports userId as \
        ACCOUNTS_USER_ID). (1.3) `refresh_token` on OK is a refresh token to keep: a secret \
        the host stores in the Secret Service beside the token, and hands back in REFRESH and \
        LOGOUT; a LOGIN without one drops the account's old one.
        """),
      ("`ACC_OP_CHECK`", """
        Gets `token` and `session_values`. Prove that the token is still good: OK (with \
        `expires_in` when known), or SESSION_EXPIRED or KICKED. The host checks the token's \
        local expiry first and does not ask about a token that expired; an adapter that \
        cannot check may return OK without a SEND.
        """),
      ("`ACC_OP_LOGOUT`", """
        Gets `token`, `session_values` and (1.3) `refresh_token` when the account holds one. \
        Tell the backend the session ends (revoke both tokens); return OK without a SEND when \
        it has no such request. The host tells the backend before it forgets a session that \
        has a refresh token, and after it forgot one that has not; a failure is a warning.
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
      ("`ACC_OP_REFRESH`", """
        (1.3) Gets `refresh_token` and `session_values`. Renew the session without the \
        password: on OK return `token`, `expires_in`, `session_values` (joined to the ones \
        kept) and, when the provider rotated it, `refresh_token` (empty: the old one stays). \
        SESSION_EXPIRED says the refresh token is no longer good (OAuth's invalid_grant): the \
        host forgets it and logs in with a remembered password. Asked only of an account that \
        holds a refresh token, by the command that renews its session.
        """),
    ]),
  ]
}
