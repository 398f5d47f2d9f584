// MARK: - #run

/// Runs an operation without a store, through an `OperationRunner`, with a fresh context.
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

/// Runs an operation without a store, through an `OperationRunner` created with `context`.
///
/// The operation's `OperationRequest.setup(context:)` sees `context` first, as a runner's does.
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

/// Runs an operation without a store, through an `OperationRunner` created with `context`,
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

/// Declares an `OperationContext` entry as a property, as SwiftUI's `@Entry` does for its
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

// MARK: - Requests

/// Turns a function into a stateless `OperationRequest` that an `OperationRunner` or `#run`
/// runs.
///
/// The macro generates a request type whose stored properties are the function's arguments, and
/// an accessor named after the function with a `$` in front: a property when the function takes
/// no arguments, a function with the same arguments otherwise.
///
/// ```swift
/// @OperationRequest
/// func sendEmail(to address: String) async throws { … }
///
/// try await #run($sendEmail(to: "a@b.c"))
/// ```
///
/// Parameters named `isolation` (`isolated (any Actor)?`), `context` (`OperationContext`) and
/// `continuation` (`OperationContinuation`) receive the run's own and are not stored.
@attached(peer, names: overloaded, prefixed(`$`))
public macro OperationRequest() =
  #externalMacro(module: "OperationMacros", type: "OperationRequestMacro")

/// Turns a function into a `QueryRequest` whose `fetch` calls it.
///
/// ```swift
/// @QueryRequest
/// func post(id: Int) async throws -> Post { … }
///
/// let store = client.store(for: $post(id: 1))
/// ```
///
/// Besides `isolation`, `context` and `continuation`, a parameter named `path`
/// (`OperationPath`) receives the query's own path.
///
/// - Parameter path: How the query gets its path: from its arguments (`.inferredFromHashable`,
///   the default), from its `id` argument (`.inferredFromIdentifiable`), or from a closure
///   (`.custom { (id: Int) in ["post", id] }`).
@attached(peer, names: overloaded, prefixed(`$`))
public macro QueryRequest(path: _OperationPathMacroSynthesizer = .inferredFromHashable) =
  #externalMacro(module: "OperationMacros", type: "QueryRequestMacro")

/// Turns a function into a `MutationRequest` whose `mutate` calls it.
///
/// A parameter named `arguments` receives the arguments of each mutation, and its type is the
/// mutation's `Arguments` (`Void` without one). The other parameters are stored: they identify the
/// mutation, and do not change from one run to the next.
///
/// ```swift
/// @MutationRequest
/// func like(arguments postID: Int) async throws -> Bool { … }
///
/// try await client.store(for: $like).mutate(with: 1)
/// ```
///
/// - Parameter path: How the mutation gets its path, as for ``QueryRequest(path:)``.
@attached(peer, names: overloaded, prefixed(`$`))
public macro MutationRequest(path: _OperationPathMacroSynthesizer = .inferredFromHashable) =
  #externalMacro(module: "OperationMacros", type: "MutationRequestMacro")
