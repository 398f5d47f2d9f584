import Foundation
import OperationCore
import OperationSynchronization
import OperationTestSupport

/// A paginated request over a dictionary of pages that a test edits, with ways to hold, fail and
/// count fetches.
///
/// - Page `n` fetches `script.values[n]` and fails with ``TestError`` when there is no such value
///   or `n` is in `script.failingPageIds`.
/// - The page after `n` is `script.nextPageIds[n]` if set, otherwise `n + 1` when it has a value;
///   the page before `n` is `n - 1` when it has a value.
/// - Before returning, a fetch yields `script.yields[n]`, in order.
/// - `hold(started:release:)` makes the next fetch open a gate and wait for another; `gate` holds
///   every fetch. After waiting, a fetch throws `CancellationError` when its task is cancelled.
struct TestPaginated: PaginatedRequest {
  struct Script: Sendable {
    var values = [Int: String]()
    var nextPageIds = [Int: Int]()
    var failingPageIds = Set<Int>()
    var yields = [Int: [Result<String, TestError>]]()
    var fetchedPageIds = [Int]()
    var holds = [(started: Gate, release: Gate)]()
  }

  let script = Lock(Script())
  /// Makes the path of every fixture distinct.
  private let id = UUID()
  let fetches = AsyncCounter()
  var gate: Gate?
  var initialPageId = 0

  init(_ values: [Int: String] = [:], gate: Gate? = nil) {
    self.script.withLock { $0.values = values }
    self.gate = gate
  }

  var path: OperationPath {
    ["test-paginated", self.id]
  }

  /// The values of the pages, by identifier.
  var values: [Int: String] {
    get { self.script.withLock { $0.values } }
    nonmutating set { self.script.withLock { $0.values = newValue } }
  }

  /// The identifiers of every page fetched so far, in order.
  var fetchedPageIds: [Int] {
    self.script.withLock { $0.fetchedPageIds }
  }

  /// Makes the next fetch open `started` and wait for `release`.
  func hold(started: Gate, release: Gate) {
    self.script.withLock { $0.holds.append((started, release)) }
  }

  func pageId(
    after page: Page<Int, String>,
    using paging: Paging<Int, String>,
    in context: OperationContext
  ) -> Int? {
    self.script.withLock { script in
      script.nextPageIds[page.id] ?? (script.values[page.id + 1] == nil ? nil : page.id + 1)
    }
  }

  func pageId(
    before page: Page<Int, String>,
    using paging: Paging<Int, String>,
    in context: OperationContext
  ) -> Int? {
    self.script.withLock { $0.values[page.id - 1] == nil ? nil : page.id - 1 }
  }

  func fetchPage(
    isolation: isolated (any Actor)?,
    using paging: Paging<Int, String>,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    let (hold, yields) = self.script.withLock { script in
      script.fetchedPageIds.append(paging.pageId)
      let hold = script.holds.isEmpty ? nil : script.holds.removeFirst()
      return (hold, script.yields[paging.pageId] ?? [])
    }
    self.fetches.increment()
    if let hold {
      hold.started.open()
      await hold.release.wait()
    }
    await self.gate?.wait()
    try Task.checkCancellation()
    for result in yields {
      continuation.yield(with: result.mapError { $0 })
    }
    let (value, fails) = self.script.withLock {
      ($0.values[paging.pageId], $0.failingPageIds.contains(paging.pageId))
    }
    guard let value, !fails else { throw TestError(message: "Page \(paging.pageId) failed.") }
    return value
  }
}
