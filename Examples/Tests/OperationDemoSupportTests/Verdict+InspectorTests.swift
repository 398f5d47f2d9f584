import Foundation
import OperationDemoSupport
import Testing

@Suite struct `Verdict+Inspector tests` {
  private static let feed = "OperationPath([FeedQuery(initialPageId: 0)])"

  private static func snapshot(_ stores: [InspectorSnapshot.Store]) -> InspectorSnapshot {
    InspectorSnapshot(takenAt: Date(timeIntervalSince1970: 0), stores: stores)
  }

  private static func verdict(_ snapshot: InspectorSnapshot?, problem: String? = nil) -> Verdict {
    .inspectorLists(
      path: Self.feed,
      label: "the feed's store",
      phase: "success",
      in: snapshot,
      problem: problem
    )
  }

  @Test func `passes when the store is listed in the phase`() {
    let verdict = Self.verdict(
      Self.snapshot([
        InspectorSnapshot.Store(path: "other", stateType: "S", phase: "idle"),
        InspectorSnapshot.Store(path: Self.feed, stateType: "S", phase: "success", pageCount: 10),
      ])
    )
    #expect(verdict.passed)
    #expect(verdict.message.contains("success, 10 page(s), among 2 store(s)"))
  }

  @Test func `fails without a snapshot, and says why`() {
    let verdict = Self.verdict(nil, problem: "HTTP 404: No client is registered")
    #expect(!verdict.passed)
    #expect(verdict.message.contains("HTTP 404: No client is registered"))
  }

  @Test func `fails on a snapshot of no stores`() {
    let verdict = Self.verdict(Self.snapshot([]))
    #expect(!verdict.passed)
    #expect(verdict.message.contains("listed no stores"))
  }

  @Test func `fails when the store is missing`() {
    let verdict = Self.verdict(
      Self.snapshot([InspectorSnapshot.Store(path: "other", stateType: "S", phase: "success")])
    )
    #expect(!verdict.passed)
    #expect(verdict.message.contains("listed 1 store(s) but not the feed's store"))
  }

  @Test(arguments: ["idle", "loading", "failure", "cancelled"])
  func `fails when the store is in another phase`(phase: String) {
    let verdict = Self.verdict(
      Self.snapshot([InspectorSnapshot.Store(path: Self.feed, stateType: "S", phase: phase)])
    )
    #expect(!verdict.passed)
    #expect(verdict.message.contains("in phase \(phase), expected success"))
  }

  private static func history(_ keys: [String]) -> RequestHistory {
    keys.reduce(into: RequestHistory()) { $0.record(key: $1, reachedRoute: true) }
  }

  @Test func `debug requests left out of the history pass`() {
    let verdict = Verdict.debugRequestsLeftOut(
      answered: 12,
      failed: 0,
      history: Self.history(["GET /posts/1", "GET /posts?limit=10&skip=0"])
    )
    #expect(verdict.passed)
    #expect(verdict.message.contains("12 debug request(s)"))
  }

  @Test func `no debug request proves nothing and fails`() {
    let verdict = Verdict.debugRequestsLeftOut(
      answered: 0,
      failed: 0,
      history: Self.history(["GET /posts/1"])
    )
    #expect(!verdict.passed)
  }

  @Test func `a debug request in the history fails`() {
    let verdict = Verdict.debugRequestsLeftOut(
      answered: 3,
      failed: 0,
      history: Self.history(["GET /posts/1", "GET /debug/operations"])
    )
    #expect(!verdict.passed)
    #expect(verdict.message.contains("counts 1 debug request(s)"))
  }

  @Test func `a failed debug request fails`() {
    let verdict = Verdict.debugRequestsLeftOut(
      answered: 3,
      failed: 1,
      history: Self.history(["GET /posts/1"])
    )
    #expect(!verdict.passed)
    #expect(verdict.message.contains("1 of the inspector's debug request(s) got no snapshot"))
  }
}
