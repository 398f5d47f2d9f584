import Operation

// MARK: - (10): invalidate(matching:)

extension MatchingFixture {
  /// (10) Calls `client.invalidate(matching: ["user", n], rerun: .none)` `count` times, cycling
  /// through the groups, and returns the total number of stores the calls matched.
  ///
  /// With `.none` the matched stores are only marked stale, so a call costs the lookup of its
  /// matches and one `invalidate()` per match; marking a store that is already invalidated again
  /// does the same work.
  @discardableResult
  public func invalidate(count: Int) async -> Int {
    var matched = 0
    for call in 0..<count {
      let result = await self.client.invalidate(
        matching: self.prefixes[call % self.prefixes.count],
        rerun: .none
      )
      matched += result.matched.count
    }
    return matched
  }

  /// Checks what one invalidation did: it matched the group's stores, reran none, and left every
  /// one of them invalidated and the next group's stores alone.
  ///
  /// - Parameter group: The group to invalidate, in a fixture where it has not been yet.
  /// - Returns: A description of the first difference, or `nil` when there is none.
  public func verifyInvalidation(ofGroup group: Int) async -> String? {
    let prefix: OperationPath = ["user", group]
    let result = await self.client.invalidate(matching: prefix, rerun: .none)
    guard result.matched.count == self.matchesPerPrefix else {
      return "matched \(result.matched.count) stores, expected \(self.matchesPerPrefix)"
    }
    guard result.rerun.isEmpty else {
      return "reran \(result.rerun.count) stores with rerun: .none"
    }
    let stores = self.client.stores(matching: prefix)
    guard stores.count == self.matchesPerPrefix, stores.allSatisfy(\.isInvalidated) else {
      return "not every matched store is invalidated"
    }
    let next: OperationPath = ["user", (group + 1) % self.prefixes.count]
    guard !self.client.stores(matching: next).contains(where: \.isInvalidated) else {
      return "a store of another group is invalidated"
    }
    return nil
  }
}
