/// What every condition has, whether it guards a node of a ``WorkGraph`` (``GraphCondition``) or
/// an operation on Foundation's `OperationQueue` (`OperationCondition`, in the
/// `OperationQueueCompat` module): a name and a category of mutual exclusion.
///
/// With `OperationQueueCompat` imported, the condition types of this module
/// (``BlockCondition``, ``NegatedCondition``, ``SilentCondition``, ``MutuallyExclusive``,
/// ``NoFailedDependenciesCondition`` and ``ReachabilityCondition``) are both kinds at once, so
/// one value can guard a graph's node and an operation alike.
public protocol NamedCondition: Sendable {
  /// The condition's name, as errors and logs show it.
  var name: String { get }

  /// The category of mutual exclusion, or `nil` (the default) for none.
  ///
  /// Work with a condition of the same category never runs at the same time, in any graph or
  /// queue of the process: graph nodes and operations of one category exclude each other too.
  /// They run one at a time, in the order they asked for the category's lock, once they had a
  /// slot to run in.
  var mutualExclusionCategory: String? { get }
}

extension NamedCondition {
  public var mutualExclusionCategory: String? { nil }
}
