/// A condition that keeps its node from running at the same time as any other node of the same
/// category, in any graph of the process.
///
/// It is always satisfied; the exclusion comes from a process-wide FIFO lock per category. A node
/// takes the lock once it has a slot to run in (after its dependencies and conditions), before
/// its will-start observers, and holds it until its work returns. Nodes of one category run one
/// at a time, in the order they asked for the lock (nodes that got their slots at the same time
/// may ask in either order); a node that waits for the lock counts against its graph's
/// concurrency limit, and a node that waits for a slot holds no lock.
///
/// ```swift
/// enum Alert {}
/// try graph.add(showError, conditions: [MutuallyExclusive<Alert>()])
/// try otherGraph.add(showUpdate, conditions: [MutuallyExclusive<Alert>()])  // never overlaps
/// ```
///
/// > Important: A node that holds a category and then waits for another node of the same
/// > category (a group whose child has the same category, say) waits forever.
public struct MutuallyExclusive<Category>: GraphCondition {
  /// `MutuallyExclusive<Category>`, which is also the category.
  public let name: String

  /// Creates the condition for the category named by a type.
  public init() {
    self.name = "MutuallyExclusive<\(String(describing: Category.self))>"
  }

  public var mutualExclusionCategory: String? {
    self.name
  }

  public func evaluate(in context: ConditionContext) async -> ConditionResult {
    .satisfied
  }
}

extension MutuallyExclusive where Category == String {
  /// Creates the condition for a category named by a string.
  ///
  /// - Parameter category: The category; its name is `MutuallyExclusive<category>`.
  public init(category: String) {
    self.name = "MutuallyExclusive<\(category)>"
  }
}

/// The category of alerts: `MutuallyExclusive<Alert>`, which danthorpe/Operations calls
/// `AlertPresentation`.
public enum Alert {}

/// Alerts never show at the same time.
public typealias AlertPresentation = MutuallyExclusive<Alert>
