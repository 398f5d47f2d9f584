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
  public typealias StateValue = any Sendable
  public typealias OperationValue = any Sendable
  public typealias StatusValue = any Sendable
  public typealias Failure = any Error

  public var currentValue: any Sendable { self.base.currentValue }
  public var initialValue: any Sendable { self.base.initialValue }
  public var valueUpdateCount: Int { self.base.valueUpdateCount }
  public var valueLastUpdatedAt: Date? { self.base.valueLastUpdatedAt }
  public var isLoading: Bool { self.base.isLoading }
  public var error: (any Error)? { self.base.error }
  public var errorUpdateCount: Int { self.base.errorUpdateCount }
  public var errorLastUpdatedAt: Date? { self.base.errorLastUpdatedAt }

  public mutating func scheduleFetchTask(_ task: inout OperationTask<any Sendable, any Error>) {
    func open<Base: OperationState & Sendable>(_ base: inout Base) {
      var baseTask = Self.baseTask(task, as: Base.self)
      base.scheduleFetchTask(&baseTask)
      task.context = baseTask.context
    }
    open(&self.base)
  }

  public mutating func reset(using context: OperationContext) -> ResetEffect {
    func open<Base: OperationState & Sendable>(_ base: inout Base) -> ResetEffect {
      ResetEffect(tasksCancellable: base.reset(using: context).tasksCancellable)
    }
    return open(&self.base)
  }

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
