import CAccountsAdapter
import SecretMemory

/// A borrowed C struct that starts with `uint32_t size`, read one field at a time and only as
/// far as its writer's `size` covers (the header's growth rule). Loading the whole struct
/// through `pointee` could read past the end of a shorter, older struct.
struct SizedStruct<Struct> {
  let base: UnsafeRawPointer
  let size: Int

  init(_ pointer: UnsafePointer<Struct>) {
    base = UnsafeRawPointer(pointer)
    size = Int(base.load(as: UInt32.self))
  }

  /// The field, or nil when the writer's struct is too short to have it.
  func field<Value>(_ key: KeyPath<Struct, Value>) -> Value? {
    guard let offset = MemoryLayout<Struct>.offset(of: key),
      offset + MemoryLayout<Value>.size <= size
    else { return nil }
    return base.load(fromByteOffset: offset, as: Value.self)
  }
}

/// The step output, written one field at a time and only as far as the host's `size` says.
struct StepOutputWriter {
  let base: UnsafeMutableRawPointer
  let size: Int

  init(_ pointer: UnsafeMutablePointer<acc_step_output>) {
    base = UnsafeMutableRawPointer(pointer)
    size = Int(base.load(as: UInt32.self))
  }

  /// Whether the host's struct has the field.
  func has<Value>(_ key: KeyPath<acc_step_output, Value>) -> Bool {
    guard let offset = MemoryLayout<acc_step_output>.offset(of: key) else { return false }
    return offset + MemoryLayout<Value>.size <= size
  }

  /// Writes the field when the host's struct has it; returns whether it did.
  @discardableResult
  func set<Value>(_ key: KeyPath<acc_step_output, Value>, _ value: Value) -> Bool {
    guard has(key), let offset = MemoryLayout<acc_step_output>.offset(of: key) else {
      return false
    }
    base.storeBytes(of: value, toByteOffset: offset, as: Value.self)
    return true
  }
}

extension acc_string {
  /// The bytes, borrowed; empty for a NULL pointer or a zero length.
  var borrowedBytes: UnsafeRawBufferPointer {
    guard let bytes, length > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: bytes, count: length)
  }

  /// The bytes decoded as UTF-8 (invalid sequences become U+FFFD).
  var text: String { String(decoding: borrowedBytes, as: UTF8.self) }

  /// A copy in wiped memory.
  var secret: SecretBytes { SecretBytes(copying: borrowedBytes) }
}

extension acc_pairs {
  /// The pairs, borrowed; empty for a NULL pointer or a zero count.
  var borrowedItems: UnsafeBufferPointer<acc_pair> {
    guard let items, count > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
    return UnsafeBufferPointer(start: items, count: count)
  }

  /// The pairs as text.
  var pairs: [Pair] { borrowedItems.map { Pair($0.name.text, $0.value.text) } }
}
