/// How severely the system is running out of memory.
///
/// A ``MemoryPressureSource`` reports one severity per notification, and
/// ``OperationClient/DefaultStoreCache`` evicts the stores whose
/// ``OperationContext/evictableMemoryPressure`` contains it. Because the type is an option set,
/// a set of severities reads naturally:
///
/// ```swift
/// let query = PostQuery(id: 1).evictWhen(pressure: .critical)
/// let pinned = SettingsQuery().evictWhen(pressure: [])  // never evicted
/// ```
public struct MemoryPressure: OptionSet, Hashable, Sendable {
  /// The bits of the set: 1 for ``normal``, 2 for ``warning`` and 4 for ``critical``, the same
  /// bits that Dispatch uses for its memory pressure events.
  public let rawValue: Int

  /// Creates a set of severities from its bits.
  ///
  /// - Parameter rawValue: The bits; see ``rawValue``.
  public init(rawValue: Int) {
    self.rawValue = rawValue
  }

  /// Memory is not scarce.
  public static let normal = Self(rawValue: 1 << 0)

  /// Memory is getting scarce; caches should release what they can rebuild.
  public static let warning = Self(rawValue: 1 << 1)

  /// Memory is about to run out.
  public static let critical = Self(rawValue: 1 << 2)

  /// The severities at which stores are evicted unless an operation says otherwise:
  /// ``warning`` and ``critical``.
  public static let defaultEvictable: Self = [.warning, .critical]

  /// Every severity.
  public static let all: Self = [.normal, .warning, .critical]
}

extension MemoryPressure: CustomStringConvertible {
  /// The severities in the set, such as `[warning, critical]`.
  public var description: String {
    var names = [String]()
    if self.contains(.normal) {
      names.append("normal")
    }
    if self.contains(.warning) {
      names.append("warning")
    }
    if self.contains(.critical) {
      names.append("critical")
    }
    let unknown = self.rawValue & ~Self.all.rawValue
    if unknown != 0 {
      names.append("rawValue: \(unknown)")
    }
    return "[\(names.joined(separator: ", "))]"
  }
}
