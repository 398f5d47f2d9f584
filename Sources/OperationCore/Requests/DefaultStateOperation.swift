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
  public typealias Value = Operation.Value
  public typealias Failure = Operation.Failure
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

  public var path: OperationPath {
    self.operation.path
  }

  public var _debugTypeName: String {
    "\(self.operation._debugTypeName).Default"
  }

  public func setup(context: inout OperationContext) {
    self.operation.setup(context: &context)
  }

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
  public func initialValue(using defaultValue: DefaultStateValue) -> DefaultStateValue {
    defaultValue
  }
}

extension DefaultableOperationState where DefaultStateValue == StateValue {
  public func stateValue(for defaultStateValue: DefaultStateValue) -> StateValue {
    defaultStateValue
  }
}

extension DefaultableOperationState
where StateValue: _OptionalProtocol, DefaultStateValue == StateValue.Wrapped {
  public func currentValue(using defaultValue: DefaultStateValue) -> DefaultStateValue {
    self.currentValue._orElse(unwrapped: defaultValue)
  }

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
  public typealias StateValue = Base.DefaultStateValue
  public typealias OperationValue = Base.OperationValue
  public typealias StatusValue = Base.StatusValue
  public typealias Failure = Base.Failure

  public var currentValue: Base.DefaultStateValue {
    self.base.currentValue(using: self.defaultValue)
  }

  public var initialValue: Base.DefaultStateValue {
    self.base.initialValue(using: self.defaultValue)
  }

  public var valueUpdateCount: Int { self.base.valueUpdateCount }
  public var valueLastUpdatedAt: Date? { self.base.valueLastUpdatedAt }
  public var isLoading: Bool { self.base.isLoading }
  public var error: Base.Failure? { self.base.error }
  public var errorUpdateCount: Int { self.base.errorUpdateCount }
  public var errorLastUpdatedAt: Date? { self.base.errorLastUpdatedAt }

  public mutating func scheduleFetchTask(
    _ task: inout OperationTask<Base.OperationValue, Base.Failure>
  ) {
    self.base.scheduleFetchTask(&task)
  }

  public mutating func reset(using context: OperationContext) -> ResetEffect {
    ResetEffect(tasksCancellable: self.base.reset(using: context).tasksCancellable)
  }

  public mutating func update(
    with result: Result<Base.DefaultStateValue, Base.Failure>,
    using context: OperationContext
  ) {
    self.base.update(with: result.map { self.base.stateValue(for: $0) }, using: context)
  }

  public mutating func update(
    with result: Result<Base.OperationValue, Base.Failure>,
    for task: OperationTask<Base.OperationValue, Base.Failure>
  ) {
    self.base.update(with: result, for: task)
  }

  public mutating func finishFetchTask(_ task: OperationTask<Base.OperationValue, Base.Failure>) {
    self.base.finishFetchTask(task)
  }
}

extension DefaultOperationState: Equatable
where Base: Equatable, Base.DefaultStateValue: Equatable {}
extension DefaultOperationState: Hashable where Base: Hashable, Base.DefaultStateValue: Hashable {}
extension DefaultOperationState: Sendable where Base: Sendable, Base.DefaultStateValue: Sendable {}
