import Foundation
import OperationPersistence
import OperationTestSupport

/// A storage that reads cache entries only asynchronously, as a network database does (it does
/// not adopt `SynchronousCacheReading`); a read can be held mid-way by a gate.
final class AsyncOnlyStorage: ForwardingStorage {
  let base: SQLitePersistence
  /// Opened when a read has started.
  let readStarted = Gate()
  /// Holds every read until opened; open by default.
  let reads: Gate

  init(base: SQLitePersistence, holdsReads: Bool = false) {
    self.base = base
    self.reads = Gate()
    if !holdsReads { self.reads.open() }
  }

  func cacheEntry(forKey key: String) async throws -> PersistedQueryEntry? {
    let entry = try await self.base.cacheEntry(forKey: key)
    self.readStarted.open()
    await self.reads.wait()
    return entry
  }
}
