import Benchmark
import OperationBenchmarkSupport

// The benchmarks of issue 6, numbered as in the issue. The hot loops (1, 2, 6) are measured by
// package-benchmark itself: with a scaling factor, `wallClock` and `mallocCountTotal` are per
// fetch or per delivery. The scenarios (3, 4, 5, 7, 8) time themselves and report custom
// metrics, because their figures (the first batch against the last, a body run count, memory per
// store) are not the time of one iteration.

/// A custom metric whose value is reported as is, not divided by a scaling factor.
private func metric(_ name: String) -> BenchmarkMetric {
  .custom(name, polarity: .prefersSmaller, useScalingFactor: false)
}

private enum Metrics {
  static let hotLoop: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

  static let bodyRuns = metric("(3) body runs")
  static let concurrentWall = metric("(3) wall time (µs)")
  static let firstCreation = metric("(4) creation, first 10k (ns/store)")
  static let lastCreation = metric("(4) creation, last 10k (ns/store)")
  static let lookup = metric("(4) lookup (ns)")
  static let residentPerStore = metric("(4) resident (B/store)")
  static let heapPerStore = metric("(4) heap (B/store)")
  static let matching = metric("(5) stores(matching:) (ns/call)")
  static let mutate = metric("(7) mutate (ns/call)")
  static let mutateResident = metric("(7) resident added (KiB)")
  static let mutateHeap = metric("(7) heap added (KiB)")
  static let firstPages = metric("(8) pages 1-100 (µs)")
  static let lastPages = metric("(8) pages 901-1000 (µs)")
  static let pageRatio = metric("(8) ratio x100")
  static let graphChain = metric("(9) chain of 10k (ns/node)")
  static let graphFanOut = metric("(9) fan-out of 10k (ns/node)")
  static let graphChainHeap = metric("(9) chain heap (B/node)")
  static let graphFanOutHeap = metric("(9) fan-out heap (B/node)")
  static let invalidation = metric("(10) invalidate(matching:) (ns/call)")
  static let invalidationMatches = metric("(10) stores matched per call")
  static let selectionUpdate = metric("(11) selection (ns/update)")
  static let selectionCalls = metric("(11) selection handler calls x1000/update")
  static let plainUpdate = metric("(11) plain subscribers (ns/update)")
  static let plainCalls = metric("(11) plain handler calls x1000/update")
  static let hydrationPerStore = metric("(12) hydration (ns/store)")
  static let hydrationOpen = metric("(12) open file and cache (µs)")
  static let hydrationAccessFlush = metric("(12) access writes (µs)")
  static let plainCreation = metric("(12) plain store creation (ns/store)")
  static let writePlainFetch = metric("(13) plain fetch (ns/result)")
  static let writeFetch = metric("(13) persisted fetch (ns/result)")
  static let writeFlush = metric("(13) flush, new entries (ns/result)")
  static let writeReplacingFlush = metric("(13) flush, replacing (ns/result)")
  static let writeFlushTotal = metric("(13) flush, new entries (µs)")
  static let writeSingleFlush = metric("(13) flush of 1 result, 10,000 on disk (µs)")
  static let flushAfterFetches = metric("(14) flush after 1,000 fetches (µs = ns/fetch)")

  static let custom = [
    bodyRuns, concurrentWall, firstCreation, lastCreation, lookup, residentPerStore, heapPerStore,
    matching, mutate, mutateResident, mutateHeap, firstPages, lastPages, pageRatio, graphChain,
    graphFanOut, graphChainHeap, graphFanOutHeap, invalidation, invalidationMatches,
    selectionUpdate, selectionCalls, plainUpdate, plainCalls, hydrationPerStore, hydrationOpen,
    hydrationAccessFlush, plainCreation, writePlainFetch, writeFetch, writeFlush,
    writeReplacingFlush, writeFlushTotal, writeSingleFlush, flushAfterFetches,
  ]
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: Metrics.hotLoop,
    timeUnits: .nanoseconds,
    // NB: The custom metrics are reported as measured, without a K or M scale.
    units: Dictionary(uniqueKeysWithValues: Metrics.custom.map { ($0, .count) }),
    maxDuration: .seconds(2)
  )

  // MARK: (1) and (2)

  Benchmark(
    "(1) fetch, trivial query, detached store",
    configuration: .init(scalingFactor: .kilo)
  ) { benchmark in
    let fetches = SequentialFetches.plain()
    benchmark.startMeasurement()
    try await fetches.run(count: benchmark.scaledIterations.count)
    benchmark.stopMeasurement()
  }

  Benchmark(
    "(2) fetch, retry(limit: 3).deduplicated(), client defaults",
    configuration: .init(scalingFactor: .kilo)
  ) { benchmark in
    let fetches = SequentialFetches.throughDefaultModifiers()
    benchmark.startMeasurement()
    try await fetches.run(count: benchmark.scaledIterations.count)
    benchmark.stopMeasurement()
  }

  // MARK: (3)

  Benchmark(
    "(3) 1,000 concurrent fetches, deduplicated, 1 ms body",
    configuration: .init(
      metrics: [Metrics.concurrentWall, Metrics.bodyRuns],
      maxDuration: .seconds(2),
      maxIterations: 50
    )
  ) { benchmark in
    let figures = try await concurrentDeduplicatedFetches()
    benchmark.measurement(Metrics.concurrentWall, figures.wallNanoseconds / 1_000)
    benchmark.measurement(Metrics.bodyRuns, figures.bodyRuns)
  }

  // MARK: (4)

  Benchmark(
    "(4) store(for:), 100,000 distinct queries",
    configuration: .init(
      metrics: [
        Metrics.firstCreation, Metrics.lastCreation, Metrics.lookup, Metrics.residentPerStore,
        Metrics.heapPerStore,
      ],
      warmupIterations: 0,
      maxDuration: .seconds(10),
      maxIterations: 5
    )
  ) { benchmark in
    let figures = storeCreation()
    benchmark.measurement(Metrics.firstCreation, Int(figures.firstBatchNanosecondsPerStore))
    benchmark.measurement(Metrics.lastCreation, Int(figures.lastBatchNanosecondsPerStore))
    benchmark.measurement(Metrics.lookup, Int(figures.lookupNanoseconds))
    benchmark.measurement(Metrics.residentPerStore, Int(figures.residentBytesPerStore))
    benchmark.measurement(Metrics.heapPerStore, Int(figures.heapBytesPerStore))
  }

  // MARK: (5)

  for storeCount in [100_000, 1_000_000] {
    Benchmark(
      "(5) stores(matching:), 100 of \(storeCount) stores",
      configuration: .init(
        metrics: [Metrics.matching],
        maxDuration: .seconds(2),
        maxIterations: 20
      )
    ) { benchmark, fixture in
      let calls = 1_000
      let start = ContinuousClock.now
      keep(fixture.run(count: calls))
      benchmark.measurement(Metrics.matching, nanoseconds(since: start) / calls)
    } setup: {
      // NB: With 1,000,000 stores the paths are spread over 10,000 groups, so that each prefix
      // still matches 100 stores and the two figures compare the same work.
      MatchingFixture(storeCount: storeCount, groups: storeCount / 100)
    }
  }

  // MARK: (6)

  Benchmark(
    "(6) state update, 1,000 subscribers (per delivery)",
    configuration: .init(scalingFactor: .mega)
  ) { benchmark, fanOut in
    let updates = benchmark.scaledIterations.count / fanOut.subscriberCount
    benchmark.startMeasurement()
    fanOut.run(count: updates)
    benchmark.stopMeasurement()
  } setup: {
    SubscriberFanOut(subscribers: 1_000)
  }

  // MARK: (7)

  Benchmark(
    "(7) mutate(with:), 100,000 calls on one store",
    configuration: .init(
      metrics: [Metrics.mutate, Metrics.mutateResident, Metrics.mutateHeap],
      warmupIterations: 0,
      maxDuration: .seconds(10),
      maxIterations: 5
    )
  ) { benchmark in
    let figures = try await mutations()
    benchmark.measurement(Metrics.mutate, Int(figures.nanosecondsPerCall))
    benchmark.measurement(Metrics.mutateResident, figures.residentBytesAdded / 1024)
    benchmark.measurement(Metrics.mutateHeap, figures.heapBytesAdded / 1024)
  }

  // MARK: (8)

  Benchmark(
    "(8) fetchNextPage(), 1,000 pages",
    configuration: .init(
      metrics: [Metrics.firstPages, Metrics.lastPages, Metrics.pageRatio],
      maxDuration: .seconds(5),
      maxIterations: 10
    )
  ) { benchmark in
    let figures = try await nextPages()
    benchmark.measurement(Metrics.firstPages, figures.firstWindowNanoseconds / 1_000)
    benchmark.measurement(Metrics.lastPages, figures.lastWindowNanoseconds / 1_000)
    benchmark.measurement(Metrics.pageRatio, Int(figures.ratio * 100))
  }

  // MARK: (9)

  for (shape, time, heap) in [
    (GraphShape.chain, Metrics.graphChain, Metrics.graphChainHeap),
    (GraphShape.fanOut, Metrics.graphFanOut, Metrics.graphFanOutHeap),
  ] {
    Benchmark(
      "(9) WorkGraph, 10,000-node \(shape.rawValue), 8 at once",
      configuration: .init(metrics: [time, heap], maxDuration: .seconds(5), maxIterations: 20)
    ) { benchmark in
      let figures = try await graphRun(shape)
      benchmark.measurement(time, Int(figures.totalNanosecondsPerNode))
      benchmark.measurement(heap, Int(figures.heapBytesPerNode))
    }
  }

  // MARK: (10)

  for storeCount in [100_000, 1_000_000] {
    Benchmark(
      "(10) invalidate(matching:rerun: .none), 100 of \(storeCount) stores",
      configuration: .init(
        metrics: [Metrics.invalidation, Metrics.invalidationMatches],
        maxDuration: .seconds(2),
        maxIterations: 20
      )
    ) { benchmark, fixture in
      let calls = 1_000
      let start = ContinuousClock.now
      let matched = await fixture.invalidate(count: calls)
      benchmark.measurement(Metrics.invalidation, nanoseconds(since: start) / calls)
      benchmark.measurement(Metrics.invalidationMatches, matched / calls)
    } setup: {
      // NB: As in (5): 100 matches per prefix at both sizes, so that the two figures compare the
      // same work in a larger client.
      MatchingFixture(storeCount: storeCount, groups: storeCount / 100)
    }
  }

  // MARK: (11)

  for (form, time, calls) in [
    (SelectionFanOut.Form.selection, Metrics.selectionUpdate, Metrics.selectionCalls),
    (SelectionFanOut.Form.plain, Metrics.plainUpdate, Metrics.plainCalls),
  ] {
    Benchmark(
      "(11) state update, 1,000 subscribers, \(form.rawValue)",
      configuration: .init(metrics: [time, calls], maxDuration: .seconds(2), maxIterations: 50)
    ) { benchmark, fanOut in
      let updates = 1_000
      let before = fanOut.handlerCalls
      let start = ContinuousClock.now
      fanOut.run(count: updates)
      benchmark.measurement(time, nanoseconds(since: start) / updates)
      // NB: Handler calls per update, times 1,000, so that a fraction would still show.
      benchmark.measurement(calls, (fanOut.handlerCalls - before) * 1_000 / updates)
    } setup: {
      SelectionFanOut(form, subscribers: 1_000)
    }
  }

  // MARK: (12)

  Benchmark(
    "(12) hydrate 10,000 persisted stores",
    configuration: .init(
      metrics: [
        .wallClock, .mallocCountTotal, Metrics.hydrationPerStore, Metrics.hydrationOpen,
        Metrics.hydrationAccessFlush, Metrics.plainCreation,
      ],
      timeUnits: .milliseconds,
      maxDuration: .seconds(20),
      maxIterations: 10
    )
  ) { benchmark, fixture in
    // NB: The built-in metrics (wall clock, allocations) cover the creation of the stores alone.
    let figures = try fixture.hydrate { body in
      benchmark.startMeasurement()
      body()
      benchmark.stopMeasurement()
    }
    precondition(figures.loadedCount == figures.storeCount, "\(figures.loadedCount) stores loaded")
    benchmark.measurement(Metrics.hydrationPerStore, Int(figures.nanosecondsPerStore))
    benchmark.measurement(Metrics.hydrationOpen, figures.openNanoseconds / 1_000)
    benchmark.measurement(Metrics.hydrationAccessFlush, figures.accessFlushNanoseconds / 1_000)
    let plain = fixture.createPlainStores()
    benchmark.measurement(Metrics.plainCreation, plain / fixture.entryCount)
  } setup: {
    try HydrationFixture(entryCount: 10_000)
  } teardown: {
    removePersistenceFiles()
  }

  // MARK: (13)

  Benchmark(
    "(13) write 10,000 results: one fetch per persisted store, then flush()",
    configuration: .init(
      metrics: [
        Metrics.writePlainFetch, Metrics.writeFetch, Metrics.writeFlush,
        Metrics.writeReplacingFlush, Metrics.writeFlushTotal, Metrics.writeSingleFlush,
      ],
      maxDuration: .seconds(20),
      maxIterations: 10
    )
  ) { benchmark, fixture in
    let figures = try await fixture.run()
    precondition(figures.pendingAfterFetches == figures.resultCount)
    precondition(figures.entriesOnDisk == figures.resultCount)
    benchmark.measurement(
      Metrics.writePlainFetch,
      Int(figures.perResult(figures.plainFetchNanoseconds))
    )
    benchmark.measurement(
      Metrics.writeFetch,
      Int(figures.perResult(figures.persistedFetchNanoseconds))
    )
    benchmark.measurement(Metrics.writeFlush, Int(figures.perResult(figures.flushNanoseconds)))
    benchmark.measurement(
      Metrics.writeReplacingFlush,
      Int(figures.perResult(figures.replacingFlushNanoseconds))
    )
    benchmark.measurement(Metrics.writeFlushTotal, figures.flushNanoseconds / 1_000)
    benchmark.measurement(Metrics.writeSingleFlush, figures.singleFlushNanoseconds / 1_000)
  } setup: {
    try WriteFixture(resultCount: 10_000)
  } teardown: {
    removePersistenceFiles()
  }

  // MARK: (14)

  // NB: The same loop as (1), registered again so that `--filter "\(14\).*"` runs the plain
  // and the persisted fetches side by side.
  Benchmark(
    "(14) fetch, trivial query, detached store, plain",
    configuration: .init(scalingFactor: .kilo)
  ) { benchmark in
    let fetches = SequentialFetches.plain()
    benchmark.startMeasurement()
    try await fetches.run(count: benchmark.scaledIterations.count)
    benchmark.stopMeasurement()
  }

  for writer in BackgroundWriter.allCases {
    Benchmark(
      "(14) fetch, trivial query, detached store, persisted, \(writer.rawValue)",
      configuration: .init(scalingFactor: .kilo)
    ) { benchmark, fetches in
      benchmark.startMeasurement()
      try await fetches.run(count: benchmark.scaledIterations.count)
      benchmark.stopMeasurement()
    } setup: {
      try PersistedFetches(writer: writer)
    } teardown: {
      removePersistenceFiles()
    }
  }

  Benchmark(
    "(14) flush() after 1,000 persisted fetches",
    configuration: .init(
      metrics: [Metrics.flushAfterFetches],
      maxDuration: .seconds(2),
      maxIterations: 200
    )
  ) { benchmark, fetches in
    let fetchCount = 1_000
    try await fetches.run(count: fetchCount)
    let start = ContinuousClock.now
    await fetches.flush()
    let flush = nanoseconds(since: start)
    // NB: In µs, which is also the ns per fetch of the 1,000 fetches.
    benchmark.measurement(Metrics.flushAfterFetches, flush / fetchCount)
  } setup: {
    try PersistedFetches(writer: .held)
  } teardown: {
    removePersistenceFiles()
  }

  // MARK: (15)

  // NB: The harness runs every benchmark in a process of its own, and the instruments are made in
  // `setup`, which runs only for the benchmark that is run: "off" is measured in a process where
  // no context was ever given an instrument.
  for setting in InstrumentSetting.measured {
    Benchmark(
      "(15) fetch, trivial query, detached store, instruments: \(setting.rawValue)",
      configuration: .init(scalingFactor: .kilo)
    ) { benchmark, fetches in
      benchmark.startMeasurement()
      try await fetches.run(count: benchmark.scaledIterations.count)
      benchmark.stopMeasurement()
    } setup: {
      SequentialFetches.instrumented(setting)
    }
  }
}
