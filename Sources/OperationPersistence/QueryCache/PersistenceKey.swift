import Foundation
public import OperationCore

// MARK: - Stable keys

/// A path element that gives its own stable key, for types the cache cannot encode by their
/// structure (classes, types with a custom mirror, types whose stored properties are not all
/// values).
///
/// The key must be equal for two values if and only if the values are equal, in every process
/// and every release that reads the cache. The cache prefixes it with the type's name, so keys of
/// different types never meet.
///
/// ```swift
/// final class Account: Hashable, Sendable, PersistentKeyRepresentable {
///   let id: UUID
///   var persistentKey: String { self.id.uuidString }
///   // ...
/// }
/// ```
public protocol PersistentKeyRepresentable {
  /// The value's stable key.
  var persistentKey: String { get }
}

/// Why a path has no stable key.
///
/// The cache refuses to persist such a path (it reports the error and the store works without
/// the cache) unless the operation is given a key with `persisted(in:key:)`.
public struct PersistentKeyError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The description of the path.
  public let path: String

  /// The name of the type that has no stable encoding.
  public let typeName: String

  /// Why the type has no stable encoding.
  public let reason: String

  /// A description of the error, with what to do about it.
  public var description: String {
    """
    The path \(self.path) has no stable key for the query cache: a value of type \
    \(self.typeName) \(self.reason). Give the operation a key with persisted(in:key:), or \
    conform the type to PersistentKeyRepresentable.
    """
  }
}

extension PersistentQueryCache {
  /// The key of the entry of an operation: a canonical, injective encoding of the operation's
  /// type (without its modifiers) and its path.
  ///
  /// Two operations get equal keys if and only if their paths are equal and their types are the
  /// same, in every process:
  ///
  /// - Every element is written with its kind: `"1"` and `1` differ, and strings are quoted and
  ///   escaped, so no element can pass for two.
  /// - Numbers are written by value, exactly (no rounding), so that numbers that are equal in a
  ///   path (such as `1` and `1.0`, or an `Int` and an `Int64`) have one key; `-0.0` is `0`.
  /// - Dates are written as their exact time interval, UUIDs, URLs and data by their contents.
  /// - Arrays keep their order; sets and dictionaries are sorted by the keys of their elements.
  /// - Values are first taken as `AnyHashable` takes them, which is how a path compares them: an
  ///   optional number is its number (`Optional(1)` and `1` have one key), while any other
  ///   optional is marked as one (`Optional("a")` and `"a"` differ, as they do in a path); `nil`
  ///   carries its type.
  /// - Other structures and enumerations are written with their type and every stored property
  ///   or associated value, recursively; a ``PersistentKeyRepresentable`` value by its
  ///   ``PersistentKeyRepresentable/persistentKey``.
  /// - Types are written by their mangled names, which name a type uniquely (module, enclosing
  ///   types, generic arguments) and are the same in every process. Renaming or moving a type
  ///   starts its entries anew.
  ///
  /// A path with an element that has no stable encoding (a class instance, a closure, a
  /// floating-point NaN, a type with a custom mirror) throws, and so does an operation or an
  /// element of a `private` or `fileprivate` type, or of a type declared inside a function: the
  /// runtime names such a type by the address of its scope, which changes from one process to
  /// the next, and nothing stable tells two such types of the same name apart. Make the type
  /// `internal`, or give the operation a key.
  ///
  /// - Parameters:
  ///   - path: The operation's path.
  ///   - operationType: The operation's type; modifiers are looked through by the callers in
  ///     this module.
  /// - Returns: The key.
  /// - Throws: ``PersistentKeyError`` when an element has no stable encoding.
  /// - Complexity: O(*n* log *n*) in the size of the path's elements (sets and dictionaries are
  ///   sorted).
  public static func key(
    for path: OperationPath,
    operationType: any Any.Type
  ) throws(PersistentKeyError) -> String {
    var encoder = CanonicalKeyEncoder(path: path)
    try encoder.encodeTypeName(operationType)
    encoder.output += "|"
    try encoder.encodeElements(path.map { $0.base as Any }, open: "[", close: "]")
    return encoder.output
  }

  /// The canonical encoding of each element of `path`, as ``key(for:operationType:)`` writes
  /// it: equal for two elements if and only if a path calls them equal, in every process.
  ///
  /// Instances that share a database name paths with these: a path prefix sent to another
  /// process as its element keys matches there exactly the stores it matches here.
  ///
  /// - Parameter path: The path.
  /// - Returns: One key per element, in order.
  /// - Throws: ``PersistentKeyError`` when an element has no stable encoding.
  public static func elementKeys(for path: OperationPath) throws(PersistentKeyError) -> [String] {
    var keys = [String]()
    keys.reserveCapacity(path.count)
    for element in path {
      var encoder = CanonicalKeyEncoder(path: path)
      try encoder.encode(element.base as Any)
      keys.append(encoder.output)
    }
    return keys
  }

  /// The key of the entry of `operation`: its path and the type under its modifiers.
  static func key(for operation: some StatefulOperationRequest) throws(PersistentKeyError)
    -> String
  {
    try Self.key(
      for: operation.path,
      operationType: underlyingOperationType(of: type(of: operation)).base
    )
  }
}

// MARK: - Looking through modifiers

/// An operation that wraps another, such as a modified operation.
protocol OperationWrapping {
  /// The type of the wrapped operation.
  static var wrappedOperationType: any OperationRequest.Type { get }
}

extension ModifiedOperation: OperationWrapping {
  static var wrappedOperationType: any OperationRequest.Type { Operation.self }
}

extension DefaultStateOperation: OperationWrapping {
  static var wrappedOperationType: any OperationRequest.Type { Operation.self }
}

/// The type of the operation under every modifier of `Operation`, so that adding a modifier does
/// not change an operation's key.
///
/// A type-erased operation (`AnyOperation`) keeps its own type: what it erases is not known
/// without an instance.
package func underlyingOperationType<Operation: OperationRequest>(
  of _: Operation.Type
) -> ErasedOperationType {
  var type: any OperationRequest.Type = Operation.self
  while let wrapping = type as? any OperationWrapping.Type {
    type = wrapping.wrappedOperationType
  }
  return ErasedOperationType(base: type)
}

// MARK: - Encoder

/// Writes values as canonical key text.
///
/// The grammar is prefix-free: every value starts with a tag that says what follows, strings
/// are quoted with `"` and `\` escaped, and collections are bracketed, so two different
/// sequences of values never write the same text.
private struct CanonicalKeyEncoder {
  let path: OperationPath
  var output = ""

  init(path: OperationPath) {
    self.path = path
  }

  mutating func encodeElements(_ values: [Any], open: String, close: String)
    throws(PersistentKeyError)
  {
    self.output += open
    for (index, value) in values.enumerated() {
      if index > 0 { self.output += "," }
      try self.encode(value)
    }
    self.output += close
  }

  /// Writes a type by its mangled name, which names it uniquely and is the same in every
  /// process, unless the type is private or local.
  ///
  /// NB: The runtime has no name for the scope of a `private` or `fileprivate` type, or of a type
  /// declared in a function (the compiler keeps a file's discriminator and a function's name out
  /// of the type's metadata): both its mangled and its readable name spell that scope by the
  /// address of its descriptor, `(unknown context at $55d0c3a2f1e0)`, which changes with every
  /// launch. Without the address, two such types of one name in one module (a `private struct
  /// Query` in two files) would share their keys and read each other's values, so they are
  /// refused instead.
  mutating func encodeTypeName(_ type: any Any.Type) throws(PersistentKeyError) {
    let readable = _typeName(type, qualified: true)
    guard !readable.contains(Self.unnamedScope) else {
      throw self.error(
        Self.withoutAddresses(readable),
        "is private, fileprivate or declared in a function, so its name differs from one "
          + "process to the next"
      )
    }
    self.encodeString(_mangledTypeName(type) ?? readable)
  }

  /// How the runtime spells a scope it has no name for, followed by the scope's address.
  private static let unnamedScope = "(unknown context at $"

  /// A type's readable name with each unnamed scope's address left out, for error messages.
  private static func withoutAddresses(_ name: String) -> String {
    var result = ""
    var rest = Substring(name)
    while let range = rest.range(of: Self.unnamedScope) {
      result += rest[..<range.lowerBound] + "(private or local scope)"
      rest = rest[range.upperBound...].drop { $0 != ")" }.dropFirst()
    }
    return result + rest
  }

  /// Writes a string quoted and escaped, in its canonical composition, since strings that are
  /// canonically equivalent are equal.
  mutating func encodeString(_ string: String) {
    self.output += "\""
    for scalar in string.precomposedStringWithCanonicalMapping.unicodeScalars {
      switch scalar {
      case "\"": self.output += "\\\""
      case "\\": self.output += "\\\\"
      default: self.output.unicodeScalars.append(scalar)
      }
    }
    self.output += "\""
  }

  mutating func encode(_ value: Any) throws(PersistentKeyError) {
    // NB: A path compares its elements as `AnyHashable` does, and `AnyHashable` (in a path, in an
    // array, set or dictionary of a path, or in an `AnyHashable` field) compares a value by its
    // canonical form: an optional number as the number, an `Int8` as the same `Int`. Encoding
    // that form gives equal keys to exactly the values a path calls equal.
    var value = value
    if let hashable = value as? any Hashable {
      value = AnyHashable(hashable).base
    }
    // NB: An optional is handled before the casts below, which would look through it.
    if let optional = value as? any OptionalValue {
      if let wrapped = optional.wrappedValue {
        // NB: `AnyHashable` kept the optional, so a path tells it from its wrapped value.
        self.output += "o"
        try self.encode(wrapped)
      } else {
        self.output += "z"
        try self.encodeTypeName(type(of: value))
      }
      return
    }
    if let value = value as? any PersistentKeyRepresentable {
      self.output += "k"
      try self.encodeTypeName(type(of: value))
      self.encodeString(value.persistentKey)
      return
    }
    switch value {
    case let string as String:
      self.output += "s"
      self.encodeString(string)
    case let substring as Substring:
      self.output += "ss"
      self.encodeString(String(substring))
    case let character as Character:
      self.output += "c"
      self.encodeString(String(character))
    case let bool as Bool:
      self.output += bool ? "T" : "F"
    case let integer as any BinaryInteger:
      // NB: An integer's description is its exact decimal value, whatever its width.
      self.output += "n" + String(describing: integer)
    case let double as Double:
      try self.encodeNumber(double, type: Double.self)
    case let float as Float:
      try self.encodeNumber(Double(float), type: Float.self)
    case let date as Date:
      self.output += "d"
      try self.encodeNumber(date.timeIntervalSinceReferenceDate, type: Date.self)
    case let uuid as UUID:
      self.output += "u" + uuid.uuidString
    case let url as URL:
      self.output += "l"
      self.encodeString(url.absoluteString)
    case let data as Data:
      self.output += "b"
      self.encodeString(data.base64EncodedString())
    case let decimal as Decimal:
      guard !decimal.isNaN else { throw self.error(Decimal.self, "is NaN") }
      self.output += "m" + decimal.description
    default:
      try self.encodeStructure(value)
    }
  }

  /// Writes a number by its exact value: integral values as integers, so that they meet the
  /// integers they equal, and others as the shortest text that reads back as the same `Double`.
  mutating func encodeNumber(_ double: Double, type: any Any.Type) throws(PersistentKeyError) {
    guard !double.isNaN else {
      throw self.error(type, "is NaN, which is equal to no value, not even itself")
    }
    if double.isInfinite {
      self.output += double < 0 ? "n-inf" : "ninf"
    } else if double == double.rounded(.towardZero),
      let integer = Int128(exactly: double)
    {
      self.output += "n" + String(describing: integer)
    } else if double == double.rounded(.towardZero), let integer = UInt128(exactly: double) {
      self.output += "n" + String(describing: integer)
    } else {
      self.output += "n" + String(describing: double)
    }
  }

  mutating func encodeStructure(_ value: Any) throws(PersistentKeyError) {
    let type = Swift.type(of: value)
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .struct || mirror.displayStyle == .enum,
      value is any CustomReflectable
    {
      throw self.error(type, "has a custom mirror, which may leave out what makes it unique")
    }
    switch mirror.displayStyle {
    case .collection:
      try self.requireStandardLibraryType(type, "Swift.Array<")
      try self.encodeElements(mirror.children.map(\.value), open: "[", close: "]")
    case .set:
      try self.requireStandardLibraryType(type, "Swift.Set<")
      try self.encodeSorted(mirror.children.map(\.value), open: "{", close: "}")
    case .dictionary:
      try self.requireStandardLibraryType(type, "Swift.Dictionary<")
      let pairs = mirror.children.map(\.value)
      try self.encodeSorted(pairs, open: "<", close: ">")
    case .tuple:
      try self.encodeFields(mirror.children)
    case .struct:
      self.output += "S"
      try self.encodeTypeName(type)
      try self.encodeFields(mirror.children)
    case .enum:
      self.output += "E"
      try self.encodeTypeName(type)
      if let payload = mirror.children.first {
        self.encodeString(payload.label ?? "")
        self.output += "("
        try self.encode(payload.value)
        self.output += ")"
      } else if value is any CustomStringConvertible || value is any CustomDebugStringConvertible
        || value is any TextOutputStreamable
      {
        // NB: Only the default description of a case without a payload is its name.
        throw self.error(type, "describes itself, so the name of its case cannot be read")
      } else {
        self.encodeString(String(describing: value))
      }
    case .class, .foreignReference:
      throw self.error(type, "is a class, whose instances have no stable value")
    default:
      throw self.error(type, "is not a structure, an enumeration or a known value type")
    }
  }

  /// Writes labelled values (a structure's stored properties, a tuple's elements), in order.
  mutating func encodeFields(_ children: Mirror.Children) throws(PersistentKeyError) {
    self.output += "("
    for (index, child) in children.enumerated() {
      if index > 0 { self.output += "," }
      self.encodeString(child.label ?? "")
      self.output += ":"
      try self.encode(child.value)
    }
    self.output += ")"
  }

  /// Writes the elements of a set or the pairs of a dictionary, sorted by their text.
  mutating func encodeSorted(_ values: [Any], open: String, close: String)
    throws(PersistentKeyError)
  {
    var encoded = [String]()
    encoded.reserveCapacity(values.count)
    for value in values {
      var encoder = CanonicalKeyEncoder(path: self.path)
      try encoder.encode(value)
      encoded.append(encoder.output)
    }
    encoded.sort()
    self.output += open + encoded.joined(separator: ",") + close
  }

  /// Collections other than the standard library's may compare unlike arrays, sets and
  /// dictionaries in a path, so they are refused.
  func requireStandardLibraryType(_ type: any Any.Type, _ prefix: String) throws(PersistentKeyError)
  {
    guard _typeName(type, qualified: true).hasPrefix(prefix) else {
      throw self.error(type, "is a collection other than Array, Set or Dictionary")
    }
  }

  func error(_ type: any Any.Type, _ reason: String) -> PersistentKeyError {
    self.error(_typeName(type, qualified: true), reason)
  }

  func error(_ typeName: String, _ reason: String) -> PersistentKeyError {
    PersistentKeyError(path: self.path.description, typeName: typeName, reason: reason)
  }
}

// MARK: - Optionals

/// An optional of any type, seen without its type.
private protocol OptionalValue {
  /// The wrapped value, or `nil`.
  var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
  fileprivate var wrappedValue: Any? {
    self.map { $0 as Any }
  }
}
