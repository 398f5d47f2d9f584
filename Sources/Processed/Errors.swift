/// Thrown from a `load` closure or an `onInterrupt` handler to cancel the loading process.
///
/// The state is left as it is, exactly as if ``LoadableSupport/cancel(_:)`` or
/// ``LoadableBinding/cancel()`` had been called:
///
/// ```swift
/// model.load(\.numbers) {
///   guard isSignedIn else { throw CancelLoadable() }
///   return try await fetchNumbers()
/// }
/// ```
public struct CancelLoadable: Error, Hashable, Sendable {
  /// Creates the error.
  public init() {}
}

/// Thrown from a `load` closure or an `onInterrupt` handler to reset the loading process.
///
/// The state becomes ``LoadableState/absent``, exactly as if ``LoadableSupport/reset(_:)`` or
/// ``LoadableBinding/reset()`` had been called.
public struct ResetLoadable: Error, Hashable, Sendable {
  /// Creates the error.
  public init() {}
}

/// Thrown from a `run` closure or an `onInterrupt` handler to cancel the process.
///
/// The state is left as it is, exactly as if ``ProcessSupport/cancel(_:)`` or
/// ``ProcessBinding/cancel()`` had been called.
public struct CancelProcess: Error, Hashable, Sendable {
  /// Creates the error.
  public init() {}
}

/// Thrown from a `run` closure or an `onInterrupt` handler to reset the process.
///
/// The state becomes ``ProcessState/idle``, exactly as if ``ProcessSupport/reset(_:)`` or
/// ``ProcessBinding/reset()`` had been called.
public struct ResetProcess: Error, Hashable, Sendable {
  /// Creates the error.
  public init() {}
}

/// A ready-made error for an `onInterrupt` handler that gives up on a slow process.
///
/// Throwing it ends the run with ``LoadableState/error(_:)`` or
/// ``ProcessState/failed(process:error:)``:
///
/// ```swift
/// $numbers.load(interrupts: [.seconds(5)]) {
///   try await fetchNumbers()
/// } onInterrupt: { _ in
///   throw TimeoutError()
/// }
/// ```
public struct TimeoutError: Error, Hashable, Sendable {
  /// Creates the error.
  public init() {}
}
