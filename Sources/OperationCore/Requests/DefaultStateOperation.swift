#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

extension StatefulOperationRequest where State: DefaultableOperationState {
  /// The type of this operation with a default value.
  public typealias Default = DefaultStateOperation<Self>

  /// Gives the operation's state a value to show while it has none.
  ///
  /// A store for the returned operation has a non-optional `currentValue`:
  ///
  /// ```swift
  /// let store = client.store(for: PostsQuery().defaultValue([]))
  /// let posts: [Post] = store.currentValue
  /// ```
  ///
  /// > Important: Apply `defaultValue(_:)` last, after every other modifier.
  ///
  /// - Parameter value: The default value, computed when a store is created.
  /// - Returns: The operation with a default value.
  public func defaultValue(
    _ value: @autoclosure @escaping @Sendable () -> State.DefaultStateValue
  ) -> Default {
    DefaultStateOperation(operation: self, defaultValue: value)
  }
}

/// An operation whose state shows a default value while it has none.
///
/// Create one with ``StatefulOperationRequest/defaultValue(_:)``.
public struct DefaultStateOperation<Operation: StatefulOperationRequest>: StatefulOperationRequest
where Operation.State: DefaultableOperationState {
  /// The type of value the operation produces.
  public typealias Value = Operation.Value
  /// The type of error the operation throws.
  public typealias Failure = Operation.Failure
  /// The operation's state, wrapped to show the default value.
  public typealias State = DefaultOperationState<Operation.State>

  /// The operation that has the default value.
  public let operation: Operation

  private let _defaultValue: @Sendable () -> Operation.State.DefaultStateValue

  package init(
    operation: Operation,
    defaultValue: @escaping @Sendable () -> Operation.State.DefaultStateValue
  ) {
    self.operation = operation
    self._defaultValue = defaultValue
  }

  /// The default value.
  public var defaultValue: Operation.State.DefaultStateValue {
    self._defaultValue()
  }

  /// The path of the wrapped operation, so a default value does not change the store it finds.
  public var path: OperationPath {
    self.operation.path
  }

  /// The name of the wrapped operation's type, followed by `.Default`.
  public var _debugTypeName: String {
    "\(self.operation._debugTypeName).Default"
  }

  /// Prepares the context with the wrapped operation.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.operation.setup(context: &context)
  }

  /// Runs the wrapped operation.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The value of the run.
  /// - Throws: The error of the run.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Operation.Failure) -> Value {
    try await self.operation.run(isolation: isolation, in: context, with: continuation)
  }
}

extension DefaultStateOperation: Sendable where Operation: Sendable {}

// MARK: - DefaultableOperationState

/// A state that can show a default value in place of a missing one.
public protocol DefaultableOperationState: OperationState {
  /// The type of the default value, such as `Value` for a state whose value is `Value?`.
  associatedtype DefaultStateValue: Sendable

  /// The current value, or the default value when there is none.
  ///
  /// - Parameter defaultValue: The default value.
  /// - Returns: The value to show.
  func currentValue(using defaultValue: DefaultStateValue) -> DefaultStateValue

  /// The initial value, or the default value when there is none.
  ///
  /// - Parameter defaultValue: The default value.
  /// - Returns: The initial value to show.
  func initialValue(using defaultValue: DefaultStateValue) -> DefaultStateValue

  /// Converts a default-typed value into a state value.
  ///
  /// - Parameter defaultStateValue: The value.
  /// - Returns: The state value.
  func stateValue(for defaultStateValue: DefaultStateValue) -> StateValue
}

extension DefaultableOperationState {
  /// Returns the default value; a state may override this to prefer its own initial value.
  ///
  /// - Parameter defaultValue: The default value.
  /// - Returns: The initial value to show.
  public func initialValue(using defaultValue: DefaultStateValue) -> DefaultStateValue {
    defaultValue
  }
}

extension DefaultableOperationState where DefaultStateValue == StateValue {
  /// Returns the value unchanged, since default and state values have the same type.
  ///
  /// - Parameter defaultStateValue: The value.
  /// - Returns: The same value.
  public func stateValue(for defaultStateValue: DefaultStateValue) -> StateValue {
    defaultStateValue
  }
}

extension DefaultableOperationState
where StateValue: _OptionalProtocol, DefaultStateValue == StateValue.Wrapped {
  /// The current value, or the default value while it is `nil`.
  ///
  /// - Parameter defaultValue: The default value.
  /// - Returns: The value to show.
  public func currentValue(using defaultValue: DefaultStateValue) -> DefaultStateValue {
    self.currentValue._orElse(unwrapped: defaultValue)
  }

  /// Wraps a value in an optional state value.
  ///
  /// - Parameter defaultStateValue: The value.
  /// - Returns: The value, as `.some`.
  public func stateValue(for defaultStateValue: DefaultStateValue) -> StateValue {
    StateValue._from(wrapped: defaultStateValue)
  }
}

// MARK: - DefaultOperationState

/// A state that shows a default value in place of its base state's missing one.
public struct DefaultOperationState<Base: DefaultableOperationState> {
  /// The state that may lack a value.
  public private(set) var base: Base

  /// The value shown while the base has none.
  public let defaultValue: Base.DefaultStateValue

  /// Wraps a state.
  ///
  /// - Parameters:
  ///   - base: The state.
  ///   - defaultValue: The value shown while the base has none.
  public init(_ base: Base, defaultValue: Base.DefaultStateValue) {
    self.base = base
    self.defaultValue = defaultValue
  }
}

extension DefaultOperationState: OperationState {
  /// The type of value observers see: the base's default value type, never missing.
  public typealias StateValue = Base.DefaultStateValue
  /// The type of value a run of the base state returns.
  public typealias OperationValue = Base.OperationValue
  /// The type of value of the base state's status.
  public typealias StatusValue = Base.StatusValue
  /// The type of error of the base state.
  public typealias Failure = Base.Failure

  /// The base state's current value, or the default value while it has none.
  public var currentValue: Base.DefaultStateValue {
    self.base.currentValue(using: self.defaultValue)
  }

  /// The initial value the base state reports for the default value; unless the base state says
  /// otherwise, the default value itself.
  public var initialValue: Base.DefaultStateValue {
    self.base.initialValue(using: self.defaultValue)
  }

  /// How many times the base state's value was updated.
  public var valueUpdateCount: Int { self.base.valueUpdateCount }
  /// When the base state's value was last updated.
  public var valueLastUpdatedAt: Date? { self.base.valueLastUpdatedAt }
  /// Whether the base state is loading.
  public var isLoading: Bool { self.base.isLoading }
  /// The base state's last error.
  public var error: Base.Failure? { self.base.error }
  /// How many times the base state received an error.
  public var errorUpdateCount: Int { self.base.errorUpdateCount }
  /// When the base state last received an error.
  public var errorLastUpdatedAt: Date? { self.base.errorLastUpdatedAt }

  /// Records a task with the base state.
  ///
  /// - Parameter task: The task, which the base state may edit.
  public mutating func scheduleFetchTask(
    _ task: inout OperationTask<Base.OperationValue, Base.Failure>
  ) {
    self.base.scheduleFetchTask(&task)
  }

  /// Resets the base state; the default value stays.
  ///
  /// - Parameter context: The context of the reset.
  /// - Returns: The tasks for the store to cancel.
  public mutating func reset(using context: OperationContext) -> ResetEffect {
    ResetEffect(tasksCancellable: self.base.reset(using: context).tasksCancellable)
  }

  /// Applies a result to the base state, converting a value to the base state's value type.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - context: The context of the update.
  public mutating func update(
    with result: Result<Base.DefaultStateValue, Base.Failure>,
    using context: OperationContext
  ) {
    self.base.update(with: result.map { self.base.stateValue(for: $0) }, using: context)
  }

  /// Applies a result of a run to the base state.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - task: The running task.
  public mutating func update(
    with result: Result<Base.OperationValue, Base.Failure>,
    for task: OperationTask<Base.OperationValue, Base.Failure>
  ) {
    self.base.update(with: result, for: task)
  }

  /// Removes a finished task from the base state.
  ///
  /// - Parameter task: The task.
  public mutating func finishFetchTask(_ task: OperationTask<Base.OperationValue, Base.Failure>) {
    self.base.finishFetchTask(task)
  }
}

extension DefaultOperationState: Equatable
where Base: Equatable, Base.DefaultStateValue: Equatable {}
extension DefaultOperationState: Hashable where Base: Hashable, Base.DefaultStateValue: Hashable {}
extension DefaultOperationState: Sendable where Base: Sendable, Base.DefaultStateValue: Sendable {}
