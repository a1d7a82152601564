import SecretMemory

/// `text` as the bytes of a secret.
public func secret(_ text: String) -> SecretBytes {
  var bytes = Array(text.utf8)
  return SecretBytes(consuming: &bytes)
}

/// A secret's bytes as text, for a test to compare.
public func text(_ secret: SecretBytes) -> String { secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
