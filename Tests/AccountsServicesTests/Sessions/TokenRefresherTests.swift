@testable import AccountsContract
@testable import AccountsCore
@testable import AccountsServices
import AccountsSystem
import Testing

/// The token refresher's order, the one line its command writes on its standard input.
@Suite struct TokenRefresherTests {
  let login = Timestamp(secondsSince1970: 1_800_000_000)

  @Test func theOrderCarriesNoSecretAndReadsBackAsWritten() throws {
    let order = TokenRefresher.Order(
      entries: [
        TokenRefresher.Entry(
          account: AccountID(user: "ali\"ce", backend: "corp"), file: TokenFile(path: "/run/user/1/accounts/tokens/a.token"),
          generation: "0123456789abcdef", loggedInAt: login, expiresAt: login.adding(seconds: 3), lease: "0f1e2d3c"),
        TokenRefresher.Entry(
          account: AccountID(user: "bob", backend: "corp"), file: TokenFile(path: "/run/b.token"), generation: nil,
          loggedInAt: nil, expiresAt: nil, lease: nil),
      ], checkMilliseconds: 1000, timeoutMilliseconds: 20_000)
    let line = order.encoded()
    #expect(line.last == 10 && line.filter { $0 == 10 }.count == 1, "one line")
    #expect(TokenRefresher.Order.decode(Array(line.dropLast())) == order)
    #expect(order.heldLeases == [AccountID(user: "ali\"ce", backend: "corp"): "0f1e2d3c"], "only the leased account")
    #expect(TokenRefresher.Order.decode(Array("{}".utf8)) == nil)
    let relative = String(decoding: line, as: UTF8.self).replacingOccurrences(of: "/run/b.token", with: "b.token")
    #expect(TokenRefresher.Order.decode(Array(relative.utf8.dropLast())) == nil, "a file is an absolute path")
  }
}
