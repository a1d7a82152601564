// The LOADING section of man/accounts-adapter.7 (see AdapterManual+Text.swift for the rest).
extension AdapterManual {
  /// LOADING: where adapters are found, what is checked before one is loaded and why, and
  /// what a refusal says. Kept apart: it follows the host's checks closely.
  static let loading: [Block] = [
    .text("""
      The host searches `$ACCOUNTS_ADAPTER_PATH` (colon-separated), then \
      `$XDG_DATA_HOME/accounts/adapters` (`~/.local/share/accounts/adapters`), then the \
      directory of the built-in adapters. A file named *NAME*`.so` or `lib`*NAME*`.so` (the \
      name cargo and SwiftPM give a library) is adapter *NAME*. The first file of a name in \
      search order wins; later ones are listed as not used.
      """),
    .text("""
      Before loading a file the host checks it, reading only its metadata, its ELF headers \
      and its dynamic section, so that no code runs from a file, or a library it brings in, \
      that anyone but you or root could have put there:
      """),
    .bullets([
      """
      The path is followed one name at a time, as the kernel does (at most 40 symbolic \
      links). Every directory a name is looked up in, from / down to the file's own and \
      including the directories symbolic links live in, must be owned by root or the user \
      and not writable by group or others. A root-owned sticky directory such as /tmp is \
      accepted, but what is found in it (the file, a directory, a symbolic link) must itself \
      be owned by root or the user. Where a link leads is not enough: anyone who can write \
      the directory a link lives in can point it elsewhere.
      """,
      "The file must be a regular file owned by root or the user and not writable by group or others.",
      """
      Its ELF header must describe a shared library (not a program or an object file) for \
      this machine: the same word size, byte order and `e_machine` (`dlopen` would report a \
      library for another machine as "No such file or directory").
      """,
      """
      `dlopen` also loads the libraries the file names in `DT_NEEDED`, `DT_FILTER` and \
      `DT_AUXILIARY`, looking first in its `RUNPATH` or `RPATH`, and runs their \
      constructors. So every `RUNPATH` and `RPATH` entry must be absolute, or start with \
      `$ORIGIN` (the directory the adapter file is in, links resolved), and name a directory \
      that is writable by nobody but root and the user, or that does not exist where only \
      root or the user could create it. Unlike a directory a path passes through, a \
      directory the loader searches may not be root's sticky /tmp either: anyone may add a \
      library name there (nor may `$ORIGIN` be /tmp, for an adapter kept directly in it). \
      An empty or relative entry means the current directory and is refused, as are `$LIB`, \
      `$PLATFORM` and any other `$` token. A library named by a path must be named by an \
      absolute one that passes the file's own checks. Link with \
      `-Wl,-rpath,'$ORIGIN/lib'`, an absolute path only root or you can write, or no \
      `RUNPATH` at all.
      """,
      """
      Every library the loader would load with the file, transitively, is checked too. The \
      host asks the system's dynamic loader itself which files those are (the loader of \
      this program, in trace mode: `LD_TRACE_LOADED_OBJECTS=1`, what `ldd`(1) uses, which \
      maps the files but runs none of their code), so libraries found by plain names through \
      `RUNPATH`, `RPATH`, `LD_LIBRARY_PATH`, ld.so.cache or the system directories are \
      found exactly as `dlopen` finds them. Each must pass the file's own rules, and its own \
      `RUNPATH` and `RPATH` the rules above; a library the loader does not find is refused \
      by name, unless accounts has one of that name loaded already. This costs a few \
      milliseconds, so it is done once per change: a passing verdict is kept in \
      `$XDG_CACHE_HOME/accounts/adapter-checks.json` (default ~/.cache/accounts, 0600 in a \
      0700 directory) with the device, inode, size, mtime and ctime of every file it \
      depended on (the adapter, each library, each directory searched, ld.so.cache, the \
      loader), and a later load re-checks those with `stat`(2) alone and asks the loader \
      again on any difference, so a library swapped for one of the same size and mtime is \
      still checked (its ctime changed). A cache file that is malformed, not yours, or \
      writable by others is ignored and rewritten; a refusal is never kept. Shell \
      completion never loads an adapter into its own process: the setting names it offers \
      come from a child process, as for `accounts adapters`, given at most 2 seconds.
      """,
    ]),
    .text("""
      The host then loads the file by its resolved path with `dlopen`(3) and \
      `RTLD_NOW | RTLD_LOCAL` (every symbol must resolve at once, none is shared with other \
      adapters), checks the descriptor, and never closes it.
      """),
    .text("""
      `accounts adapters` and `accounts doctor` load each adapter file in a process of its \
      own, in a session of its own: an adapter that crashes while loading (a constructor \
      that aborts, an entry that returns a bad pointer, a descriptor string that points \
      nowhere) is listed as "crashed while loading (SIGSEGV)", one that takes longer than \
      `ACCOUNTS_ADAPTER_LOAD_TIMEOUT` seconds (default 5) is stopped and listed as such, and \
      the others are listed as usual. The process answers for its one file and exits at \
      once; anything else it writes on the pipe accounts reads, or a crash after its answer, \
      refuses that file ("its probe wrote something else on accounts' pipe"), never another \
      one. Its process group is killed when it ends, with whatever the adapter started, and a \
      signal the adapter sends to its own group does not reach the command. The commands \
      that use an adapter load it in their own process, where a crash (SIGSEGV, SIGBUS, \
      SIGILL, SIGFPE, SIGABRT) or a call of `exit`(3) inside adapter code (while loading, or \
      in session_new, step or session_free) ends the command with exit status 9 and one \
      line naming the adapter and what happened ("adapter NAME crashed (SIGSEGV) during \
      login; nothing was stored"): nothing of that operation is stored. Threads an adapter \
      starts itself are not covered. What an adapter writes on stdout is dropped; what it \
      writes on stderr is shown as "adapter: TEXT", with control characters made visible.
      """),
    .text("""
      A refused adapter is reported with its path and the reason; the others keep working. \
      `accounts adapters` lists every adapter found with its version, ABI, path and settings, \
      or why it was refused and the command that fixes it (paths quoted for the shell, bytes \
      of a file name that are not UTF-8 shown as `\\x`*NN*), and exits with status 9 when no \
      adapter at all can be loaded; `accounts adapters` *NAME* shows one adapter's settings \
      in full, and exits with status 9 when it cannot be loaded. The reasons for refusing a \
      file:
      """),
    .bullets([
      "the file name is not a valid adapter name (ASCII letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 64);",
      "not a regular file, or not an ELF shared library;",
      "the file, a directory on its path, or a symbolic link in a sticky directory is owned by another user, or a directory is writable by group or others; more than 40 symbolic links;",
      "built for another machine, word size or byte order; an executable or an object file instead of a shared library;",
      "a `RUNPATH` or `RPATH` entry or a library path that is empty, relative, uses a `$` token other than `$ORIGIN`, or leads to a place that fails the checks above, or a directory to search that others can write (/tmp included);",
      "a library the loader would load with it, directly or through another library, that fails the checks above, or that the loader does not find;",
      "`dlopen` failed: a missing library, an unresolved symbol;",
      "it crashed, or did not finish, while loading, or its probe wrote something else on accounts' pipe;",
      "no `accounts_adapter_v1` symbol: not an adapter, or built for another major ABI version;",
      "the entry returned NULL;",
      "the descriptor's `abi_version` has another major version, or a newer minor version than the host's;",
      "the descriptor's `name` is not the *NAME* of the file;",
      "`session_new`, `step` or `session_free` is NULL;",
      "more than 64 settings, or a setting name that is not lowercase [a-z0-9_] or is declared twice;",
      "a descriptor string that is not UTF-8, is NULL with a length, or is too long (version 64 bytes, description 4096, any other 256).",
    ]),
  ]
}
