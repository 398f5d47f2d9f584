public import OperationCore

extension LoadableState {
  /// Creates the loadable state that matches an operation's status.
  ///
  /// `idle` becomes ``absent``, `loading` becomes
  /// ``loading``, a successful result becomes ``loaded(_:)`` and a failed one ``error(_:)``:
  ///
  /// ```swift
  /// let store = client.store(for: Post.query(for: 1))
  /// let post = LoadableState(store.status)
  /// ```
  ///
  /// - Parameter status: The status of an operation, such as a store's `status`.
  public init<Failure>(_ status: OperationStatus<Value, Failure>) {
    switch status {
    case .idle: self = .absent
    case .loading: self = .loading
    case .result(.success(let value)): self = .loaded(value)
    case .result(.failure(let error)): self = .error(error)
    }
  }
}

extension OperationState where StateValue == StatusValue {
  /// The state's `status` as a ``LoadableState``.
  ///
  /// Read it on a store, whose dynamic member lookup reaches every member of its state:
  /// `store.loadableState`.
  public var loadableState: LoadableState<StatusValue> {
    LoadableState(self.status)
  }
}

extension OperationState where StateValue == StatusValue? {
  /// The state's `status` as a ``LoadableState``.
  ///
  /// Read it on a store, whose dynamic member lookup reaches every member of its state:
  /// `store.loadableState`. A query store with no value yet is ``LoadableState/absent``.
  public var loadableState: LoadableState<StatusValue> {
    LoadableState(self.status)
  }
}
