#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// A fully type-erased ``OperationState``, the state of an ``OpaqueOperationStore``.
///
/// Values and errors are existentials. The unchecked setters force-cast to the base state's
/// types: passing a value of another type traps.
public struct OpaqueOperationState: Sendable {
  /// The erased state.
  public private(set) var base: any OperationState & Sendable

  /// Erases a state.
  ///
  /// - Parameter base: The state to erase.
  public init(_ base: any OperationState & Sendable) {
    self.base = base
  }
}

extension OpaqueOperationState: OperationState {
  /// The type of the base state's current value, erased.
  public typealias StateValue = any Sendable
  /// The type of value a run of the base state returns, erased.
  public typealias OperationValue = any Sendable
  /// The type of value of the base state's status, erased.
  public typealias StatusValue = any Sendable
  /// The type of error of the base state, erased.
  public typealias Failure = any Error

  /// The base state's current value.
  public var currentValue: any Sendable { self.base.currentValue }
  /// The base state's initial value.
  public var initialValue: any Sendable { self.base.initialValue }
  /// How many times the base state's value was updated.
  public var valueUpdateCount: Int { self.base.valueUpdateCount }
  /// When the base state's value was last updated.
  public var valueLastUpdatedAt: Date? { self.base.valueLastUpdatedAt }
  /// Whether the base state is loading.
  public var isLoading: Bool { self.base.isLoading }
  /// The base state's last error.
  public var error: (any Error)? { self.base.error }
  /// How many times the base state received an error.
  public var errorUpdateCount: Int { self.base.errorUpdateCount }
  /// When the base state last received an error.
  public var errorLastUpdatedAt: Date? { self.base.errorLastUpdatedAt }

  /// Records a task with the base state, which may edit the task's context.
  ///
  /// - Parameter task: The task, erased.
  public mutating func scheduleFetchTask(_ task: inout OperationTask<any Sendable, any Error>) {
    func open<Base: OperationState & Sendable>(_ base: inout Base) {
      var baseTask = Self.baseTask(task, as: Base.self)
      base.scheduleFetchTask(&baseTask)
      task.context = baseTask.context
    }
    open(&self.base)
  }

  /// Resets the base state.
  ///
  /// - Parameter context: The context of the reset.
  /// - Returns: The tasks for the store to cancel.
  public mutating func reset(using context: OperationContext) -> ResetEffect {
    func open<Base: OperationState & Sendable>(_ base: inout Base) -> ResetEffect {
      ResetEffect(tasksCancellable: base.reset(using: context).tasksCancellable)
    }
    return open(&self.base)
  }

  /// Applies a result to the base state; traps when it is not of the base state's types.
  ///
  /// - Parameters:
  ///   - result: The value or error, erased.
  ///   - context: The context of the update.
  public mutating func update(
    with result: Result<any Sendable, any Error>,
    using context: OperationContext
  ) {
    func open<Base: OperationState & Sendable>(_ base: inout Base) {
      base.update(
        with: result.map { $0 as! Base.StateValue }.mapError { $0 as! Base.Failure },
        using: context
      )
    }
    open(&self.base)
  }

  /// Applies a result of a run to the base state; traps when it is not of the base state's types.
  ///
  /// - Parameters:
  ///   - result: The value or error, erased.
  ///   - task: The running task, erased.
  public mutating func update(
    with result: Result<any Sendable, any Error>,
    for task: OperationTask<any Sendable, any Error>
  ) {
    func open<Base: OperationState & Sendable>(_ base: inout Base) {
      base.update(
        with: result.map { $0 as! Base.OperationValue }.mapError { $0 as! Base.Failure },
        for: Self.baseTask(task, as: Base.self)
      )
    }
    open(&self.base)
  }

  /// Removes a finished task from the base state.
  ///
  /// - Parameter task: The task, erased.
  public mutating func finishFetchTask(_ task: OperationTask<any Sendable, any Error>) {
    func open<Base: OperationState & Sendable>(_ base: inout Base) {
      base.finishFetchTask(Self.baseTask(task, as: Base.self))
    }
    open(&self.base)
  }

  private static func baseTask<Base: OperationState>(
    _ task: OperationTask<any Sendable, any Error>,
    as _: Base.Type
  ) -> OperationTask<Base.OperationValue, Base.Failure> {
    task.map { $0 as! Base.OperationValue }.mapError { $0 as! Base.Failure }
  }
}
