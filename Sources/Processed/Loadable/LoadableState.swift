// NB: `localizedDescription` (for `debugDescription`) lives in Foundation, not in
// FoundationEssentials.
import Foundation

/// The state of a resource that loads asynchronously: absent, loading, failed or loaded.
///
/// Switch over it to drive a view, or read one of its convenience members:
///
/// ```swift
/// switch model.numbers {
/// case .absent: EmptyView()
/// case .loading: ProgressView()
/// case .error(let error): Text(error.localizedDescription)
/// case .loaded(let numbers): NumbersList(numbers)
/// }
///
/// model.numbers.isLoading  // false
/// model.numbers.data  // [0, 1, 2, 42, 73]
/// ```
///
/// ``LoadableSupport``, ``Loadable`` and ``LoadableBinding`` set the states for you while they
/// load.
public enum LoadableState<Value> {
  /// Nothing was requested yet, or the resource was reset.
  case absent

  /// The resource is loading.
  case loading

  /// Loading failed with an error.
  case error(any Error)

  /// The resource loaded.
  case loaded(Value)
}

// MARK: - Setters

extension LoadableState {
  /// Sets the state to ``absent``.
  public mutating func setAbsent() {
    self = .absent
  }

  /// Sets the state to ``loading``.
  public mutating func setLoading() {
    self = .loading
  }

  /// Sets the state to ``error(_:)``.
  ///
  /// - Parameter error: The error.
  public mutating func setError(_ error: any Error) {
    self = .error(error)
  }

  /// Sets the state to ``loaded(_:)``.
  ///
  /// - Parameter value: The loaded value.
  public mutating func setValue(_ value: Value) {
    self = .loaded(value)
  }
}

// MARK: - Queries

extension LoadableState {
  /// Whether the state is ``absent``.
  public var isAbsent: Bool {
    if case .absent = self { return true }
    return false
  }

  /// Whether the state is ``loading``.
  public var isLoading: Bool {
    if case .loading = self { return true }
    return false
  }

  /// Whether the state is ``error(_:)``.
  public var isError: Bool {
    if case .error = self { return true }
    return false
  }

  /// Whether the state is ``loaded(_:)``.
  public var isLoaded: Bool {
    if case .loaded = self { return true }
    return false
  }

  /// The error of an ``error(_:)`` state; `nil` otherwise.
  public var error: (any Error)? {
    if case .error(let error) = self { return error }
    return nil
  }

  /// The value of a ``loaded(_:)`` state; `nil` otherwise.
  public var data: Value? {
    if case .loaded(let value) = self { return value }
    return nil
  }
}

// MARK: - Transforms

extension LoadableState {
  /// Transforms the value of a ``loaded(_:)`` state; the other states pass through unchanged.
  ///
  /// ```swift
  /// let count = model.numbers.map(\.count)  // .loaded(5)
  /// ```
  ///
  /// - Parameter transform: Transforms the loaded value.
  /// - Returns: The state with the transformed value.
  /// - Throws: What `transform` throws.
  public func map<NewValue>(
    _ transform: (Value) throws -> NewValue
  ) rethrows -> LoadableState<NewValue> {
    switch self {
    case .absent: .absent
    case .loading: .loading
    case .error(let error): .error(error)
    case .loaded(let value): .loaded(try transform(value))
    }
  }

  /// Transforms the value of a ``loaded(_:)`` state, becoming ``absent`` when the transform
  /// returns `nil`; the other states pass through unchanged.
  ///
  /// ```swift
  /// let first = model.numbers.compactMap(\.first)  // .absent for an empty list
  /// ```
  ///
  /// - Parameter transform: Transforms the loaded value, or returns `nil`.
  /// - Returns: The state with the transformed value, or ``absent``.
  /// - Throws: What `transform` throws.
  public func compactMap<NewValue>(
    _ transform: (Value) throws -> NewValue?
  ) rethrows -> LoadableState<NewValue> {
    switch self {
    case .absent: .absent
    case .loading: .loading
    case .error(let error): .error(error)
    case .loaded(let value): try transform(value).map { .loaded($0) } ?? .absent
    }
  }
}

// MARK: - Conformances

extension LoadableState: CustomDebugStringConvertible {
  /// `absent`, `loading`, `error(<localized description>)` or `loaded(<value>)`.
  public var debugDescription: String {
    switch self {
    case .absent: "absent"
    case .loading: "loading"
    case .error(let error): "error(\(error.localizedDescription))"
    case .loaded(let value): "loaded(\(value))"
    }
  }
}

extension LoadableState: Sendable where Value: Sendable {}

extension LoadableState: Equatable where Value: Equatable {
  /// Whether two states are the same case with equal values.
  ///
  /// > Important: Any two ``error(_:)`` states are equal, whatever their errors: the comparison
  /// > answers "did loading fail?". Compare ``error`` yourself to tell errors apart.
  ///
  /// - Parameters:
  ///   - lhs: A state.
  ///   - rhs: Another state.
  /// - Returns: Whether the states are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.absent, .absent), (.loading, .loading), (.error, .error): true
    case (.loaded(let lhs), .loaded(let rhs)): lhs == rhs
    default: false
    }
  }
}
