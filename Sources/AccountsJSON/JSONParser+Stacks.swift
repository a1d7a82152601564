extension Array {
  /// Removes the elements from `start` on and returns them as a new, exactly-sized array: a
  /// container that closes takes its contents off the parser's shared stack this way.
  mutating func removeTail(from start: Int) -> [Element] {
    let tail = Array(self[start...])
    removeLast(count - start)
    return tail
  }
}
