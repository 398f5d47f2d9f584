/// A condition decided by a closure: `true` lets the node run, `false` fails it with
/// ``BlockConditionFailed``, and a thrown error fails it with that error.
///
/// ```swift
/// try graph.add(upload, conditions: [BlockCondition { await settings.uploadsEnabled }])
/// ```
public struct BlockCondition: GraphCondition {
  /// "Block Condition", unless it was given another name.
  public let name: String

  private let block: @Sendable () async throws -> Bool

  /// Creates a condition from a closure.
  ///
  /// - Parameters:
  ///   - name: The condition's name.
  ///   - block: Decides whether the node may run; a thrown error fails the condition with it.
  public init(
    name: String = "Block Condition",
    _ block: @escaping @Sendable () async throws -> Bool
  ) {
    self.name = name
    self.block = block
  }

  public func evaluate(in context: ConditionContext) async -> ConditionResult {
    await self.evaluate()
  }

  /// Runs the closure: the verdict for a node, or for anything else the condition guards.
  package func evaluate() async -> ConditionResult {
    do {
      return try await self.block() ? .satisfied : .failed(BlockConditionFailed(name: self.name))
    } catch {
      return .failed(error)
    }
  }
}

/// A ``BlockCondition``'s closure returned `false`.
public struct BlockConditionFailed: Error, Hashable, Sendable, CustomStringConvertible {
  /// The condition's name.
  public let name: String

  /// Creates the error.
  public init(name: String = "Block Condition") {
    self.name = name
  }

  public var description: String {
    "The condition '\(self.name)' returned false."
  }
}
