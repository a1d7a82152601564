import AccountsContract
import AccountsCLI
import AccountsCore

/// The man page's prose: built into the generator only, never into the accounts binary (the
/// tagline and the overview, which `accounts help` prints too, are in AccountsCLI).
extension Documentation {
  /// DESCRIPTION: the overview, then what only the man page says.
  static let description = [
    overview,
    """
    An account is USER@BACKEND; USER alone or a unique prefix is enough when it names one \
    account. A backend is a named login target served by an adapter.
    """,
    """
    Data goes to stdout and messages to stderr. An error is one line starting with \
    "accounts:"; a warning (something went wrong, but the command did its job and its exit \
    status is unchanged) is one line starting with "accounts: warning:". The other lines on \
    stderr say what was done ("saved alice@corp"); -q/--quiet drops those, never an error, a \
    warning or the line of an account or row that failed. Nothing asks a \
    question when stdin is not a terminal. Passwords are read from a no-echo prompt or from stdin with --password-stdin, \
    never from the command line or the environment.
    """,
    """
    On a terminal, slow work says so on stderr and erases what it said when done: status shows \
    "checking N/M" while its checks run, login --stale "logging in N/M", and a command that \
    waits more than a second for its backend shows a "waiting for BACKEND" line. Nothing of it \
    is written when stderr is no terminal, or when TERM is unset, empty or dumb (a terminal \
    that cannot redraw a line).
    """,
  ]

  /// What a name may hold and why: the man page's NAMES section.
  static let names = [
    """
    A user name may hold \(Names.userRule). Backend and adapter names are ASCII letters and \
    digits, then also '.', '_' and '-': at most 64, starting with a letter or digit. A tag \
    (accounts tag) is one word of \(Tags.rule); tags compare byte for byte. accounts refuses \
    other names.
    """,
    """
    The rule keeps every name safe to type, to complete and to print: no name holds a \
    character that a shell expands or splits on (such as $, backquotes, quotes, blanks, *, ? \
    or ~) or that a terminal acts on or hides (control characters, Unicode format characters \
    such as bidi overrides). E-mail addresses, phone numbers and names in any script fit.
    """,
    """
    Shell completion (accounts completion) offers names as literal words: the bash, zsh and \
    fish scripts never evaluate a name or a word on the command line, and leave out any \
    candidate holding a character a shell would act on. The names come from the accounts \
    program being completed (the one named on the line), which reads them from the index and \
    config and never offers a name that breaks these rules.
    """,
  ]

  /// Which account a command uses and what a backend's verdict does to it: the man page's
  /// SESSIONS section (SPEC §3 and §4).
  static let sessions = [
    "A command that takes [USER] uses, first match wins: \(AccountChoice.orderText). \(AccountChoice.pickerText)",
    """
    A login stores the session token and its expiry in the keyring and the index; --remember \
    also keeps the password, --auto (and switch) also takes the auto-login slot, whose previous \
    holder keeps its password and session. The password comes from --password-stdin, else \
    the remembered one, else a no-echo prompt on a terminal; with none of them the command \
    exits 3 at once.
    """,
    """
    What a backend says: "session expired" (or an expiry that has passed) clears the token and \
    logs in again once with the remembered password, and a request is sent again once; \
    without a remembered password, or when the new session expires at once, it exits 5 and an \
    account without a password gives up the slot. "Signed in elsewhere" (another login took \
    the session over) clears the token and the slot and exits 5, and is never followed by an \
    automatic login, which would take the session back from the other device in a loop. A \
    remembered password the backend rejects (changed elsewhere) is forgotten with the token \
    and the slot: exit 4; a password typed wrong changes nothing. "Upgrade required" changes \
    nothing: exit 6 with the backend's message and link. A backend that cannot be reached \
    within --timeout changes nothing: exit 8. logout ends the session here even when the \
    backend cannot be told.
    """,
  ]

  /// What accounts refuses and why, and how it keeps the keyring and the files in step: the
  /// man page's SAFETY section.
  static let safety = [
    """
    The index and config.json are read only when they are regular files of at most 16 MiB, \
    owned by you or root, writable by nobody else, in a directory nobody else can write to \
    (root's sticky /tmp is fine). Anything else (a FIFO, a device, a file another user owns or \
    can change) is refused with the reason and the fix, and never read: a planted file could \
    change the names accounts shows or the URL a login goes to. accounts doctor shows who \
    owns them.
    """,
    """
    Arguments, passwords and secret settings must be UTF-8 text; a password may not hold a \
    NUL byte. base_url must be an http or https URL with a host and a valid port, and no user \
    name, password, query or fragment: credentials belong in the keyring. A token lifetime \
    longer than ten years counts as ten years.
    """,
    """
    Output that scripts read fails loudly: when stdout cannot be written (a full disk, a \
    closed descriptor) accounts exits 1 and says so. Names, settings and messages are printed \
    with control and Unicode format characters written as \\u{...}, so nothing from a file \
    can act on the terminal.
    """,
    """
    The keyring and the index agree after every command, whether it succeeded, failed, \
    crashed or raced another: every item in the keyring belongs to an account or backend the \
    files name, and every password or token the index claims is in the keyring. Commands that \
    change both hold the writers' lock while they do, record their intent in the index first, \
    store a secret before the index claims it, and take the keyring change back when the \
    index cannot be written. A command killed half-way leaves the account marked to settle; \
    the next command that opens the keyring for it (and status and doctor, for every account) \
    settles it; list, current and completion, which read only the index, leave it. accounts \
    doctor reports keyring items of accounts' schema that no account or backend claims, with \
    the secret-tool command that deletes each; it deletes none itself, since another \
    installation of accounts (another XDG_STATE_HOME) may keep its secrets in the same keyring.
    """,
  ]

  /// What is kept where, for how long, and who can read it: the man page's SECURITY section.
  static let security = [
    """
    Every password, token and secret setting is kept in the Secret Service (gnome-keyring, \
    KeePassXC), the store of record; the index and config.json hold none.
    """,
    """
    Reads. A secret that is readable at once is read over the session bus directly, in an \
    encrypted Secret Service session (dh-ietf1024-sha256-aes128-cbc-pkcs7, the algorithm \
    libsecret and secret-tool use), so no secret crosses the bus in clear; the calls go to the \
    process that owns org.freedesktop.secrets by its unique bus name, and nothing is started \
    by D-Bus activation for them. Everything else (writes, deletes, a locked collection or \
    entry, a confirmation prompt, a missing entry, any unexpected answer) goes through \
    libsecret.
    """,
    """
    Token cache. So that a token is read without starting libsecret, the commands that read \
    a session token (token, exec, env, shell, request, git-credential) keep a copy of it in \
    the kernel keyring (keyrings(7)): a "user" key named accounts:HASH:token:USER@BACKEND in \
    your user keyring, HASH naming this state directory and session bus, so that two setups \
    never share entries. The key is readable by you only (possessor and user permissions; \
    none for group and others) and expires with the token, after 15 minutes at most; \
    /proc/keys lists it. Passwords and secret settings are never cached.
    """,
    """
    A copy is used only while the index still names that very session (its generation, login \
    time and expiry, not left half-settled by an interrupted command), the collection that \
    holds the token's item is unlocked, the item still exists and the same program still \
    provides the Secret Service: before each use accounts asks the session bus directly (one \
    round trip). A token is cached only when its item lies in the collection the default \
    alias names, so one read elsewhere always comes from the Secret Service. A collection locked \
    by accounts lock, Seahorse, a screen lock or any other client is honoured at once: exit 7 \
    and nothing printed. logout, remove, clear, passwd, a new login, a take-over and lock drop \
    the copy. Processes running as you (and root) can read your user keyring, as they can \
    read an unlocked Secret Service. With KeePassXC's "Confirm when passwords are retrieved \
    by clients" on, a copy is used only while KeePassXC reports the entry itself unlocked to a \
    new client (it shows an entry locked until it has allowed that client), so the cache never \
    skips a confirmation KeePassXC would ask for. ACCOUNTS_TOKEN_CACHE=0 keeps tokens in the \
    Secret Service only; where the kernel keyring is not available (containers often block \
    keyctl), accounts reads from the Secret Service without saying so.
    """,
    """
    Token files. Only while a command runs under exec --refresh or lease --refresh, its     session tokens are also in files, for that command: 0600, in $XDG_RUNTIME_DIR/accounts/tokens     (0700, yours, writable by nobody else, below directories only you or root can change; a     tmpfs cleared at logout), each replaced atomically at every renewal and removed when the     command ends. The refresher that renews them is told the accounts, never a secret; it     reads the remembered passwords from the Secret Service itself. Processes running as you     (and root) can read the files, as they can read the command's environment.
    """,
  ]

  /// KeePassXC as the Secret Service: the man page's KEEPASSXC section.
  static let keepassxc = [
    """
    KeePassXC serves the Secret Service for the group its database exposes (Database, Database \
    Settings, Secret Service Integration). Without one, doctor says so and nothing is stored.
    """,
    """
    KeePassXC asks before a program reads an entry unless "Confirm when passwords are \
    retrieved by clients" is cleared (Tools, Settings, Secret Service Integration). On a \
    desktop accounts lets it ask and waits ACCOUNTS_PROMPT_TIMEOUT; without one it says at once \
    that access was not granted.
    """,
    """
    remove and passwd cannot reach what KeePassXC keeps aside: deleted entries go to its \
    Recycle Bin, replaced passwords stay in each entry's history. Clear "Use recycle bin" and \
    limit history items to 0 in Database Settings, and empty the Recycle Bin, to have them gone.
    """,
    """
    accounts records which program keeps its secrets. When another answers (D-Bus starts \
    gnome-keyring while KeePassXC is not running), commands that need a secret exit 7 and say \
    so, and read nothing there; any of them run once with ACCOUNTS_ADOPT_SECRET_SERVICE=1 \
    moves the index and config.json to the other program for good. With nothing remembered, \
    accounts moves on its own.
    """,
  ]

  static let environment: [(String, String)] = [
    ("ACCOUNTS_ACCOUNT",
     "The account commands that take [USER] use when neither USER nor --account is given, before the auto-login slot: one shell or script can use another account without moving the slot."),
    ("ACCOUNTS_SECRET_TIMEOUT",
     "Seconds each Secret Service call may take before accounts gives up with exit status 7 (default 5)."),
    ("ACCOUNTS_PROMPT_TIMEOUT",
     "Seconds accounts waits for a person to answer the keyring's own prompt (unlock a collection, allow access to an entry) before it gives up with exit status 7 (default 120); when the program that shows the prompt quits meanwhile, at once. Prompts are shown only on a desktop (DISPLAY or WAYLAND_DISPLAY) with stderr on a terminal; otherwise a locked collection or an entry that needs permission is reported at once."),
    ("ACCOUNTS_NETWORK_TIMEOUT",
     "Seconds the adapter operations of one command (a login, a check, a call, and a login again with the call sent again) may take together, requests included, before accounts gives up with exit status 8 or 9 (default 20; status gives each account this long); --timeout overrides it for one command."),
    ("ACCOUNTS_IN_HOOK",
     "Set for every hook's process (to the hook's number and event): an accounts command started under a hook does its job but runs no hooks, so a hook cannot start itself again."),
    ("ACCOUNTS_ADAPTER_LOAD_TIMEOUT",
     "Seconds adapters and doctor give each adapter to load, in a separate process, before they stop it and report it as hanging (default 5)."),
    ("ACCOUNTS_ADOPT_SECRET_SERVICE",
     "Set to 1 to accept the Secret Service that answers now (say gnome-keyring) as the one that keeps accounts' secrets, when the files record another (say KeePassXC). Without it accounts refuses to store, delete or settle anything there, with exit status 7: the other one's emptiness would read as every secret gone. With it, any command that reaches the keyring (password and doctor too) settles every claim of the index and config.json against the new one, forgetting what it does not hold, and records it in both; if the new one fails on the way (no default collection), nothing changes. Files that claim no secret move on their own."),
    ("ACCOUNTS_TOKEN_CACHE",
     "Set to 0 to keep session tokens only in the Secret Service. Otherwise the commands that read a token keep a copy in the kernel keyring, readable by you only, for at most 15 minutes and never past the token's expiry, and use it only while the keyring collection is unlocked (see SECURITY)."),
    ("ACCOUNTS_ADAPTER_PATH",
     "Colon-separated directories searched for adapters before $XDG_DATA_HOME/accounts/adapters and the built-in ones."),
    ("ACCOUNTS_DEBUG", "When set, adapters' log lines are shown on stderr."),
    ("TERM", "Unset, empty or dumb: no line of progress and no \"waiting for\" line is drawn on the terminal."),
    ("ACCOUNTS_LEASED, ACCOUNTS_LEASE_FENCE, ACCOUNTS_LEASE_ID",
     "Set by lease for its command: every leased account and each one's fencing number (one per line, in the same order), and the lease's id."),
    ("ACCOUNTS_TOKEN_FILE, ACCOUNTS_TOKEN_FILES",
     "Set by exec --refresh and lease --refresh for their command: the file that always holds the session's live token (the token alone, no newline; replaced atomically, so read it at each use), and with lease every leased account's file, one per line in the order of ACCOUNTS_LEASED. Unset for a command run without --refresh."),
    ("ACCOUNTS_LEASE_STORE",
     "The lease store shared by several machines (CI runners), for every backend without a lease_store setting of its own (one that names another store than this is refused, naming both: one pool keeps its leases in one store): redis://[USER@]HOST[:PORT][/DB] or unix:///PATH (a Redis server; its password is a backend's secret setting lease_store_password, never part of the address), or local (this machine's). A store that cannot be reached or answers what Redis would not is exit status 8, never a fall back to this machine's store. rediss:// (TLS) is refused: the hiredis of Debian stable has no TLS; reach Redis through a tunnel on 127.0.0.1."),
    ("XDG_RUNTIME_DIR", "Leases are kept in $XDG_RUNTIME_DIR/accounts/leases and the token files of --refresh in $XDG_RUNTIME_DIR/accounts/tokens (without it, in /run/user/UID/accounts when that directory is yours and private, else in $XDG_STATE_HOME/accounts); every worker of one pool must see the same directory."),
    ("XDG_CONFIG_HOME", "config.json is in $XDG_CONFIG_HOME/accounts (default ~/.config/accounts)."),
    ("XDG_DATA_HOME",
     "Your own adapters are in $XDG_DATA_HOME/accounts/adapters (default ~/.local/share/accounts/adapters)."),
    ("SHELL",
     "The shell `accounts shell` starts (default /bin/sh), and the syntax `accounts env` writes when --shell is not given (bash unless SHELL names zsh or fish)."),
    ("XDG_STATE_HOME", "The index is in $XDG_STATE_HOME/accounts (default ~/.local/state/accounts)."),
    ("TZ", "The time zone of the times `list` shows; --json always uses UTC."),
  ]

  static let files: [(String, String)] = [
    ("$XDG_STATE_HOME/accounts/accounts.json",
     "The index: saved accounts, the auto-login slot, token expiry times; no secrets. Writers lock accounts.json.lock; the previous version is kept as accounts.json.bak. Members accounts does not know are kept when it writes."),
    ("$XDG_CONFIG_HOME/accounts/config.json",
     "The backends and their non-secret settings. It may be a symbolic link (a dotfiles repository): accounts writes through the link."),
    ("$XDG_RUNTIME_DIR/accounts/leases",
     "The leases of this machine: per account a lock file, held by the processes of a lease held by a command (the kernel frees it when they exit), a record (lease id, holder, since, expiry, fence) and a fence counter, named by a hash of the account; no secrets. Files not private to you are refused, never followed."),
    ("$XDG_RUNTIME_DIR/accounts/tokens",
     "The token files of exec --refresh and lease --refresh (0600, in a 0700 directory that must be yours and writable by nobody else), each removed when its command ends; one whose refresher was killed stays until the runtime directory is cleared at logout."),
    ("$XDG_DATA_HOME/accounts/adapters",
     "Your own adapters, NAME.so, checked before loading: not writable by group or others, owned by you or root, reached and linked only through places only you or root can write (see accounts-adapter(7))."),
  ]

  static let seeAlso = ["accounts-config(5)", "accounts-adapter(7)", "secret-tool(1)", "gnome-keyring-daemon(1)", "seahorse(1)"]
}
