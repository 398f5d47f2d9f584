import OperationSynchronization

// MARK: - Run effects

/// Work that a modifier starts once per run of a store, however many attempts the run makes, and
/// ends when the run ends, with its final result.
///
/// A modifier inside `retry(limit:)` runs once per attempt; effects on other stores (an
/// optimistic change, a protection, an invalidation) must happen once per run instead: applied
/// before the first attempt, and resolved after the last, with the run's final result.
@usableFromInline
package enum RunEffects {
  @usableFromInline package typealias End =
    @Sendable (Result<any Sendable, any Error>) async -> Void

  /// Ends every effect in `ends`, in order (the store's runs give them the last started first,
  /// as the modifiers that started them unwind).
  @usableFromInline
  static func end(_ ends: [End], with result: Result<any Sendable, any Error>) async {
    for end in ends {
      await end(result)
    }
  }
}

extension OperationStore {
  /// Starts the effects of the modifier `identity` for run `sequence`, unless an earlier attempt
  /// of the run started them; `begin` runs with no lock held and returns the work that ends
  /// them, which the store runs once the run's last attempt is over, before it records the
  /// run's result.
  ///
  /// - Returns: Whether `begin` ran.
  package func startRunEffects(
    sequence: Int,
    identity: Int,
    begin: () -> RunEffects.End
  ) -> Bool {
    let isFirst = self.lock.withLock { storage in
      storage.runs.startEffects(ofModifier: identity, forRun: sequence)
    }
    guard isFirst else { return false }
    let end = begin()
    self.lock.withLock { storage in
      storage.runs.addEffectEnd(end, forRun: sequence)
    }
    return true
  }
}

extension OpaqueOperationStore {
  /// Starts the effects of a modifier once per run; see
  /// `OperationStore.startRunEffects(sequence:identity:begin:)`.
  package func startRunEffects(
    sequence: Int,
    identity: Int,
    begin: () -> RunEffects.End
  ) -> Bool {
    (self.base as! any RunEffectsStarting).startRunEffects(
      sequence: sequence,
      identity: identity,
      begin: begin
    )
  }
}

/// A store, whatever its state, that can start run effects.
private protocol RunEffectsStarting {
  func startRunEffects(sequence: Int, identity: Int, begin: () -> RunEffects.End) -> Bool
}

extension OperationStore: RunEffectsStarting {}
