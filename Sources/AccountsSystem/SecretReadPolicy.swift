/// How a read of the Secret Service goes, written once for both clients: the bare session-bus
/// one (`SecretServiceSession`) and libsecret's (`SecretService`), where they decide the same.
public enum SecretReadPolicy {
  /// The one provider that finds the items of a locked collection too (as locked), so that a
  /// read from it searches first and looks at the collection only when nothing readable was found.
  static let providerListingLockedItems = "gnome-keyring-daemon"

  /// Whether a read from `provider` (its program's name) must find the default collection, and
  /// find it unlocked, before it searches: any provider but gnome-keyring. KeePassXC may hold the
  /// search of a locked database for an unlock prompt (UnlockBeforeSearch), and may not list a
  /// locked database's entries at all.
  public static func checksCollectionBeforeSearch(provider: String?) -> Bool {
    provider != providerListingLockedItems
  }

  /// How many times one read searches: an item it found and could not read, because another
  /// process deleted it in between (a logout racing the command), is not found by the next search.
  static let searches = 3

  /// What one search of a read came to.
  public enum Round<Answer> {
    /// The read's answer.
    case answered(Answer)
    /// Search again: an item found vanished before it was read, or the collection was only
    /// now found unlocked.
    case searchAgain
  }

  /// Runs `round` (one search and what follows it) until it answers, at most `searches` times;
  /// nil when every round had to search again (items kept vanishing while being read).
  public static func searching<Answer, Failure: Error>(
    _ round: () throws(Failure) -> Round<Answer>
  ) throws(Failure) -> Answer? {
    for _ in 0..<searches {
      if case .answered(let answer) = try round() { return answer }
    }
    return nil
  }
}
