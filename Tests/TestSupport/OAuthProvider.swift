import Foundation
import Testing

/// The OAuth 2.0 / OpenID Connect provider of the `oauth2` adapter's end-to-end tests:
/// django-oauth-toolkit 3.4.1 (Tests/OAuthProvider), on a free port of 127.0.0.1, over sqlite in
/// a directory of its own, started through `scripts/oauth-provider serve` in the virtual
/// environment `scripts/setup --test` makes (without it, `init` throws an error naming that
/// command). A start takes about 0.7 s (3 s the first time after an install, which migrates
/// the template database). Stopped by its pid (`stop`, or when this object goes away); it also
/// ends by itself when the test process does, or after `lifetime` seconds.
///
/// Its endpoints are DOT's under the issuer, `http://127.0.0.1:PORT/o`. OIDC discovery names the
/// token, userinfo and jwks endpoints only; RFC 8414's metadata (`metadataURL` and, strictly,
/// `rootMetadataURL`) names token, revocation and introspection; neither names the device
/// authorization endpoint, which a client is given on its own.
///
/// The administration calls (users, clients, tokens, device codes) go to the test-only
/// /test-admin/ view, authenticated by a token made here and handed over in the environment.
public final class OAuthProvider: @unchecked Sendable {
  /// `http://127.0.0.1:PORT`
  public let baseURL: String
  /// The directory holding the database and `provider.log` (every log line of the server).
  public let directory: String
  public let accessTokenLifetime: Int
  private let process: SpawnedProcess
  private let adminToken: String
  private let ownsDirectory: Bool

  /// The provider of the running suite, when it has the trait `.oauthProvider(…)`.
  @TaskLocal public static var current: OAuthProvider?

  /// Starts a provider: access tokens live `accessTokenLifetime` seconds; device clients are
  /// told to poll every `deviceInterval` seconds; device codes live `deviceCodeLifetime` seconds
  /// (DOT itself never says `expired_token` on its own, see `expireDeviceCode`). `directory`
  /// (private, the caller's) or a new temporary one, removed by `stop`. `launcher`: another
  /// copy of scripts/oauth-provider (for the tests of this helper).
  public init(
    directory: String? = nil, accessTokenLifetime: Int = 3600, deviceInterval: Int = 1,
    deviceCodeLifetime: Int = 1800, lifetime: Int = 1800,
    launcher: String = PackagePaths.script("oauth-provider")
  ) throws {
    if let directory {
      self.directory = directory
      ownsDirectory = false
    } else {
      var template = Array((NSTemporaryDirectory() + "/accounts-oauth-provider.XXXXXX").utf8CString)
      guard mkdtemp(&template) != nil else {
        throw OAuthProviderError.didNotStart("mkdtemp: errno \(errno)")
      }
      self.directory = String(cString: template)
      ownsDirectory = true
    }
    self.accessTokenLifetime = accessTokenLifetime
    adminToken = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()
    var environment = ProcessInfo.processInfo.environment
    environment["OAUTH_PROVIDER_ADMIN_TOKEN"] = adminToken
    let errors = self.directory + "/stderr.log"
    let options: KeyValuePairs = [
      "--access-token-lifetime": accessTokenLifetime, "--device-interval": deviceInterval,
      "--device-code-lifetime": deviceCodeLifetime, "--lifetime": lifetime,
    ]
    process = try SpawnedProcess(
      launcher, ["serve", self.directory] + options.flatMap { [$0.key, String($0.value)] },
      environment: environment, standardOutput: .pipe, standardError: .appending(errors))
    // The first line is the URL, once it answers: 60 s at most, for a machine busy with the
    // whole test run (a start alone takes 0.7 s).
    let first = firstLine(of: process, timeout: 60)
    guard let first, first.hasPrefix("http://127.0.0.1:") else {
      // Silent for 60 s, or its stdout ended: it is exiting (5 s at most), and its stderr says why.
      for _ in 0..<50 where first != nil && process.isRunning { usleep(100_000) }
      let ended = !process.isRunning
      if !ended { process.signal(SIGKILL) }
      process.waitUntilExit()
      let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
      if ownsDirectory { try? FileManager.default.removeItem(atPath: self.directory) }
      throw OAuthProviderError.didNotStart(
        ended
          ? "exit \(process.terminationStatus): \(said)" : "no URL within 60 s; it said: \(said)")
    }
    baseURL = first
  }

  deinit { stop() }

  /// SIGTERM, then SIGKILL after 2 s; then its directory goes, when it made it.
  public func stop() {
    if process.isRunning {
      process.terminate()
      for _ in 0..<20 where process.isRunning { usleep(100_000) }
      process.signal(SIGKILL)
      process.waitUntilExit()
    }
    if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) }
  }

  public var isRunning: Bool { process.isRunning }
  public var pid: Int32 { process.processIdentifier }

  // MARK: - Where things are

  /// `http://127.0.0.1:PORT/o`: what discovery names as the issuer.
  public var issuer: String { baseURL + "/o" }
  /// OIDC discovery.
  public var discoveryURL: String { issuer + "/.well-known/openid-configuration" }
  /// RFC 8414's metadata under the issuer, where most clients look.
  public var metadataURL: String { issuer + "/.well-known/oauth-authorization-server" }
  /// RFC 8414's metadata where the RFC puts it for an issuer with a path.
  public var rootMetadataURL: String { baseURL + "/.well-known/oauth-authorization-server/o" }
  public var tokenEndpoint: String { issuer + "/token/" }
  public var deviceAuthorizationEndpoint: String { issuer + "/device-authorization/" }
  public var revocationEndpoint: String { issuer + "/revoke_token/" }
  public var introspectionEndpoint: String { issuer + "/introspect/" }
  public var userinfoEndpoint: String { issuer + "/userinfo/" }
  /// The page where a person enters a user code (`verification_uri`).
  public var verificationURI: String { issuer + "/device/" }
  public var logPath: String { directory + "/provider.log" }

  // MARK: - Administration

  /// A grant a client may use (DOT gives each client one, and refresh tokens).
  public enum Grant: String, Sendable {
    case password
    case clientCredentials = "client_credentials"
    case deviceCode = "device_code"
  }

  /// A client: a public one has no secret.
  public struct Client: Sendable {
    public let id: String
    public let secret: String?

    public init(id: String, secret: String?) {
      self.id = id
      self.secret = secret
    }
  }

  /// A user's or a client's tokens the server would still accept.
  public struct LiveTokens: Sendable, CustomStringConvertible {
    public struct AccessToken: Sendable {
      public let token: String
      public let clientID: String?
      public let scope: String
      public let expires: Date
    }
    public struct RefreshToken: Sendable {
      public let token: String
      public let clientID: String
      /// The access token issued with it, while that one lives.
      public let accessToken: String?
    }
    /// Not yet expired (a revoked one is deleted).
    public let access: [AccessToken]
    /// Not revoked.
    public let refresh: [RefreshToken]

    public var isEmpty: Bool { access.isEmpty && refresh.isEmpty }
    public var description: String {
      let accessClients = access.map { $0.clientID ?? "-" }
      return "\(access.count) access token(s) of \(accessClients), "
        + "\(refresh.count) refresh token(s) of \(refresh.map(\.clientID))"
    }
  }

  /// A new user with `password`; a name taken is an error.
  public func addUser(_ name: String, password: String) throws {
    try admin("users", ["username": name, "password": password])
  }

  /// The user's password becomes `password`; its tokens stay as they are.
  public func setPassword(of user: String, to password: String) throws {
    try admin("users/\(user)/password", ["password": password])
  }

  /// A new client `id` for `grant`: confidential (with `secret`, or a new one) or public.
  @discardableResult
  public func addClient(
    _ id: String, grant: Grant, confidential: Bool = true, secret: String? = nil
  ) throws -> Client {
    var body = [
      "client_id": id, "client_type": confidential ? "confidential" : "public",
      "grant_type": grant.rawValue,
    ]
    if let secret { body["client_secret"] = secret }
    let reply = try admin("applications", body)
    return Client(id: id, secret: reply["client_secret"] as? String)
  }

  /// The user's live tokens, of every client.
  public func liveTokens(of user: String) throws -> LiveTokens {
    try Self.tokens(admin("users/\(user)/tokens", method: "GET"))
  }

  /// The client's live tokens (those of the client credentials grant have no user).
  public func liveTokens(ofClient id: String) throws -> LiveTokens {
    try Self.tokens(admin("applications/\(id)/tokens", method: "GET"))
  }

  /// Revokes every token of the user at the server, as its revocation endpoint would each.
  public func revokeTokens(of user: String) throws {
    try admin("users/\(user)/revoke-tokens", [:])
  }

  /// Revokes every token issued to the client.
  public func revokeTokens(ofClient id: String) throws {
    try admin("applications/\(id)/revoke-tokens", [:])
  }

  /// What the person does: logged in as `user`, enters `userCode` on DOT's device page and
  /// accepts on its confirmation page. An unknown, expired or already decided code is an error
  /// naming DOT's reason.
  public func approveDevice(userCode: String, as user: String) throws {
    try admin("device/\(userCode)/approve", ["username": user])
  }

  /// As `approveDevice`, denying: the device's next poll gets `access_denied`.
  public func denyDevice(userCode: String, as user: String) throws {
    try admin("device/\(userCode)/deny", ["username": user])
  }

  /// The device code's lifetime ends now and DOT marks it expired: the next poll gets
  /// `expired_token`. (A code DOT does not mark stays `authorization_pending` past its
  /// `expires_in`: DOT's token endpoint never looks at the time.)
  public func expireDeviceCode(userCode: String) throws {
    try admin("device/\(userCode)/expire", [:])
  }

  @discardableResult
  private func admin(_ path: String, _ body: [String: String] = [:], method: String = "POST") throws
    -> [String: Any]
  {
    let url = baseURL + "/test-admin/" + path
    let header = "X-Test-Admin-Token: " + adminToken
    let reply =
      method == "GET"
      ? try LoopbackHTTP.get(url, headers: [header])
      : try LoopbackHTTP.post(url, json: body, headers: [header])
    guard reply.status == 200, let json = reply.json else {
      throw OAuthProviderError.refused(path, reply)
    }
    return json
  }

  private static func tokens(_ reply: [String: Any]) throws -> LiveTokens {
    guard let access = reply["access_tokens"] as? [[String: Any]],
      let refresh = reply["refresh_tokens"] as? [[String: Any]]
    else {
      throw OAuthProviderError.unreadable("\(reply)")
    }
    return LiveTokens(
      access: access.map {
        LiveTokens.AccessToken(
          token: $0["token"] as? String ?? "", clientID: $0["client_id"] as? String,
          scope: $0["scope"] as? String ?? "",
          expires: Date(timeIntervalSince1970: ($0["expires"] as? Double) ?? 0))
      },
      refresh: refresh.map {
        LiveTokens.RefreshToken(
          token: $0["token"] as? String ?? "", clientID: $0["client_id"] as? String ?? "",
          accessToken: $0["access_token"] as? String)
      })
  }
}

public enum OAuthProviderError: Error, CustomStringConvertible {
  case didNotStart(String)
  case refused(String, HTTPReply)
  case unreadable(String)

  public var description: String {
    switch self {
    case .didNotStart(let why): "the OAuth provider did not start: \(why)"
    case .refused(let path, let reply): "the OAuth provider's /test-admin/\(path) refused: \(reply)"
    case .unreadable(let reply): "the OAuth provider's token list is unreadable: \(reply)"
    }
  }
}

/// One provider for a whole suite, read through `OAuthProvider.current`; stopped when the suite ends.
public struct OAuthProviderTrait: SuiteTrait, TestScoping {
  public var isRecursive: Bool { false }
  let accessTokenLifetime: Int

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let provider = try OAuthProvider(accessTokenLifetime: accessTokenLifetime)
    defer { provider.stop() }
    try await OAuthProvider.$current.withValue(provider) { try await function() }
  }
}

extension Trait where Self == OAuthProviderTrait {
  /// The suite's tests share one provider (`OAuthProvider.current`), started before the first.
  public static func oauthProvider(accessTokenLifetime: Int = 3600) -> Self {
    Self(accessTokenLifetime: accessTokenLifetime)
  }
}
