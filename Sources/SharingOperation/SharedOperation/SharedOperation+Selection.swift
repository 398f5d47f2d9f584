// MARK: - Selecting

extension SharedOperation {
  /// A shared selection of a member of this wrapper's state, whose observers are told only when
  /// that member changes.
  ///
  /// ```swift
  /// let isLoading = self.$post.select(\.isLoading)
  /// ```
  ///
  /// The selection reads the store this wrapper observes now, with this wrapper's scheduler. It
  /// does not follow the wrapper when the wrapper is re-pointed, and it reads the store's state,
  /// never the wrapper's placeholder. It is a subscriber of the store of its own.
  ///
  /// - Parameter keyPath: The member of the state.
  /// - Returns: The shared selection.
  public func select<Value: Equatable & Sendable>(
    _ keyPath: any KeyPath<State, Value> & Sendable
  ) -> SharedSelection<Value> {
    let reference = self.reference
    return SharedSelection(store: reference.store, keyPath, scheduler: reference.scheduler)
  }

  /// A shared selection of a value derived from this wrapper's state, whose observers are told
  /// only when that value changes.
  ///
  /// ```swift
  /// let title = self.$post.select { $0.currentValue??.title }
  /// ```
  ///
  /// The selection reads the store this wrapper observes now, with this wrapper's scheduler. It
  /// does not follow the wrapper when the wrapper is re-pointed, and it reads the store's state,
  /// never the wrapper's placeholder. It is a subscriber of the store of its own.
  ///
  /// - Parameter transform: Derives the value from the state; it runs with no lock held.
  /// - Returns: The shared selection.
  public func select<Value: Equatable & Sendable>(
    _ transform: @escaping @Sendable (State) -> Value
  ) -> SharedSelection<Value> {
    let reference = self.reference
    return SharedSelection(store: reference.store, scheduler: reference.scheduler, transform)
  }
}
