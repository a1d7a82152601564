// swift-tools-version:6.1
//
// accounts: a command-line account manager. No Swift package dependencies: only the toolchain
// and the system libraries libsecret-1 and GLib, libgcrypt, libcurl and hiredis (see README.md for the
// Debian packages).
//
// Three layers, each importing only those below it (README.md, "Three layers"):
//   AccountsCLI       the command line: table, parsing, rendering, terminal; wires the rest
//   AccountsServices  every implementation of the domain's ports and the choice between them
//   AccountsCore      the domain, its ports and flows; no C module, no Glibc (SourceLintTests)
// on AccountsContract (what the binary and its private library share), AccountsSystem (the
// system primitives, Glibc only), AccountsJSON and SecretMemory.
import PackageDescription

/// The package's directory: the linker's version script is named by its absolute path.
let packageDirectory = String(#filePath.dropLast("/Package.swift".count))

let package = Package(
  name: "accounts",
  products: [
    .executable(name: "accounts", targets: ["accounts"]),
    // accounts' private library, libAccountsPrivate.so: the libsecret wrapper, with the
    // contract it shares with the binary (AccountsContract), not the domain. The executable
    // dlopens it the first time a command needs libsecret (a write, a prompt, a read the bare
    // bus cannot answer), so `list`, completion, `otp`, a readable secret and a request with a
    // cached token do not load libsecret and GLib. One exported symbol, one typed table (CAccountsPrivate).
    .library(name: "AccountsPrivate", type: .dynamic, targets: ["AccountsPrivate"]),
    // The built-in adapters, loaded with dlopen like any third-party adapter.
    .library(name: "plain", type: .dynamic, targets: ["plain"]),
    .library(name: "hmac", type: .dynamic, targets: ["hmac"]),
    .library(name: "signed", type: .dynamic, targets: ["signed"]),
    .library(name: "oauth2", type: .dynamic, targets: ["oauth2"]),
  ],
  targets: [
    // A dozen lines: hands argv to AccountsCLI and exits with its status.
    .executableTarget(name: "accounts", dependencies: ["AccountsCLI"]),
    // The command line: the command table, the parser, one file per command, renderers.
    .target(
      name: "AccountsCLI",
      dependencies: [
        "AccountsContract", "AccountsCore", "AccountsServices", "AccountsSystem", "CAccountsAdapter", "CAccountsPrivate",
        "SecretMemory",
      ]
    ),
    // Build-only, never a product nor installed: writes completions/ and man/ from the command
    // table (scripts/generate; the drift tests use its module), so the man pages' prose and
    // renderers stay out of the accounts binary. `make` builds the products it installs, not this.
    .executableTarget(
      name: "accounts-generate", dependencies: ["AccountsCLI", "AccountsContract", "AccountsCore", "AccountsSystem"]),
    // The domain: accounts, backends, the index, the auto-login slot, the ledger, the session
    // rules with the lease, the flows; and the ports it reaches the system through (SecretStore
    // and AdapterHosting are declared in AccountsContract, which the private library shares).
    .target(
      name: "AccountsCore",
      dependencies: ["AccountsContract", "AccountsJSON", "AccountsSystem", "AccountsText", "SecretMemory"]),
    // Every part of the system the domain reaches through a port, and the choice between them:
    //   SecretStore     SecretServiceStore (the bare bus first, then libsecret behind the door:
    //                   PrivateSecretStore)
    //   AdapterHosting  LinkedAdapterHost (AdapterHost, linked in)
    //   TokenCache      KernelTokenCache (the kernel keyring)
    //   LeaseStore      LocalLeaseStore (files), RedisLeaseStore (hiredis) and its LeaseKeeper
    //   LeaseLookup     StoreLeaseLookup
    //   SessionLocking  SessionLocks (open file description locks)
    //   HostNameConversion  IDNAHostNames (libidn2)
    // and the token refresher with its files, the helper processes, doctor's checks.
    .target(
      name: "AccountsServices",
      dependencies: [
        "AccountsContract", "AccountsCore", "AccountsJSON", "AccountsSystem", "AdapterHost", "CAccountsAdapter",
        "CAccountsPrivate", "CHiredis", "CIDN", "CLazyLibrary", "SecretMemory",
      ]),
    // What the binary and its private library agree on, and all the library links of the domain:
    // the secret store and adapter host ports, their requests, answers and errors, their wire
    // formats across the door, names, exit statuses.
    .target(name: "AccountsContract", dependencies: ["AccountsJSON", "AccountsSystem", "SecretMemory"]),
    // A small JSON reader and writer: Foundation's start-up and decoding cost too much on the
    // `list` and completion paths (see bench/list).
    .target(name: "AccountsJSON"),
    // The system below the domain, Glibc only: file descriptors, safe paths, child processes,
    // ELF headers, the kernel keyring (the token cache) and a bare session-bus client that asks
    // whether the keyring collection is locked, so a cached token is served without loading
    // libsecret or GLib.
    .target(name: "AccountsSystem", dependencies: ["CAccountsSystem", "CCrypto", "SecretMemory"]),
    // Secret bytes, wiped when released and compared in constant time: one type for the host and
    // the adapter kit (built into every adapter), so Glibc only and tiny.
    .target(name: "SecretMemory"),
    // keyctl(2) and add_key(2), which glibc does not wrap and Swift cannot reach through the
    // variadic syscall(2): typed inline wrappers in one header.
    .target(name: "CAccountsSystem"),
    // libgcrypt, loaded with dlopen on first use, behind one small typed table: the Secret
    // Service session's Diffie-Hellman, HKDF's HMAC and AES-128-CBC, one-time codes' HMACs and
    // the adapters' digests (what libsecret uses for the same session).
    .target(name: "CCrypto", dependencies: ["CLazyLibrary"]),
    // hiredis for the shared lease store, loaded with dlopen by the commands that use one, with
    // a typed wrapper for its variadic redisCommand and the context's error text.
    .target(name: "CHiredis", dependencies: ["CLazyLibrary"]),
    // libidn2, loaded with dlopen the first time a non-ASCII host name is met, for its UTS #46
    // ToASCII (base_url hosts as users write them).
    .target(name: "CIDN", dependencies: ["CLazyLibrary"]),
    // The one way a system library is loaded on first use (libgcrypt, libcurl, hiredis, libidn2).
    .target(name: "CLazyLibrary"),
    // Text rules shared across the adapter boundary (URLs without secrets in messages): the
    // host and the built-in adapters both use them, and neither may depend on the other.
    .target(name: "AccountsText"),
    // THE door between the executable and libAccountsPrivate.so: one header, the table of the
    // library's calls, included by both sides so the compiler checks every signature.
    .target(name: "CAccountsPrivate"),
    // The library's one entry point: builds the table. Exports nothing else (exports.map).
    .target(
      name: "AccountsPrivate",
      dependencies: ["CAccountsPrivate", "SecretService"],
      exclude: ["exports.map"],
      linkerSettings: [
        .unsafeFlags(["-Xlinker", "--version-script=\(packageDirectory)/Sources/AccountsPrivate/exports.map"])
      ]
    ),
    // The libsecret wrapper: the only code that touches CLibSecret. Built into
    // libAccountsPrivate.so (see the product above), never into the executable.
    .target(name: "SecretService", dependencies: ["AccountsContract", "AccountsSystem", "CLibSecret", "SecretMemory"]),
    .systemLibrary(
      name: "CLibSecret",
      pkgConfig: "libsecret-1",
      providers: [.apt(["libsecret-1-dev"])]
    ),

    // THE adapter ABI: one header, included by the host and by every adapter.
    .target(name: "CAccountsAdapter"),
    // Finds, checks, dlopens and drives adapters; lends them libgcrypt's digests; performs
    // their HTTP requests with libcurl. Linked into the executable: libgcrypt and libcurl are
    // loaded on first use, so its cost stays with the commands that run an adapter.
    .target(
      name: "AdapterHost",
      dependencies: [
        "AccountsContract", "AccountsSystem", "AccountsText", "CAccountsAdapter", "CCurl", "SecretMemory",
      ]
    ),
    // libcurl, dlopened on the first request (most adapter commands send none), with typed
    // wrappers for its variadic curl_easy_setopt/getinfo, which Swift cannot call.
    .target(name: "CCurl", dependencies: ["CLazyLibrary"]),

    // What the built-in adapters share: the ABI in Swift terms, form encoding, replies.
    .target(
      name: "AdapterKit", dependencies: ["CAccountsAdapter", "AccountsJSON", "AccountsText", "SecretMemory"],
      path: "Plugins/AdapterKit"),
    .target(name: "plain", dependencies: ["AdapterKit"], path: "Plugins/plain"),
    .target(name: "hmac", dependencies: ["AdapterKit"], path: "Plugins/hmac"),
    .target(name: "signed", dependencies: ["AdapterKit", "SecretMemory"], path: "Plugins/signed"),
    .target(name: "oauth2", dependencies: ["AccountsJSON", "AdapterKit", "SecretMemory"], path: "Plugins/oauth2"),

    // Helpers shared by the tests: a private headless keyring, running the built binary.
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    // The unit tests' doubles of the domain's ports: a secret store, an adapter host, lease
    // stores, session locks and a token cache in memory, and a temporary XDG tree.
    .target(
      name: "TestDoubles", dependencies: ["AccountsContract", "AccountsCore", "AccountsSystem", "SecretMemory"],
      path: "Tests/TestDoubles"),
    .testTarget(name: "AccountsJSONTests", dependencies: ["AccountsJSON", "TestSupport"]),
    .testTarget(name: "AccountsSystemTests", dependencies: ["AccountsSystem", "SecretMemory", "TestSupport"]),
    .testTarget(name: "AccountsContractTests", dependencies: ["AccountsContract", "AccountsSystem", "SecretMemory", "TestDoubles"]),
    .testTarget(name: "SecretMemoryTests", dependencies: ["SecretMemory"]),
    // Takes leases in a process of its own, for the lease store's tests.
    .executableTarget(
      name: "LeaseProbe", dependencies: ["AccountsContract", "AccountsCore", "AccountsServices", "AccountsSystem"],
      path: "Tests/LeaseProbe"),
    .testTarget(
      name: "AccountsCoreTests",
      dependencies: [
        "AccountsContract", "AccountsCore", "AccountsSystem", "SecretMemory", "TestDoubles", "TestSupport",
      ]
    ),
    .testTarget(
      name: "AccountsServicesTests",
      dependencies: [
        "AccountsContract", "AccountsCore", "AccountsServices", "AccountsSystem", "LeaseProbe", "SecretMemory",
        "TestDoubles", "TestSupport",
      ]
    ),
    .testTarget(
      name: "AccountsCLITests",
      dependencies: [
        "AccountsCLI", "AccountsContract", "AccountsCore", "AccountsServices", "AccountsSystem", "SecretMemory",
        "TestDoubles", "TestSupport", "accounts-generate",
      ]
    ),
    .testTarget(
      name: "SecretServiceTests",
      dependencies: ["SecretService", "AccountsContract", "AccountsSystem", "SecretMemory", "TestSupport"]
    ),
    .testTarget(name: "AdapterKitTests", dependencies: ["AdapterKit", "SecretMemory"]),
    .testTarget(
      name: "AdapterHostTests",
      dependencies: [
        "AdapterHost", "AccountsContract", "AccountsSystem", "AccountsText", "CAccountsAdapter", "SecretMemory",
        "TestSupport",
      ]
    ),
    // Bounded, seeded fuzzing of the parsers that read untrusted input (scripts/fuzz), each
    // target in a child process of its own, so a trap fails one test and names its case.
    .testTarget(
      name: "FuzzTests",
      dependencies: [
        "AccountsCLI", "AccountsContract", "AccountsCore", "AccountsJSON", "AccountsSystem", "SecretMemory", "AdapterKit",
        "TestSupport",
      ]
    ),
    .testTarget(
      name: "EndToEndTests",
      dependencies: ["accounts", "TestSupport"]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// What ships (the binary, its private library, the built-in adapters) never uses Swift
// concurrency or regexes, so it does not import their modules: the process then loads neither
// libswift_Concurrency (with libdispatch and libBlocksRuntime) nor libswift_StringProcessing
// (with libswift_RegexParser), about 0.7 ms of every start on the 2-core machine. The tests,
// which Swift Testing runs concurrently, keep them.
let shipped: Set = [
  "accounts", "AccountsCLI", "AccountsContract", "AccountsCore", "AccountsServices", "AccountsJSON", "AccountsSystem", "AccountsText", "AccountsPrivate",
  "SecretService", "AdapterHost", "AdapterKit", "plain", "hmac", "signed", "oauth2", "SecretMemory",
]
for target in package.targets where shipped.contains(target.name) {
  target.swiftSettings = (target.swiftSettings ?? []) + [
    .unsafeFlags([
      "-Xfrontend", "-disable-implicit-concurrency-module-import",
      "-Xfrontend", "-disable-implicit-string-processing-module-import",
    ])
  ]
}

// The installed layout (`make` sets ACCOUNTS_LAYOUT=installed, and builds in .build/installed:
// SwiftPM keeps a build directory's plan while this file is unchanged, so one directory cannot
// switch layouts): no file names the toolchain; each finds the Swift runtime `make install`
// copies to PREFIX/lib/accounts through an $ORIGIN-relative RUNPATH, and the adapters load the
// host's runtime (same sonames, so one runtime in the process). Without it (tests, benches) the
// build directory runs against the toolchain's runtime as SwiftPM links it. SwiftPM adds
// $ORIGIN to each RUNPATH either way.
let runtimeSearchPaths = [
  "accounts": "$ORIGIN/../lib/accounts",  // PREFIX/bin/accounts
  "AccountsPrivate": "$ORIGIN",  // PREFIX/lib/accounts/libAccountsPrivate.so
  "plain": "$ORIGIN/..", "hmac": "$ORIGIN/..", "signed": "$ORIGIN/..", "oauth2": "$ORIGIN/..",  // PREFIX/lib/accounts/adapters/
]
if Context.environment["ACCOUNTS_LAYOUT"] == "installed" {
  for target in package.targets {
    guard let path = runtimeSearchPaths[target.name] else { continue }
    target.linkerSettings = (target.linkerSettings ?? []) + [
      .unsafeFlags(["-no-toolchain-stdlib-rpath", "-Xlinker", "-rpath=\(path)"])
    ]
  }
}

// AccountsSystem is optimized in debug builds too: at -Onone the Secret Service session's
// Diffie-Hellman (MontgomeryModulus) took ~20 ms of every secret a debug `accounts` read, most
// of the CPU of the end-to-end tests, which run the debug binary thousands of times.
// (-enable-testing, which @testable needs, is still passed; DEBUG is still defined.)
for target in package.targets where target.name == "AccountsSystem" {
  target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-O"], .when(configuration: .debug))]
}
