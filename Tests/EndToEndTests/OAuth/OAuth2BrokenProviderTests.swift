import Foundation
import TestSupport
import Testing

/// A provider that answers garbage, HTML, a token without access_token, slowly, or not at all:
/// `accounts login` ends with exit 8 within ACCOUNTS_NETWORK_TIMEOUT, stores nothing, and
/// never shows the password. The answers come from a few lines of Python's http.server on
/// 127.0.0.1: not an OAuth server, a broken one.
@Suite(.blocking) struct OAuth2BrokenProviderTests {
  /// Serves /html, /text, /noaccess, /slow (answers after 30 s) and /empty on 127.0.0.1; prints
  /// its port first.
  static let server = #"""
    import http.server, sys, time, os, threading
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            kind, body = {
                "/html": ("text/html", b"<html><body>\x1b[31mLogin</body></html>"),
                "/text": ("text/plain", b"Service Unavailable \x1b]0;pwned\x07"),
                "/noaccess": ("application/json", b'{"token_type": "Bearer", "expires_in": 60}'),
                "/empty": ("application/json", b""),
            }.get(self.path, ("", None))
            if self.path == "/slow":
                time.sleep(30)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=lambda: (time.sleep(120), os._exit(0)), daemon=True).start()
    server.serve_forever()
    """#

  @Test(arguments: ["html", "text", "noaccess", "empty", "slow", "closed"])
  func aBrokenProviderIsExit8WithinTheTimeoutAndNothingIsStored(_ path: String) throws {
    let process = try SpawnedProcess(
      "/usr/bin/python3", ["-c", Self.server], environment: ["PATH": "/usr/bin:/bin"], standardOutput: .pipe)
    defer { process.terminate() }
    let port = String(decoding: readSome(from: process.outputDescriptor), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(Int(port) != nil, "the server printed no port: \(port)")
    // Port 9 (discard): nothing listens there on a test machine.
    let url = path == "closed" ? "http://127.0.0.1:9/token" : "http://127.0.0.1:\(port)/\(path)"
    let world = try Fixture()
    defer { world.close() }
    try world.sandbox.addBackend("id", adapter: "oauth2", settings: ["token_endpoint=\(url)", "client_id=app"])
    let started = Date()
    let result = try world.sandbox.run(
      ["login", "eve@id", "--password-stdin"], stdin: "eves-password\n", environment: ["ACCOUNTS_NETWORK_TIMEOUT": "2"])
    let seconds = Date().timeIntervalSince(started)
    #expect(result.status == 8, "\(result)")
    #expect(seconds < 8, "ended within the timeout and start-up: \(seconds) s")
    #expect(result.standardError.split(separator: "\n").count <= 2, "\(result)")
    #expect(!result.standardError.contains("eves-password") && !result.standardOutput.contains("eves-password"))
    #expect(!result.standardError.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(result)")
    #expect(try world.sandbox.ok(["list", "--names"]).standardOutput.isEmpty, "nothing saved")
    let items = try world.sandbox.keyringItems(backend: "id")
    #expect(!items.contains("kind = token") && !items.contains("kind = password"), "\(items)")
  }
}
