import AccountsContract
import AccountsCore
import Testing

@Suite struct BackendSettingsTests {
  let signed = AdapterDescription(
    name: "signed", version: "1.0.0", summary: "signed requests", abiVersion: 0x10000,
    settings: [
      AdapterSetting(name: "base_url", label: "Base URL"),
      AdapterSetting(name: "app_id", label: "App id"),
      AdapterSetting(name: "private_key", label: "Signing key", isSecret: true),
      AdapterSetting(name: "hmac_key", label: "Optional key", isSecret: true, isOptional: true),
      AdapterSetting(name: "plat", label: "Platform", isOptional: true, defaultValue: "linux"),
    ],
    path: "/x/signed.so")

  @Test func completeSettingsHaveNoProblems() {
    let check = BackendSettingsCheck(adapter: signed, hostNames: nil)
    #expect(check.problems(settings: ["base_url": "https://u.example", "app_id": "a"], secretNames: ["private_key"]).isEmpty)
  }

  @Test func gitHostIsAccountsOwnSettingOnEveryBackendAndChecked() {
    let check = BackendSettingsCheck(adapter: signed, hostNames: nil)
    let base = ["base_url": "https://u.example", "app_id": "a"]
    for host in ["git.corp.example", "127.0.0.1:8443", "Git.Corp.Example", "[::1]:80"] {
      #expect(check.problems(settings: base.merging(["git_host": host]) { $1 }, secretNames: ["private_key"]).isEmpty, "\(host)")
    }
    for host in ["", "https://git.corp.example", "git.corp.example/repo", "me@git.corp.example", "git corp", "gït.example", "a\nb"] {
      let problems = check.problems(settings: base.merging(["git_host": host]) { $1 }, secretNames: ["private_key"])
      #expect(problems.count == 1 && problems[0].description.hasPrefix("git_host must be a host name"), "\(host): \(problems)")
    }
    #expect(GitHost.matches("Git.Corp.Example", "git.corp.example"))
    #expect(!GitHost.matches("git.corp.example", "git.corp.example.evil"))
  }

  @Test func unknownSettingsAreNamedWithSuggestions() {
    let problems = BackendSettingsCheck(adapter: signed, hostNames: nil)
      .problems(settings: ["base_url": "https://u.example", "app_idd": "a"], secretNames: ["private_key"])
    #expect(problems == [.unknown(name: "app_idd", suggestions: ["app_id"]), .missing(name: "app_id", label: "App id")])
    #expect(problems[0].description == "adapter has no setting 'app_idd'; did you mean 'app_id'?")
  }

  @Test func secretsGivenInClearAndMissingSecretsAreProblems() {
    let problems = BackendSettingsCheck(adapter: signed, hostNames: nil)
      .problems(settings: ["base_url": "https://u.example", "app_id": "a", "private_key": "leaked"], secretNames: [])
    #expect(problems.contains(.secretGivenInClear(name: "private_key")))
    #expect(problems.contains(.missingSecret(name: "private_key", label: "Signing key")))
    // What the user reads names the setting, never its value.
    for problem in problems where problem == .secretGivenInClear(name: "private_key") {
      #expect(problem.description.hasPrefix("'private_key' is a secret setting: it is asked for without echo"))
      #expect(!problem.description.contains("leaked"))
    }
  }

  @Test func baseURLsWithCredentialsBadPortsOrNoHostAreRefused() {
    let check = BackendSettingsCheck(adapter: signed, hostNames: nil)
    func problem(_ url: String) -> String? {
      check.problems(settings: ["base_url": url, "app_id": "a"], secretNames: ["private_key"]).first?.description
    }
    for good in ["https://api.corp.example", "http://127.0.0.1:8080/api", "https://[::1]:443/x", "HTTPS://Host.Example:1/",
                 "https://h:65535"] {
      #expect(problem(good) == nil, "\(good)")
    }
    #expect(problem("https://alice:hunter2@api.corp.example")?.hasPrefix("base_url must not hold a user name or password") == true)
    #expect(problem("https://token@api.corp.example/x")?.hasPrefix("base_url must not hold a user name or password") == true)
    #expect(problem("https://api.corp.example:0") == "base_url has an invalid port '0' (1 to 65535)")
    #expect(problem("https://api.corp.example:65536") == "base_url has an invalid port '65536' (1 to 65535)")
    #expect(problem("https://api.corp.example:8o8o") == "base_url has an invalid port '8o8o' (1 to 65535)")
    #expect(problem("https://api.corp.example:") == "base_url has an invalid port '' (1 to 65535)")
    #expect(problem("https://h.example:80:81/") == "base_url has an invalid port '80:81' (1 to 65535)")
    #expect(problem("https://:8080/x") == "base_url has no host")
    #expect(problem("ftp://files.example") == "base_url must start with https:// or http://")
    #expect(problem("file:///etc/passwd") == "base_url must start with https:// or http://")
    #expect(problem("https://a.example/x?tenant=1") == "base_url must not have a query (?...) or a fragment (#...)")
    #expect(problem("https://a.example/\u{1B}[31m") == "base_url must not contain spaces or control characters")
    #expect(problem("https://a.example/x y") == "base_url must not contain spaces or control characters")
  }

  /// A non-ASCII host is refused naming its ASCII form as the host-name service gives it (the
  /// host alone is converted; scheme, port and path stay), not left to fail at login as a host
  /// that cannot be resolved; a host the service finds invalid, or no service, is said so.
  @Test func aNonASCIIHostIsRefusedNamingItsASCIIForm() {
    struct Converter: HostNameConversion {
      func asciiHost(_ host: String) -> Result<String, HostNameConversionError> {
        switch host {
        case "bücher.example": .success("xn--bcher-kva.example")
        case "ohne-libidn2.ü": .failure(.unavailable("libidn2.so.0: cannot open shared object file (install libidn2-0)"))
        default: .failure(.invalid("string contains a disallowed character"))
        }
      }
    }
    func problem(_ url: String, _ hostNames: (any HostNameConversion)? = Converter()) -> String? {
      BackendSettingsCheck(adapter: signed, hostNames: hostNames)
        .problems(settings: ["base_url": url, "app_id": "a"], secretNames: ["private_key"]).first?.description
    }
    #expect(
      problem("https://bücher.example:8443/api")
        == "base_url has a non-ASCII host 'bücher.example'; write it in its ASCII (IDNA) form: "
        + "https://xn--bcher-kva.example:8443/api")
    #expect(
      problem("https://a☠b.example/api")
        == "base_url has a non-ASCII host 'a☠b.example' that is no valid international host name "
        + "(string contains a disallowed character); check its spelling")
    #expect(
      problem("http://ohne-libidn2.ü/api")
        == "base_url has a non-ASCII host 'ohne-libidn2.ü'; write it in its ASCII (IDNA, xn--) form "
        + "(no suggestion: libidn2.so.0: cannot open shared object file (install libidn2-0))")
    #expect(problem("https://bücher.example", nil) == "base_url has a non-ASCII host 'bücher.example'; write it in its ASCII (IDNA, xn--) form")
    #expect(problem("https://buecher.example") == nil, "an ASCII host asks no service")
  }

  @Test func requiredSecretsAreAskedAndOptionalOnesOnlyWhenWanted() {
    let check = BackendSettingsCheck(adapter: signed, hostNames: nil)
    #expect(check.secretsToAsk(wanted: []).map(\.name) == ["private_key"])
    #expect(check.secretsToAsk(wanted: ["hmac_key"]).map(\.name) == ["private_key", "hmac_key"])
  }
}
