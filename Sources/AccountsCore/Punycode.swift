/// Host names in their ASCII form (RFC 3492 punycode, the `xn--` labels of IDNA), for the
/// message that names the fix when a base_url holds a non-ASCII host: curl and the adapters
/// take a host as bytes, so `bücher.example` must be written `xn--bcher-kva.example`.
public enum Punycode {
  /// `host` with every non-ASCII label lowercased and encoded (`bücher.example` is
  /// `xn--bcher-kva.example`); ASCII labels as they are.
  public static func asciiHost(_ host: some StringProtocol) -> String {
    host.split(separator: ".", omittingEmptySubsequences: false).map { label in
      label.unicodeScalars.allSatisfy(\.isASCII) ? String(label) : "xn--" + encode(Array(label.lowercased().unicodeScalars))
    }.joined(separator: ".")
  }

  /// RFC 3492 §6.3, with its parameters for IDNA.
  static func encode(_ input: [Unicode.Scalar]) -> String {
    let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
    func digit(_ value: Int) -> Character {
      Character(Unicode.Scalar(UInt8(value < 26 ? 97 + value : 22 + value)))
    }
    func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
      var delta = first ? delta / damp : delta / 2
      delta += delta / count
      var k = 0
      while delta > ((base - tMin) * tMax) / 2 {
        delta /= base - tMin
        k += base
      }
      return k + (base - tMin + 1) * delta / (delta + skew)
    }
    var output = String(String.UnicodeScalarView(input.filter(\.isASCII)))
    let basicCount = output.unicodeScalars.count
    if basicCount > 0 { output += "-" }
    var n = 128, delta = 0, bias = 72, handled = basicCount
    while handled < input.count {
      let next = input.map { Int($0.value) }.filter { $0 >= n }.min()!
      delta += (next - n) * (handled + 1)
      n = next
      for scalar in input {
        let value = Int(scalar.value)
        if value < n { delta += 1 }
        guard value == n else { continue }
        var q = delta
        var k = base
        while true {
          let t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
          if q < t { break }
          output.append(digit(t + (q - t) % (base - t)))
          q = (q - t) / (base - t)
          k += base
        }
        output.append(digit(q))
        bias = adapt(delta, handled + 1, handled == basicCount)
        delta = 0
        handled += 1
      }
      delta += 1
      n += 1
    }
    return output
  }
}
