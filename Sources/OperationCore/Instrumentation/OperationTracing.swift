#if SwiftOperationTracing
  public import Tracing

  // MARK: - Tracing

  /// An ``OperationInstrument`` that traces runs through swift-distributed-tracing, for whichever
  /// tracer the app bootstraps (OpenTelemetry through swift-otel, for one).
  ///
  /// Available with the `SwiftOperationTracing` package trait.
  ///
  /// Turn it on for every store of a client, or for one operation:
  ///
  /// ```swift
  /// var context = OperationContext()
  /// context.operationTracing = OperationTracing()
  /// let client = OperationClient(defaultContext: context)
  ///
  /// let store = client.store(for: PostQuery(id: 1).traced())
  /// ```
  ///
  /// Every run of a store is a span, named after the operation's type (such as `PostQuery`), or
  /// its path when the type is unknown. Its parent is the caller's `ServiceContext.current`:
  /// `store.run()` inside a request handler's span makes the run a child of that span. Inside
  /// the run, the run's span is the current one, so the operation's own spans (an HTTP client's,
  /// a database's) are its children. Nested in the run:
  ///
  /// - each attempt of a `retry(limit:)` that may retry is a span named `<name> attempt`, with the
  ///   attribute `operation.attempt` (1 for the first);
  /// - each page that a paginated request fetches is a span named `<name> page`, with the
  ///   attribute `operation.page`.
  ///
  /// Every span has the attributes `operation.path` and `operation.outcome` (`success`,
  /// `failure`, `cancelled` or `timeout`), and `operation.type` when the type is known. Failures
  /// record their error and set the span's status to error; timeouts set it to error with the
  /// message `timed out`. Retries, joins of a run
  /// in flight and timeouts are also events (`operation.retried`, `operation.joined`,
  /// `operation.timed_out`) on the span that is current when they happen, for tracers that find
  /// active spans.
  public struct OperationTracing: OperationInstrument {
    private let tracer: (any Tracer)?
    private let kind: SpanKind

    /// Creates an instrument.
    ///
    /// - Parameters:
    ///   - tracer: The tracer; `nil` (the default) uses the one the app bootstrapped, read when
    ///     each span starts.
    ///   - kind: The kind of the spans.
    public init(tracer: (any Tracer)? = nil, kind: SpanKind = .internal) {
      self.tracer = tracer
      self.kind = kind
    }

    private var currentTracer: any Tracer {
      self.tracer ?? InstrumentationSystem.tracer
    }

    /// Starts a span for the work, a child of the current service context.
    public func started(_ work: OperationWork) -> (any OperationWorkObservation)? {
      let name = work.run.operationTypeName ?? work.run.pathDescription
      let spanName: String
      switch work.kind {
      case .run: spanName = name
      case .attempt: spanName = "\(name) attempt"
      case .page: spanName = "\(name) page"
      }
      let span = self.currentTracer.startSpan(
        spanName,
        context: ServiceContext.current ?? .topLevel,
        ofKind: self.kind
      )
      // NB: A span that records nothing (a no-op tracer's, or one sampled out) gets no
      // attributes, which would only be built and dropped.
      guard span.isRecording else { return SpanObservation(span: span) }
      span.updateAttributes { attributes in
        attributes["operation.path"] = work.run.pathDescription
        if let type = work.run.operationTypeName {
          attributes["operation.type"] = type
        }
        switch work.kind {
        case .run: break
        case .attempt(let attempt): attributes["operation.attempt"] = attempt
        case .page(let id): attributes["operation.page"] = id
        }
      }
      return SpanObservation(span: span)
    }

    /// Adds the event to the current span, when the tracer finds it.
    public func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {
      let name: String
      var attributes = SpanAttributes()
      switch event {
      case .retried(let attempt):
        name = "operation.retried"
        attributes["operation.attempt"] = attempt + 1
      case .joinedRunInFlight:
        name = "operation.joined"
      case .timedOut:
        name = "operation.timed_out"
      case .retryRefusedByBudget(let budget):
        name = "operation.retry_refused"
        attributes["operation.retry_budget"] = budget
      case .circuitBreakerTransition(let breaker, let from, let to):
        name = "operation.circuit_breaker_transition"
        attributes["operation.circuit_breaker"] = breaker
        attributes["operation.circuit_breaker.from"] = from.rawValue
        attributes["operation.circuit_breaker.to"] = to.rawValue
      case .rejectedByCircuitBreaker(let breaker):
        name = "operation.rejected"
        attributes["operation.circuit_breaker"] = breaker
      case .rateLimited(let limiter, let wait):
        name = "operation.rate_limited"
        attributes["operation.rate_limiter"] = limiter
        attributes["operation.rate_limiter.wait_seconds"] = wait.timeInterval
      case .rejectedWhenFull(let policy):
        name = "operation.rejected"
        attributes["operation.policy"] = policy
      case .evicted, .persistenceWriteFailed:
        // NB: An eviction and a cache write happen outside any run, so no span of the store is
        // current.
        return
      }
      guard let context = ServiceContext.current,
        let span = self.currentTracer.activeSpan(identifiedBy: context)
      else { return }
      span.addEvent(SpanEvent(name: name, attributes: attributes))
    }
  }

  /// Makes its span current for the work and ends it with the work's outcome.
  private struct SpanObservation: OperationWorkObservation {
    let span: any Span

    func perform<Result>(_ body: () async -> Result) async -> Result {
      await ServiceContext.withValue(self.span.context) {
        await body()
      }
    }

    func ended(_ outcome: OperationRunOutcome, duration: Duration) {
      if self.span.isRecording {
        self.span.attributes["operation.outcome"] = outcome.name
      }
      switch outcome {
      case .succeeded, .cancelled:
        break
      case .failed(let error):
        self.span.recordError(error)
        self.span.setStatus(SpanStatus(code: .error))
      case .timedOut:
        self.span.setStatus(SpanStatus(code: .error, message: "timed out"))
      }
      self.span.end()
    }
  }

  // MARK: - Switches

  extension OperationContext {
    /// The tracing instrument of this context, if any: set it on a client's default context to
    /// trace every store of the client, or to `nil` to stop.
    ///
    /// Setting it replaces any ``OperationTracing`` among ``operationInstruments``, so a run
    /// never has two spans. Available with the `SwiftOperationTracing` package trait.
    public var operationTracing: OperationTracing? {
      get { self.instrument(of: OperationTracing.self) }
      set { self.replaceInstruments(of: OperationTracing.self, with: newValue) }
    }
  }

  extension OperationRequest {
    /// Traces this operation's runs with `tracing`, in place of the client's; see
    /// ``OperationTracing``.
    ///
    /// Available with the `SwiftOperationTracing` package trait.
    ///
    /// - Parameter tracing: The instrument; by default, one on the bootstrapped tracer.
    /// - Returns: The modified operation.
    public func traced(
      _ tracing: OperationTracing = OperationTracing()
    ) -> ModifiedOperation<Self, _ReplacingInstrumentModifier<Self, OperationTracing>> {
      self.modifier(_ReplacingInstrumentModifier(instrument: tracing))
    }
  }

#endif
