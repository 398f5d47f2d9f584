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
  private var storage = [ObjectIdentifier: Entry]()

  /// Creates an empty context, in which every entry has its default value.
  public init() {}

  /// The value of an entry, or its key's default value when it was never set.
  ///
  /// - Parameter key: The key of the entry.
  public subscript<Key: OperationContext.Key>(_ key: Key.Type) -> Key.Value {
    get {
      guard let entry = self.storage[ObjectIdentifier(key)] else { return Key.defaultValue }
      return entry.value as! Key.Value
    }
    set {
      self.storage[ObjectIdentifier(key)] = Entry(key: key, value: newValue)
    }
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
    let entries = self.storage.values.map { entry in
      "\(typeName(entry.key)) = \(entry.value)"
    }
    return "[\(entries.joined(separator: ", "))]"
  }
}
