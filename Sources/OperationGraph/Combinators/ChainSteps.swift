import OperationCore

// MARK: - Step counting

/// A combinator whose progress is split over several steps.
///
/// A combinator that runs parts one after another counts the steps of its parts, so that
/// `a.then(b).then(c)` shares its units evenly over three steps instead of giving half to `c`.
/// Requests that are not combinators are one step each, and so is a request wrapped in a
/// modifier, whatever it wraps.
protocol ChainStepCounting {
  /// The number of steps this request's progress is split over; at least 1.
  var chainStepCount: Int { get }
}

extension OperationRequest {
  /// The number of steps this request counts for in an enclosing chain.
  var chainStepCount: Int {
    (self as? any ChainStepCounting)?.chainStepCount ?? 1
  }
}

// MARK: - Progress of the parts

/// How a combinator shares its context's ``OperationContext/progressReporter`` among its parts.
///
/// The reporter's units are split evenly over the *flattened* steps with
/// ``ProgressReporter/evenShares(of:count:)``, and each part gets the shares of its steps. A part
/// runs with a child reporter whose total is its units, so that a nested chain splits them
/// further exactly as the enclosing one would have.
struct ChainProgress {
  private let reporter: ProgressReporter
  private let partUnits: [Int64]

  /// The shares of a context's reporter, or `nil` when the context has none.
  ///
  /// - Parameters:
  ///   - context: The combinator's run context.
  ///   - stepCounts: The number of steps of each part.
  init?(_ context: OperationContext, stepCounts: [Int]) {
    guard let reporter = context.progressReporter else { return nil }
    let shares = ProgressReporter.evenShares(
      of: reporter.totalUnitCount,
      count: stepCounts.reduce(0, +)
    )
    var partUnits = [Int64]()
    partUnits.reserveCapacity(stepCounts.count)
    var start = 0
    for count in stepCounts {
      partUnits.append(shares[start..<start + count].reduce(0, +))
      start += count
    }
    self.reporter = reporter
    self.partUnits = partUnits
  }

  /// A child reporter for one part, standing for the part's units.
  func child(forPart index: Int) -> ProgressReporter {
    let units = self.partUnits[index]
    return self.reporter.makeChild(pendingUnitCount: units, totalUnitCount: units)
  }

  /// Counts the units of parts that will not run as done, so that a finished chain is at 1.
  func skip(parts indices: Range<Int>) {
    let units = self.partUnits[indices].reduce(0, +)
    if units > 0 {
      self.reporter.advance(by: units)
    }
  }
}

// MARK: - Running a part

extension OperationRequest {
  /// Runs this request as part `index` of a combinator.
  ///
  /// The part runs on the combinator's isolation with a copy of the combinator's context that
  /// its own `OperationRequest/setup(context:)` prepared again, so that the context-writing
  /// modifiers of this part (a retry limit, a delayer, a backoff) are in force while it runs
  /// whatever another part wrote; and with a child of the context's progress reporter, which is
  /// completed when the part ends, however it ends.
  func runAsPart(
    _ index: Int,
    of progress: ChainProgress?,
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    var context = context
    self.setup(context: &context)
    let child = progress?.child(forPart: index)
    if let child {
      context.progressReporter = child
    }
    defer { child?.complete() }
    return try await self.run(isolation: isolation, in: context, with: continuation)
  }
}

extension OperationRequest {
  /// Runs this request as the only part of a combinator, with all of its units.
  func runAsOnlyPart(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    // NB: One part gets every unit whatever its step count, so the count is not worked out.
    try await self.runAsPart(
      0,
      of: ChainProgress(context, stepCounts: [1]),
      isolation: isolation,
      in: context,
      with: continuation
    )
  }

  /// Runs this request as the first of two parts and checks for cancellation after it; when it
  /// fails, or the task is cancelled, the second part's units are counted as done and the error
  /// is thrown.
  func runAsLeadingPart(
    of progress: ChainProgress?,
    isolation: isolated (any Actor)?,
    in context: OperationContext
  ) async throws(Failure) -> Value {
    do {
      let value = try await self.runAsPart(
        0,
        of: progress,
        isolation: isolation,
        in: context,
        with: .ignoring
      )
      try throwIfCancelled(as: Failure.self)
      return value
    } catch {
      progress?.skip(parts: 1..<2)
      throw error
    }
  }
}

// MARK: - Call sites

/// Where a closure-taking combinator was applied, which stands for its closure in paths.
struct ChainCallSite {
  let fileID: StaticString
  let line: UInt
  let column: UInt

  init(_ fileID: StaticString, _ line: UInt, _ column: UInt) {
    self.fileID = fileID
    self.line = line
    self.column = column
  }

  /// The path marker of a combinator of `kind` applied here, making a `combined` request.
  func marker(_ kind: OperationChainPathMarker.Kind, for combined: Any.Type)
    -> OperationChainPathMarker
  {
    OperationChainPathMarker(
      kind,
      combinedType: combined,
      fileID: self.fileID,
      line: self.line,
      column: self.column
    )
  }
}

// MARK: - Continuations and cancellation

extension OperationContinuation {
  /// A continuation that drops what it receives, for parts whose values are not the
  /// combinator's.
  static var ignoring: Self {
    Self { _, _ in }
  }
}

/// Throws `CancellationError` when the task is cancelled and `Failure` can hold it.
///
/// Combinators call this between steps. With a typed `Failure` that cannot hold a
/// `CancellationError` nothing can be thrown, so the next step runs and handles the cancelled
/// task itself, as `delayed(by:)` does.
func throwIfCancelled<Failure: Error>(as failure: Failure.Type) throws(Failure) {
  if Task.isCancelled, let cancellation = CancellationError() as? Failure {
    throw cancellation
  }
}
