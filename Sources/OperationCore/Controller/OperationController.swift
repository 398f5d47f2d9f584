/// Reusable logic that drives a store's state from outside its runs.
///
/// A controller receives ``OperationControls`` once for every store whose operation it is
/// attached to (with ``StatefulOperationRequest/controlled(by:)``), when the store is created.
/// Through the controls it can yield values or errors, rerun the operation, or reset the state, for
/// example when a socket delivers an update. The subscription it returns is cancelled when the
/// store is deallocated; cancel or release anything that holds the controls there.
///
/// ```swift
/// final class TickerController: OperationController, Sendable {
///   typealias State = QueryState<Int, any Error>
///
///   func control(with controls: OperationControls<State>) -> OperationSubscription {
///     let task = Task {
///       for await tick in ticks {
///         controls.yield(tick)
///       }
///     }
///     return OperationSubscription { task.cancel() }
///   }
/// }
/// ```
public protocol OperationController<State> {
  /// The state of the stores this controller controls.
  associatedtype State: OperationState & Sendable

  /// Takes control of one store.
  ///
  /// - Parameter controls: The controls of the store.
  /// - Returns: A subscription that releases the controls when cancelled.
  func control(with controls: OperationControls<State>) -> OperationSubscription
}

/// An operation controlled by a controller, as ``StatefulOperationRequest/controlled(by:)``
/// returns it.
///
/// ```swift
/// extension StatefulOperationRequest {
///   func ticking() -> ControlledOperation<Self, TickerController> {
///     self.controlled(by: TickerController())
///   }
/// }
/// ```
public typealias ControlledOperation<
  Operation: StatefulOperationRequest,
  Controller: OperationController<Operation.State> & Sendable
> = ModifiedOperation<Operation, _OperationControllerModifier<Operation, Controller>>

extension StatefulOperationRequest where State: Sendable {
  /// Attaches a controller to the stores of this operation.
  ///
  /// Controllers accumulate: each `controlled(by:)` adds one, and every store calls each of them
  /// once, when it is created.
  ///
  /// - Parameter controller: The controller.
  /// - Returns: The modified operation.
  public func controlled<Controller: OperationController<State> & Sendable>(
    by controller: Controller
  ) -> ControlledOperation<Self, Controller> {
    self.modifier(_OperationControllerModifier(controller: controller))
  }
}

/// The modifier behind ``StatefulOperationRequest/controlled(by:)``.
public struct _OperationControllerModifier<
  Operation: StatefulOperationRequest,
  Controller: OperationController<Operation.State> & Sendable
>: _ContextUpdatingOperationModifier, Sendable {
  let controller: Controller

  /// Adds the controller to ``OperationContext/operationControllers``.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    context.operationControllers.append(self.controller)
  }
}

extension OperationContext {
  /// The controllers that every store created with this context calls when it is created.
  ///
  /// Add controllers with ``StatefulOperationRequest/controlled(by:)``. A store calls the
  /// controllers whose `State` is its own state type.
  public var operationControllers: [any OperationController & Sendable] {
    get { self[OperationControllersKey.self] }
    set { self[OperationControllersKey.self] = newValue }
  }

  private enum OperationControllersKey: Key {
    static var defaultValue: [any OperationController & Sendable] { [] }
  }
}
