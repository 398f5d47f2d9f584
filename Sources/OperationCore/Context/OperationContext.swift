/// A typed, value-semantic bag of values that configures how an operation runs.
///
/// The context plays the role of SwiftUI's `EnvironmentValues`: modifiers write to it in
/// ``OperationRequest/setup(context:)``, stores and clients seed it, and operations read it while
/// they run.
///
/// Declare an entry with a key and a computed property:
///
/// ```swift
/// extension OperationContext {
///   var apiClient: APIClient {
///     get { self[APIClientKey.self] }
///     set { self[APIClientKey.self] = newValue }
///   }
///
///   private enum APIClientKey: Key {
///     static let defaultValue = APIClient.live
///   }
/// }
/// ```
///
/// A key whose `defaultValue` is a `static var` computes it on every read of an unset entry; a
/// `static let` computes it once.
///
/// The context is copy-on-write: a copy does not see later writes to the original.
public struct OperationContext: Sendable {
  // NB: A context holds a few dozen entries at most, and it is copied and extended on every run
  // (a store adds the entries of the run to a copy of its context). A flat array makes both cheap:
  // a copy is one allocation, and a lookup compares key identities without hashing them.
  private var storage = ContiguousArray<Entry>()

  /// Creates an empty context, in which every entry has its default value.
  public init() {}

  /// The value of an entry, or its key's default value when it was never set.
  ///
  /// - Parameter key: The key of the entry.
  public subscript<Key: OperationContext.Key>(_ key: Key.Type) -> Key.Value {
    get {
      guard let index = self.index(of: key) else { return Key.defaultValue }
      return self.storage[index].value as! Key.Value
    }
    set {
      if let index = self.index(of: key) {
        self.storage[index] = Entry(key: key, value: newValue)
      } else {
        self.storage.append(Entry(key: key, value: newValue))
      }
    }
  }

  /// The number of entries that were set.
  package var count: Int {
    self.storage.count
  }

  /// Makes room for `capacity` entries, so that adding entries up to it does not reallocate.
  package mutating func reserveCapacity(_ capacity: Int) {
    self.storage.reserveCapacity(capacity)
  }

  private func index(of key: any Any.Type) -> Int? {
    let id = ObjectIdentifier(key)
    return self.storage.firstIndex { ObjectIdentifier($0.key) == id }
  }
}

extension OperationContext {
  /// A key for a value in an ``OperationContext``.
  public protocol Key<Value> {
    /// The type of the value.
    associatedtype Value: Sendable

    /// The value of the entry while nobody has set it.
    static var defaultValue: Value { get }
  }
}

extension OperationContext {
  fileprivate struct Entry: Sendable {
    let key: any Any.Type
    let value: any Sendable

    init(key: any Any.Type, value: any Sendable) {
      self.key = key
      self.value = value
    }
  }
}

extension OperationContext: CustomStringConvertible {
  /// The entries that were set, as `[Key = value, …]`, in no particular order.
  public var description: String {
    let entries = self.storage.map { entry in
      "\(typeName(entry.key)) = \(entry.value)"
    }
    return "[\(entries.joined(separator: ", "))]"
  }
}
