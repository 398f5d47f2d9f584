public import Foundation
import OperationSynchronization

/// Decides, once a ``ConcurrentOperation`` has started (its dependencies have finished), whether
/// it executes: danthorpe/Operations' `OperationCondition`.
///
/// An operation evaluates all of its conditions concurrently and keeps every failure. When one
/// fails, the operation finishes with the failures as its ``ConcurrentOperation/errors``, without
/// executing (it is not cancelled). A condition can also:
/// - make its operation mutually exclusive with every other operation, or graph node, of the same
///   category (``isMutuallyExclusive``, or a `NamedCondition.mutualExclusionCategory` of its
///   own);
/// - bring an operation that must run before it is evaluated
///   (``dependency(for:)``): a permission prompt before the check that permission was given, say.
///
/// ```swift
/// struct SignedIn: OperationCondition {
///   let session: Session
///   var name: String { "Signed In" }
///   func evaluate(
///     for operation: ConcurrentOperation,
///     completion: @escaping @Sendable (OperationConditionResult) -> Void
///   ) {
///     session.checkSignedIn { isSignedIn in
///       completion(isSignedIn ? .satisfied : .failed(NotSignedIn()))
///     }
///   }
/// }
///
/// upload.addCondition(SignedIn(session: session))
/// queue.addOperation(upload)
/// ```
///
/// Conditions work on any `OperationQueue`: the operation evaluates them itself when the queue
/// starts it, so no queue subclass is needed.
public protocol OperationCondition: NamedCondition {
  /// Whether operations with this condition run one at a time; `false` by default.
  ///
  /// The category is the condition's type name, as in Operations, unless the condition gives a
  /// `NamedCondition.mutualExclusionCategory` of its own.
  var isMutuallyExclusive: Bool { get }

  /// An operation to run before the condition is evaluated, or `nil` (the default) for none.
  ///
  /// The operation adds it, with the operations it depends on, to a queue of its own once its
  /// ordinary dependencies have finished, so it runs after them, and while it holds its
  /// mutual-exclusion locks; it waits for it, then evaluates the condition. As with
  /// ``Foundation/Operation/enqueue(on:)``, an operation that already runs, or that `enqueue`
  /// added before, is not added again. Cancelling the conditioned operation while it waits
  /// cancels the dependency.
  ///
  /// - Parameter operation: The conditioned operation.
  /// - Returns: The dependency.
  func dependency(for operation: ConcurrentOperation) -> Foundation.Operation?

  /// Evaluates the condition.
  ///
  /// Call `completion` exactly once, from any thread; later calls are ignored. Until it is
  /// called, the operation waits (and holds its place on its queue).
  ///
  /// - Parameters:
  ///   - operation: The conditioned operation.
  ///   - completion: Receives the verdict.
  func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  )
}

extension OperationCondition {
  public var isMutuallyExclusive: Bool { false }

  public var mutualExclusionCategory: String? {
    self.isMutuallyExclusive ? String(describing: Self.self) : nil
  }

  public func dependency(for operation: ConcurrentOperation) -> Foundation.Operation? {
    nil
  }
}

/// The verdict of an ``OperationCondition``: Operations' name for `ConditionResult`.
///
/// `.satisfied` lets the operation execute; `.failed(error)` finishes it with `error` without
/// executing; `.cancelled` cancels it quietly.
public typealias OperationConditionResult = ConditionResult

extension OperationCondition {
  /// Evaluates the condition from async code, taking only the first verdict.
  func evaluate(for operation: ConcurrentOperation) async -> ConditionResult {
    await withCheckedContinuation { (continuation: CheckedContinuation<ConditionResult, Never>) in
      let resumed = Lock(false)
      self.evaluate(for: operation) { result in
        let isFirst = resumed.withLock { resumed in
          defer { resumed = true }
          return !resumed
        }
        if isFirst {
          continuation.resume(returning: result)
        }
      }
    }
  }
}
