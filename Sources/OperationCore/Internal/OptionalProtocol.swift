/// A type that is an `Optional`, so that generic code can constrain on "some optional".
public protocol _OptionalProtocol<Wrapped> {
  /// The type the optional wraps.
  associatedtype Wrapped

  /// The wrapped value, or `value` when this is `nil`.
  func _orElse(unwrapped value: Wrapped) -> Wrapped

  /// Wraps a value.
  static func _from(wrapped: Wrapped) -> Self
}

extension Optional: _OptionalProtocol {
  /// The wrapped value, or `value` when this is `nil`.
  public func _orElse(unwrapped value: Wrapped) -> Wrapped {
    self ?? value
  }

  /// Wraps a value as `.some`.
  public static func _from(wrapped: Wrapped) -> Self {
    .some(wrapped)
  }
}
