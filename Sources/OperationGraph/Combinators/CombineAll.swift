import OperationCore

/// Runs requests concurrently and returns their values in the order of the requests.
///
/// This is PeakOperation's `CombineOperation`: every request runs to its end, then
/// - with no request at all, the combined request throws ``OperationChainError/noResult``;
/// - when any request failed, it throws one ``OperationChainError/combinedFailure(errors:)``
///   that carries every failure, in the order of the requests;
/// - otherwise it returns every value, in the order of the requests (not of completion).
///
/// ```swift
/// let feeds = combineAll([FeedQuery(id: 1), FeedQuery(id: 2), FeedQuery(id: 3)])
/// let values = try await OperationRunner(operation: feeds).run()  // [Feed], in that order
/// ```
///
/// The requests run in a task group, each on the caller's isolation (concurrently when the
/// caller is not isolated to an actor), with its own setup applied to a copy of the context.
/// A failure does not cancel the other requests. What they yield is dropped.
///
/// Failure: always `any Error`, since the combined request adds its own errors; the parts'
/// errors are inside ``OperationChainError/combinedFailure(errors:)`` with their own types.
///
/// Progress: the context's ``OperationContext/progressReporter`` is split evenly over the
/// requests, one share each, and each request's share is counted as done when it ends. In an
/// enclosing chain, the combined request is one step.
///
/// Paths: when the requests are `StatefulOperationRequest`s, the combined request is a
/// `QueryRequest` whose path is a ``OperationChainPathMarker/Kind/combineAll`` marker followed
/// by each request's path as one element.
///
/// Cancellation: the requests see the task's cancellation. When the task is cancelled and a
/// request failed, the combined request throws `CancellationError`.
///
/// - Parameter requests: The requests to run.
/// - Returns: A request whose value is the requests' values, in order.
/// - Complexity: O(*n*) to make, for *n* requests.
public func combineAll<Request: OperationRequest & Sendable>(
  _ requests: some Collection<Request>
) -> _CombineAllOperation<Request> where Request.Value: Sendable {
  _CombineAllOperation(requests: Array(requests))
}

/// Runs requests concurrently and returns their values in the order of the requests.
///
/// This is `combineAll(_:)` for requests listed one by one:
///
/// ```swift
/// let both = combineAll(FeedQuery(id: 1), FeedQuery(id: 2))
/// ```
///
/// - Parameter requests: The requests to run.
/// - Returns: A request whose value is the requests' values, in order.
public func combineAll<Request: OperationRequest & Sendable>(
  _ requests: Request...
) -> _CombineAllOperation<Request> where Request.Value: Sendable {
  _CombineAllOperation(requests: requests)
}

extension Collection where Element: OperationRequest & Sendable, Element.Value: Sendable {
  /// Runs these requests concurrently and returns their values in order; see
  /// `combineAll(_:)`.
  ///
  /// ```swift
  /// let feeds = ids.map { FeedQuery(id: $0) }.combineAll()
  /// ```
  ///
  /// - Returns: A request whose value is the requests' values, in order.
  public func combineAll() -> _CombineAllOperation<Element> {
    _CombineAllOperation(requests: Array(self))
  }
}

/// The request behind `combineAll(_:)`.
public struct _CombineAllOperation<Request: OperationRequest & Sendable>: OperationRequest,
  Sendable
where Request.Value: Sendable {
  /// The requests' values, in the order of the requests.
  public typealias Value = [Request.Value]

  /// Any error: ``OperationChainError`` for missing or failed requests.
  public typealias Failure = any Error

  /// The requests, in order.
  public let requests: [Request]

  init(requests: [Request]) {
    self.requests = requests
  }

  /// Prepares the context with each request's setup, in order.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    for request in self.requests {
      request.setup(context: &context)
    }
  }

  /// Runs the requests concurrently and combines their results.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on; each request runs on it.
  ///   - context: The context of this run.
  ///   - continuation: Receives nothing: what the requests yield is dropped.
  /// - Returns: The requests' values, in order.
  /// - Throws: ``OperationChainError/noResult`` without requests,
  ///   ``OperationChainError/combinedFailure(errors:)`` when any request failed, or
  ///   `CancellationError` when the task was cancelled and a request failed.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, any Error>
  ) async throws -> Value {
    guard !self.requests.isEmpty else { throw OperationChainError.noResult }
    let progress = ChainProgress(
      context,
      stepCounts: [Int](repeating: 1, count: self.requests.count)
    )
    var results = [Result<Request.Value, Request.Failure>?](
      repeating: nil,
      count: self.requests.count
    )
    await withTaskGroup(of: (Int, Result<Request.Value, Request.Failure>).self) { group in
      for (index, request) in self.requests.enumerated() {
        group.addTask {
          do throws(Request.Failure) {
            let value = try await request.runAsPart(
              index,
              of: progress,
              isolation: isolation,
              in: context,
              with: .ignoring
            )
            return (index, .success(value))
          } catch {
            return (index, .failure(error))
          }
        }
      }
      for await (index, result) in group {
        results[index] = result
      }
    }
    var values = [Request.Value]()
    var errors = [any Error]()
    values.reserveCapacity(results.count)
    for case let result? in results {
      switch result {
      case .success(let value): values.append(value)
      case .failure(let error): errors.append(error)
      }
    }
    guard errors.isEmpty else {
      try Task.checkCancellation()
      throw OperationChainError.combinedFailure(errors: errors)
    }
    return values
  }
}

extension _CombineAllOperation: StatefulOperationRequest, QueryRequest, _CombinedQueryRequest
where Request: StatefulOperationRequest {
  /// A query state with the requests' values and any error.
  public typealias State = QueryState<[Request.Value], any Error>

  /// A ``OperationChainPathMarker/Kind/combineAll`` marker, then each request's path as one
  /// element.
  public var path: OperationPath {
    var path = OperationPath(element: OperationPath.Element(OperationChainPathMarker(.combineAll)))
    for request in self.requests {
      path.append(OperationPath.Element(request.path))
    }
    return path
  }
}
