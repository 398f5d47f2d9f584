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
  // NB: A context is copied and extended on every run: a store adds the entries of the run (its
  // order, its store, its event sink, its task's id, the reason of its result) to a copy of its
  // own context, and every store's context extends its client's. The entries are a persistent
  // list, newest first, so that a copy is a retain and adding an entry is one node in front of
  // entries that the copies share. (A flat array copied every entry on each first write to a
  // copy: three whole copies per run.) Replacing an entry copies only the nodes in front of it,
  // so that no node keeps a replaced value alive. A lookup walks the list and compares key
  // identities, as the array's did.
  private var head: Node?

  /// The running task's identifier and the reason of the result, which every run sets on a copy
  /// of its own: kept beside the list, so that setting them makes no node (an allocation each).
  var runEntries = RunEntries()

  /// Creates an empty context, in which every entry has its default value.
  public init() {}

  /// The value of an entry, or its key's default value when it was never set.
  ///
  /// - Parameter key: The key of the entry.
  public subscript<Key: OperationContext.Key>(_ key: Key.Type) -> Key.Value {
    get {
      guard let node = self.node(for: ObjectIdentifier(key)) else { return Key.defaultValue }
      // NB: The node of a key is always a `ValueNode<Key.Value>`, so the cast cannot fail: only
      // this setter makes nodes, of its key's value type, and `copy(next:)` copies a node as
      // the same `ValueNode` type.
      return unsafeDowncast(node, to: ValueNode<Key.Value>.self).value
    }
    set {
      var rest = self.head
      if let head, let replaced = self.node(for: ObjectIdentifier(key)) {
        rest = Node.removing(replaced, from: head)
      }
      self.head = ValueNode(key: key, value: newValue, next: rest)
    }
  }

  private func node(for key: ObjectIdentifier) -> Node? {
    // NB: The walk holds no references of its own (a strong one would be a retain and a release
    // per node): the context keeps the head, and every node keeps the next, alive until it
    // returns.
    var node = self.head.map(Unmanaged.passUnretained)
    while let current = node {
      let (id, next) = current._withUnsafeGuaranteedRef { node in
        (node.id, node.next.map(Unmanaged.passUnretained))
      }
      if id == key { return current.takeUnretainedValue() }
      node = next
    }
    return nil
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
  /// One entry of a context, in front of the entries set before it.
  // NB: `@unchecked Sendable` is safe because every stored property is a `let` of a `Sendable`
  // type (`ValueNode`'s value is `Sendable` too); the class is not final only so that
  // `ValueNode` can hold the value unboxed.
  fileprivate class Node: @unchecked Sendable {
    let key: any Any.Type
    /// The entries set before this one, newest first.
    let next: Node?

    init(key: any Any.Type, next: Node?) {
      self.key = key
      self.next = next
    }

    var id: ObjectIdentifier {
      ObjectIdentifier(self.key)
    }

    /// The value, for descriptions.
    var anyValue: any Sendable {
      // NB: Unreachable: the context only makes `ValueNode`s, which override this.
      fatalError("ValueNode overrides anyValue")
    }

    /// A node with the same entry, in front of `next`.
    func copy(next: Node?) -> Node {
      // NB: Unreachable: the context only makes `ValueNode`s, which override this.
      fatalError("ValueNode overrides copy(next:)")
    }

    /// The entries of `list` in front of `replaced` (copied, as other contexts may share them)
    /// followed by the entries behind it (shared): `list` without `replaced`.
    static func removing(_ replaced: Node, from list: Node) -> Node? {
      list === replaced
        ? replaced.next : list.copy(next: Self.removing(replaced, from: list.next!))
    }
  }

  /// A node whose value is stored as its own type, so that reading it is not a dynamic cast.
  fileprivate final class ValueNode<Value: Sendable>: Node, @unchecked Sendable {
    let value: Value

    init(key: any Any.Type, value: Value, next: Node?) {
      self.value = value
      super.init(key: key, next: next)
    }

    override var anyValue: any Sendable {
      self.value
    }

    override func copy(next: Node?) -> Node {
      ValueNode(key: self.key, value: self.value, next: next)
    }
  }
}

extension OperationContext: CustomStringConvertible {
  /// The entries that were set, as `[Key = value, …]`, in no particular order.
  public var description: String {
    var entries = [String]()
    var node = self.head
    while let current = node {
      entries.append("\(typeName(current.key)) = \(current.anyValue)")
      node = current.next
    }
    if let identifier = self.runEntries.runningTaskIdentifier {
      entries.append("operationRunningTaskIdentifier = \(identifier.debugDescription)")
    }
    if let reason = self.runEntries.resultUpdateReason {
      entries.append("operationResultUpdateReason = \(reason)")
    }
    return "[\(entries.joined(separator: ", "))]"
  }
}

// MARK: - Run entries

extension OperationContext {
  /// ``OperationContext/operationRunningTaskIdentifier`` and
  /// ``OperationContext/operationResultUpdateReason``, packed in one word.
  struct RunEntries: Sendable {
    // NB: The low two bits hold the reason (0 when unset), the others the task's number (0 when
    // unset; numbers start at 1 and would take centuries to need 62 bits).
    private var bits: UInt64 = 0

    var runningTaskIdentifier: OperationTaskIdentifier? {
      get {
        let number = self.bits >> 2
        return number == 0 ? nil : OperationTaskIdentifier(number: Int(number))
      }
      set {
        let number = newValue.map { UInt64($0.number) } ?? 0
        self.bits = number << 2 | self.bits & 0b11
      }
    }

    var resultUpdateReason: OperationResultUpdateReason? {
      get {
        switch self.bits & 0b11 {
        case 1: .yieldedResult
        case 2: .returnedFinalResult
        default: nil
        }
      }
      set {
        let reason: UInt64 =
          switch newValue {
          case nil: 0
          case .yieldedResult: 1
          case .returnedFinalResult: 2
          }
        self.bits = self.bits & ~0b11 | reason
      }
    }
  }
}
