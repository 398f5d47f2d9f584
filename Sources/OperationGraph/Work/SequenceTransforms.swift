public import OperationCore

extension OperationRequest where Value: Sequence & Sendable, Value.Element: Sendable {
  /// Transforms every element of the request's value.
  ///
  /// This is danthorpe/Operations' `MapOperation` over a result that is a list. The name says
  /// *each* because a request's `map` (a combinator) transforms its whole value; on a request whose
  /// value is an array, `mapEach` transforms the elements:
  ///
  /// ```swift
  /// let titles = PostsQuery().mapEach(\.title)
  /// ```
  ///
  /// When the request fails, the transform does not run and the error propagates. When the task
  /// is cancelled by the time the request returns, the transform does not run either, and the run
  /// throws `CancellationError`, provided `Failure` can hold it; with a typed `Failure` that
  /// cannot, the value is transformed. Yields of the request are transformed as well.
  ///
  /// - Parameter transform: Transforms one element.
  /// - Returns: The modified request, whose value is an array.
  /// - Complexity: O(*n*) transforms for a value of *n* elements.
  public func mapEach<Element: Sendable>(
    _ transform: @escaping @Sendable (Value.Element) -> Element
  ) -> ModifiedOperation<Self, _SequenceTransformModifier<Self, [Element]>> {
    self.modifier(_SequenceTransformModifier { $0.map(transform) })
  }

  /// Keeps the elements of the request's value that satisfy a predicate.
  ///
  /// This is danthorpe/Operations' `FilterOperation`. On a request whose value is an array, the
  /// value type stays the same, so a filtered query is still a query for a store:
  ///
  /// ```swift
  /// let unread = MessagesQuery().filter { !$0.isRead }
  /// ```
  ///
  /// Failure and cancellation work as in ``mapEach(_:)``.
  ///
  /// - Parameter isIncluded: Whether to keep an element.
  /// - Returns: The modified request, whose value is an array.
  /// - Complexity: O(*n*) for a value of *n* elements.
  public func filter(
    _ isIncluded: @escaping @Sendable (Value.Element) -> Bool
  ) -> ModifiedOperation<Self, _SequenceTransformModifier<Self, [Value.Element]>> {
    self.modifier(_SequenceTransformModifier { $0.filter(isIncluded) })
  }

  /// Combines the elements of the request's value into one result.
  ///
  /// This is danthorpe/Operations' `ReduceOperation`:
  ///
  /// ```swift
  /// let total = LineItemsQuery(order: id).reduce(0) { sum, item in sum + item.price }
  /// ```
  ///
  /// Failure and cancellation work as in ``mapEach(_:)``.
  ///
  /// - Parameters:
  ///   - initialResult: The result for a value with no elements, and the start of the combination.
  ///   - nextPartialResult: Combines the result so far with the next element.
  /// - Returns: The modified request, whose value is the combined result.
  /// - Complexity: O(*n*) for a value of *n* elements.
  public func reduce<Result: Sendable>(
    _ initialResult: Result,
    _ nextPartialResult: @escaping @Sendable (Result, Value.Element) -> Result
  ) -> ModifiedOperation<Self, _SequenceTransformModifier<Self, Result>> {
    self.modifier(
      _SequenceTransformModifier { $0.reduce(initialResult, nextPartialResult) }
    )
  }
}

/// The modifier behind ``OperationRequest/mapEach(_:)``, ``OperationRequest/filter(_:)`` and
/// ``OperationRequest/reduce(_:_:)``: a transform of the whole value of a request whose value is a
/// sequence.
public struct _SequenceTransformModifier<Operation: OperationRequest, Value: Sendable>:
  OperationModifier, Sendable
where Operation.Value: Sequence & Sendable, Operation.Value.Element: Sendable {
  /// The type of error the transformed request throws: the wrapped request's.
  public typealias Failure = Operation.Failure

  let transform: @Sendable (Operation.Value) -> Value

  init(_ transform: @escaping @Sendable (Operation.Value) -> Value) {
    self.transform = transform
  }

  /// Runs the request and transforms its value, unless it failed or the task was cancelled.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - operation: The wrapped request.
  ///   - continuation: Receives the request's yields, transformed.
  /// - Returns: The transformed value.
  /// - Throws: The request's error, or `CancellationError` when the task was cancelled.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Value {
    let value = try await operation.run(
      isolation: isolation,
      in: context,
      with: continuation.receivingTransformed(by: self.transform)
    )
    // NB: Operations cancels the downstream step of a cancelled source; typed throws can only say
    // so when `Failure` holds a `CancellationError`.
    if Task.isCancelled, let cancellation = CancellationError() as? Operation.Failure {
      throw cancellation
    }
    return self.transform(value)
  }
}

extension OperationContinuation {
  /// A continuation for a wrapped request, which passes each of its yields to this one after
  /// transforming the value.
  ///
  /// - Parameter transform: Turns a value of the wrapped request into one of this continuation.
  /// - Returns: The continuation to give the wrapped request.
  func receivingTransformed<Source>(
    by transform: @escaping @Sendable (Source) -> Value
  ) -> OperationContinuation<Source, Failure> {
    OperationContinuation<Source, Failure> { result, context in
      self.yield(with: result.map(transform), using: context)
    }
  }
}
