extension ModifiedOperation: PaginatedRequest
where
  Operation: PaginatedRequest,
  Operation.Value == Modifier.Value,
  Operation.Failure == Modifier.Failure
{
  /// The type of value of a page of the wrapped request.
  public typealias PageValue = Operation.PageValue
  /// The type that identifies a page of the wrapped request.
  public typealias PageID = Operation.PageID
  /// The type of error of the wrapped request.
  public typealias PageFailure = Operation.PageFailure

  /// The wrapped request's initial page identifier.
  public var initialPageId: Operation.PageID {
    self.operation.initialPageId
  }

  /// The wrapped request's identifier of the page after `page`.
  ///
  /// - Parameters:
  ///   - page: The last page of the list.
  ///   - paging: The list and the kind of fetch.
  ///   - context: The context of the run.
  /// - Returns: The identifier of the next page, or `nil` when there is none.
  public func pageId(
    after page: Page<Operation.PageID, Operation.PageValue>,
    using paging: Paging<Operation.PageID, Operation.PageValue>,
    in context: OperationContext
  ) -> Operation.PageID? {
    self.operation.pageId(after: page, using: paging, in: context)
  }

  /// The wrapped request's identifier of the page before `page`.
  ///
  /// - Parameters:
  ///   - page: The first page of the list.
  ///   - paging: The list and the kind of fetch.
  ///   - context: The context of the run.
  /// - Returns: The identifier of the previous page, or `nil` when there is none.
  public func pageId(
    before page: Page<Operation.PageID, Operation.PageValue>,
    using paging: Paging<Operation.PageID, Operation.PageValue>,
    in context: OperationContext
  ) -> Operation.PageID? {
    self.operation.pageId(before: page, using: paging, in: context)
  }

  /// Fetches a page with the wrapped request directly, without the modifier.
  ///
  /// Stores call `run(isolation:in:with:)`, which goes through the modifier.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - paging: The page to fetch, the list, and the kind of fetch.
  ///   - context: The context of the run.
  ///   - continuation: Receives intermediate values of the page.
  /// - Returns: The value of the page.
  /// - Throws: The error of the fetch.
  public func fetchPage(
    isolation: isolated (any Actor)?,
    using paging: Paging<Operation.PageID, Operation.PageValue>,
    in context: OperationContext,
    with continuation: OperationContinuation<Operation.PageValue, Operation.PageFailure>
  ) async throws(Operation.PageFailure) -> Operation.PageValue {
    try await self.operation.fetchPage(
      isolation: isolation,
      using: paging,
      in: context,
      with: continuation
    )
  }
}
