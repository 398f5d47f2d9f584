/// Identifies one run, so that a run only ever clears or cancels its own slot entry.
struct RunToken: Hashable, Sendable {
  private let rawValue: UInt64

  @MainActor private static var next: UInt64 = 0

  /// A token that no other run has.
  @MainActor static func make() -> Self {
    defer { Self.next &+= 1 }
    return Self(rawValue: Self.next)
  }
}

/// The task a slot holds, with the token of its run.
struct TaskSlotEntry {
  let token: RunToken
  let task: Task<Void, Never>
}

/// The place where the task of one state lives while it runs.
///
/// A slot holds at most one task. Starting a run replaces the entry (after cancelling the old
/// task); a run that ends clears the entry only if it is still its own, so a cancelled run that
/// ends late never clears the slot of the run that replaced it.
@MainActor
protocol TaskSlot {
  /// The task in the slot, if any.
  var entry: TaskSlotEntry? { get nonmutating set }
}

extension TaskSlot {
  /// Cancels the task in the slot, if any, and empties the slot.
  func cancel() {
    let entry = self.entry
    self.entry = nil
    entry?.task.cancel()
  }

  /// Cancels the task in the slot and empties the slot, only if the slot still holds `token`'s
  /// run.
  ///
  /// - Parameter token: The run's token; `nil` for a run outside the slot, which does nothing.
  func cancel(ifHolding token: RunToken?) {
    guard let token, self.entry?.token == token else { return }
    self.cancel()
  }

  /// Empties the slot, only if it still holds `token`'s run.
  ///
  /// - Parameter token: The run's token.
  func finish(_ token: RunToken) {
    guard self.entry?.token == token else { return }
    self.entry = nil
  }
}

/// A slot owned by one wrapper or binding.
@MainActor
final class OwnedTaskSlot: TaskSlot {
  var entry: TaskSlotEntry?

  nonisolated init() {}
}

/// The slot of one state property of one object, for ``LoadableSupport`` and ``ProcessSupport``.
///
/// Slots are keyed by the object's identity and the property's key path, so two objects of the
/// same class never share a slot. An entry lives only while its task runs (the task keeps the
/// object alive, so its identity cannot be reused meanwhile) and is removed when the task ends or
/// is cancelled, so the table does not grow with the number of objects.
@MainActor
struct ObjectTaskSlot: TaskSlot {
  private struct Key: Hashable {
    let object: ObjectIdentifier
    let keyPath: AnyKeyPath
  }

  private static var entries = [Key: TaskSlotEntry]()

  private let key: Key

  init(object: AnyObject, keyPath: AnyKeyPath) {
    self.key = Key(object: ObjectIdentifier(object), keyPath: keyPath)
  }

  var entry: TaskSlotEntry? {
    get { Self.entries[self.key] }
    nonmutating set { Self.entries[self.key] = newValue }
  }
}
