import Foundation
import SharingOperation
import Testing

@Suite struct `DateDependencyClock tests` {
  @Test func `Reads The Date Dependency`() {
    let date = Date(timeIntervalSince1970: 1_000)
    let clock = withDependencies {
      $0.date.now = date
    } operation: {
      DateDependencyClock.dateDependency
    }
    #expect(clock.now() == date)
  }

  @Test func `Stamps Store Results With The Date Dependency`() async throws {
    let date = Date(timeIntervalSince1970: 2_000)
    let store = withDependencies {
      $0.date.now = date
    } operation: {
      OperationStore.detached(query: TestQuery().clock(.dateDependency), initialValue: nil)
    }
    try await store.fetch()
    #expect(store.valueLastUpdatedAt == date)
  }
}
