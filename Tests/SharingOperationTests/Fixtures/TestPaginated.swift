import Foundation
import OperationCore
import OperationSynchronization

/// A paginated request over pages that a test edits: page `n` fetches ``values``[n], and fails
/// with ``TestError`` when there is no such value or `n` is in ``failingPageIds``. The page after
/// `n` is `n + 1` and the page before is `n - 1`, when they have values.
struct TestPaginated: PaginatedRequest {
  private struct Script {
    var values = [Int: String]()
    var failingPageIds = Set<Int>()
    var fetchedPageIds = [Int]()
  }

  private let script = Lock(Script())
  /// Makes the path of every fixture distinct.
  private let id = UUID()
  var initialPageId = 0

  init(_ values: [Int: String] = [:], initialPageId: Int = 0) {
    self.script.withLock { $0.values = values }
    self.initialPageId = initialPageId
  }

  var path: OperationPath {
    ["test-paginated", self.id]
  }

  /// The pages that fail.
  var failingPageIds: Set<Int> {
    get { self.script.withLock { $0.failingPageIds } }
    nonmutating set { self.script.withLock { $0.failingPageIds = newValue } }
  }

  /// The identifiers of every page fetched so far, in order.
  var fetchedPageIds: [Int] {
    self.script.withLock { $0.fetchedPageIds }
  }

  func pageId(
    after page: Page<Int, String>,
    using paging: Paging<Int, String>,
    in context: OperationContext
  ) -> Int? {
    self.script.withLock { $0.values[page.id + 1] == nil ? nil : page.id + 1 }
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
    let (value, fails) = self.script.withLock { script in
      script.fetchedPageIds.append(paging.pageId)
      return (script.values[paging.pageId], script.failingPageIds.contains(paging.pageId))
    }
    guard let value, !fails else { throw TestError(message: "Page \(paging.pageId) failed.") }
    return value
  }
}
