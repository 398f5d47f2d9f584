// MARK: - #run

/// Runs an operation without a store, through an ``OperationRunner``, with a fresh context.
///
/// `#run(op)` expands to `OperationRunner(operation: op).run()`. Write `try await` before it
/// as you would before the run itself:
///
/// ```swift
/// let value = try await #run($fetchNumber)
/// ```
///
/// - Parameter operation: The operation to run.
/// - Returns: The value of the operation.
@freestanding(expression)
public macro run<Operation: OperationRequest>(
  _ operation: Operation
) -> Operation.Value = #externalMacro(module: "OperationMacros", type: "RunMacro")

/// Runs an operation without a store, through an ``OperationRunner`` created with `context`.
///
/// The operation's ``OperationRequest/setup(context:)`` sees `context` first, as a runner's does.
///
/// - Parameters:
///   - operation: The operation to run.
///   - context: The initial context of the runner.
/// - Returns: The value of the operation.
@freestanding(expression)
public macro run<Operation: OperationRequest>(
  _ operation: Operation,
  context: OperationContext
) -> Operation.Value = #externalMacro(module: "OperationMacros", type: "RunMacro")

/// Runs an operation without a store, through an ``OperationRunner`` created with `context`,
/// sending intermediate results to `continuation`.
///
/// - Parameters:
///   - operation: The operation to run.
///   - context: The initial context of the runner.
///   - continuation: Receives the values and errors the operation yields.
/// - Returns: The value of the operation.
@freestanding(expression)
public macro run<Operation: OperationRequest>(
  _ operation: Operation,
  context: OperationContext,
  continuation: OperationContinuation<Operation.Value, Operation.Failure>
) -> Operation.Value = #externalMacro(module: "OperationMacros", type: "RunMacro")

// MARK: - @ContextEntry

/// Declares an ``OperationContext`` entry as a property, as SwiftUI's `@Entry` does for its
/// environment.
///
/// Attach it to a `var` with a default value in an extension of `OperationContext`:
///
/// ```swift
/// extension OperationContext {
///   @ContextEntry var retryBudget = 3
///   @ContextEntry var accountID: String?
/// }
/// ```
///
/// The macro generates the accessors and a private `__Key_<name>` key whose `defaultValue` is the
/// initial value (`nil` for an optional without one).
@attached(accessor)
@attached(peer, names: prefixed(__Key_))
public macro ContextEntry() = #externalMacro(module: "OperationMacros", type: "ContextEntryMacro")
