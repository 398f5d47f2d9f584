/// How `@QueryRequest` and `@MutationRequest` give the generated request its path.
///
/// A marker value: the macro reads the expression you write and never evaluates it.
public struct _OperationPathMacroSynthesizer: Sendable {
  private init() {}

  /// The request is `Hashable` and `Sendable`, and its path is `[request]`; every argument must
  /// be `Hashable` and `Sendable`.
  public static let inferredFromHashable = Self()

  /// The request is `Identifiable`, and its path is `[id]`; the function needs an `id`
  /// argument that is `Hashable` and `Sendable`.
  public static let inferredFromIdentifiable = Self()

  /// The path is the one the closure builds from the function's arguments.
  ///
  /// The closure's parameters must be the function's parameters, except the reserved ones, with
  /// the same names and types:
  ///
  /// ```swift
  /// @QueryRequest(path: .custom { (id: Int) in ["post", id] })
  /// func post(id: Int) async throws -> Post { … }
  /// ```
  ///
  /// - Parameter construct: Builds the path from the arguments.
  /// - Returns: The marker.
  public static func custom<each Argument>(
    construct: (repeat each Argument) -> OperationPath
  ) -> Self {
    Self()
  }
}

/// A metatype that is `Hashable`, so that a request generated from a static method can be.
public struct _OperationHashableMetatype<T>: Hashable, @unchecked Sendable {
  // NB: @unchecked: a metatype is an immutable reference to type metadata.

  /// The metatype.
  public let type: T.Type

  /// Wraps a metatype.
  ///
  /// - Parameter type: The metatype.
  public init(type: T.Type) {
    self.type = type
  }

  /// Whether the two wrap the same type.
  ///
  /// - Parameters:
  ///   - lhs: A metatype.
  ///   - rhs: Another metatype.
  /// - Returns: Whether they are the same type.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    ObjectIdentifier(lhs.type) == ObjectIdentifier(rhs.type)
  }

  /// Hashes the type's identity.
  ///
  /// - Parameter hasher: The hasher.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self.type))
  }
}

/// Returns its argument, and fails to compile when it is not `Hashable`: the macros call it on
/// every argument of a request whose path is inferred, so that the error points at the argument.
///
/// - Parameter value: An argument.
/// - Returns: `value`.
public func _operationRequireHashable<T: Hashable>(_ value: T) -> T {
  value
}

/// Returns its argument, and fails to compile when it is not `Sendable`: the macros call it on
/// every argument of a request whose path is inferred, so that the error points at the argument.
///
/// - Parameter value: An argument.
/// - Returns: `value`.
public func _operationRequireSendable<T: Sendable>(_ value: T) -> T {
  value
}
