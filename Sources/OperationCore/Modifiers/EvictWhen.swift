// MARK: - Modifier

extension OperationRequest {
  /// Sets the memory pressure at which ``OperationClient/DefaultStoreCache`` may evict this
  /// operation's store.
  ///
  /// A store is only evicted while it has no subscribers. Pass an empty set to keep the store
  /// cached whatever the pressure:
  ///
  /// ```swift
  /// // Evicted only when memory is about to run out.
  /// let feed = FeedQuery().evictWhen(pressure: .critical)
  ///
  /// // Never evicted.
  /// let settings = SettingsQuery().evictWhen(pressure: [])
  /// ```
  ///
  /// As with other context-setting modifiers, the innermost `evictWhen` wins.
  ///
  /// - Parameter pressure: The severities at which the store may be evicted.
  /// - Returns: The modified operation.
  public func evictWhen(
    pressure: MemoryPressure
  ) -> ModifiedOperation<Self, _EvictWhenPressureModifier<Self>> {
    self.modifier(_EvictWhenPressureModifier(pressure: pressure))
  }
}

/// The modifier behind ``OperationRequest/evictWhen(pressure:)``.
public struct _EvictWhenPressureModifier<Operation: OperationRequest>:
  _ContextUpdatingOperationModifier
{
  let pressure: MemoryPressure

  /// Writes the severities to ``OperationContext/evictableMemoryPressure``.
  public func setup(context: inout OperationContext) {
    context.evictableMemoryPressure = self.pressure
  }
}

// MARK: - Context

extension OperationContext {
  /// The memory pressure severities at which ``OperationClient/DefaultStoreCache`` may evict the
  /// store, while it has no subscribers.
  ///
  /// The default is ``MemoryPressure/defaultEvictable`` (warning and critical); an empty set
  /// means never. Set it with ``OperationRequest/evictWhen(pressure:)``.
  public var evictableMemoryPressure: MemoryPressure {
    get { self[EvictableMemoryPressureKey.self] }
    set { self[EvictableMemoryPressureKey.self] = newValue }
  }

  private enum EvictableMemoryPressureKey: Key {
    static let defaultValue = MemoryPressure.defaultEvictable
  }
}
