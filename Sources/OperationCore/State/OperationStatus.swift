/// Where an operation stands: idle, loading, or finished with a result.
///
/// ```swift
/// switch store.status {
/// case .idle: showPlaceholder()
/// case .loading: showSpinner()
/// case .result(.success(let post)): show(post)
/// case .result(.failure) where store.status.isCancelled: break  // Not an error to show.
/// case .result(.failure(let error)): show(error)
/// }
/// ```
///
/// A cancelled run is a result too, as in swift-operation 0.5: the store's status becomes
/// `.result(.failure(CancellationError()))`. ``isCancelled`` tells it apart from a failure.
public enum OperationStatus<Value, Failure: Error> {
  /// Nothing has run and nothing was set.
  case idle

  /// A run is in flight.
  case loading

  /// The most recent value or error.
  case result(Result<Value, Failure>)
}

extension OperationStatus {
  /// Whether the status is ``idle``.
  public var isIdle: Bool {
    if case .idle = self { return true }
    return false
  }

  /// Whether the status is ``loading``.
  public var isLoading: Bool {
    if case .loading = self { return true }
    return false
  }

  /// The result, when there is one.
  public var result: Result<Value, Failure>? {
    if case .result(let result) = self { return result }
    return nil
  }

  /// The successful value, when there is one.
  public var resultValue: Value? {
    try? self.result?.get()
  }

  /// The error, when the result is a failure.
  public var resultError: Failure? {
    guard case .failure(let error) = self.result else { return nil }
    return error
  }

  /// Whether there is a result.
  public var isFinished: Bool {
    self.result != nil
  }

  /// Whether the result is a success.
  public var isSuccessful: Bool {
    self.resultValue != nil
  }

  /// Whether the result is a failure.
  public var isFailure: Bool {
    self.resultError != nil
  }

  /// Whether the result is a failure with `CancellationError`: the last run was cancelled.
  ///
  /// A store records a cancelled run as `.result(.failure(CancellationError()))`, so
  /// ``isFailure`` is `true` as well; check this first to show no error for a cancellation.
  public var isCancelled: Bool {
    self.resultError is CancellationError
  }

  /// Transforms the successful value.
  ///
  /// - Parameter transform: Transforms the value.
  /// - Returns: The status with the transformed value.
  /// - Throws: The error of `transform`.
  public func mapSuccess<NewValue, E: Error>(
    _ transform: (Value) throws(E) -> NewValue
  ) throws(E) -> OperationStatus<NewValue, Failure> {
    switch self {
    case .idle: .idle
    case .loading: .loading
    case .result(.success(let value)): .result(.success(try transform(value)))
    case .result(.failure(let error)): .result(.failure(error))
    }
  }

  /// Replaces the status of a successful value.
  ///
  /// - Parameter transform: Returns the new status for the value.
  /// - Returns: The new status.
  /// - Throws: The error of `transform`.
  public func flatMapSuccess<NewValue, E: Error>(
    _ transform: (Value) throws(E) -> OperationStatus<NewValue, Failure>
  ) throws(E) -> OperationStatus<NewValue, Failure> {
    switch self {
    case .idle: .idle
    case .loading: .loading
    case .result(.success(let value)): try transform(value)
    case .result(.failure(let error)): .result(.failure(error))
    }
  }
}

extension OperationStatus: Equatable where Value: Equatable, Failure: Equatable {}
extension OperationStatus: Hashable where Value: Hashable, Failure: Hashable {}
extension OperationStatus: Sendable where Value: Sendable, Failure: Sendable {}

// MARK: - State status

extension OperationState {
  /// Whether the newest of the value and the error is the value.
  fileprivate var isValueNewest: Bool {
    switch (self.valueLastUpdatedAt, self.errorLastUpdatedAt) {
    case (.some(let value), .some(let error)): value >= error
    case (.some, .none): true
    case (.none, .some): false
    case (.none, .none): self.valueUpdateCount >= self.errorUpdateCount
    }
  }

  fileprivate func deriveStatus(
    _ value: () -> StatusValue?
  ) -> OperationStatus<StatusValue, Failure> {
    if self.isLoading { return .loading }
    if self.valueUpdateCount == 0 && self.errorUpdateCount == 0 { return .idle }
    if !self.isValueNewest, let error {
      return .result(.failure(error))
    }
    guard let value = value() else { return .idle }
    return .result(.success(value))
  }
}

extension OperationState where StateValue == StatusValue {
  /// The status derived from the state: ``OperationStatus/loading`` while loading,
  /// ``OperationStatus/idle`` before any update, and otherwise the newest of the value and the
  /// error.
  public var status: OperationStatus<StatusValue, Failure> {
    self.deriveStatus { self.currentValue }
  }
}

extension OperationState where StateValue == StatusValue? {
  /// The status derived from the state: ``OperationStatus/loading`` while loading,
  /// ``OperationStatus/idle`` before any update or while the value is `nil`, and otherwise the
  /// newest of the value and the error.
  public var status: OperationStatus<StatusValue, Failure> {
    self.deriveStatus { self.currentValue }
  }
}
