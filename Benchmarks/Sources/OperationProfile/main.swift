import Dispatch
import OperationBenchmarkSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Runs one scenario and prints its figures. A plain release executable, so that
// `valgrind --tool=callgrind .build/release/OperationProfile fetch 10000` counts the
// instructions of one path without the benchmark harness.

let usage = """
  usage: OperationProfile <scenario> [count]
  scenarios: fetch, fetch-floor, fetch-defaults, fetch-defaults-plain, concurrent, stores, matching, matching-1m,
             subscribers, mutate, pages, graph-chain, graph-fan-out, graph-dependencies, invalidate, invalidate-1m,
             selection, selection-plain, hydrate, hydrate-plain, write, write-fetch,
             write-fetch-plain, write-flush, write-replacing-flush, write-single-flush,
             write-unbounded, fetch-persisted, fetch-persisted-delay, flush-persisted,
             persisted-overhead, fetch-controlled, fetch-subscribed, fetch-flag, fetch-metrics,
             fetch-metrics-noop, fetch-traced, fetch-traced-memory, fetch-metrics-traced,
             fetch-instrument-nil, fetch-instrument-empty, cancel-callers, bounded-server,
             bounded-app, batch, batch-separate, all
  """

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: " ", count: max(0, width - self.count)) + self
  }
}

let arguments = CommandLine.arguments.dropFirst()
guard let scenario = arguments.first else {
  print(usage)
  exit(64)
}
let count = arguments.dropFirst().first.flatMap { Int($0) }

func format(_ value: Double) -> String {
  let rounded = (value * 10).rounded() / 10
  return "\(rounded)"
}

func measure(_ name: String, count: Int, _ body: () async throws -> Void) async rethrows -> Double {
  let start = ContinuousClock.now
  try await body()
  let perCall = Double(nanoseconds(since: start)) / Double(count)
  print("\(name): \(format(perCall)) ns per call (\(count) calls)")
  return perCall
}

func run(_ scenario: String) async throws {
  switch scenario {
  case "fetch":
    let fetches = SequentialFetches.plain()
    let count = count ?? 100_000
    _ = try await measure("(1) fetch", count: count) { try await fetches.run(count: count) }
  case "fetch-flag", "fetch-metrics", "fetch-metrics-noop", "fetch-traced", "fetch-traced-memory",
    "fetch-metrics-traced", "fetch-instrument-nil", "fetch-instrument-empty":
    // NB: `fetch` is the same store with no instrument (`InstrumentSetting.off`), kept on
    // `SequentialFetches.plain()` as before issue 18.
    let setting = InstrumentSetting(rawValue: scenario)!
    let fetches = SequentialFetches.instrumented(setting)
    let count = count ?? 100_000
    _ = try await measure("(15) fetch, instruments: \(setting.rawValue)", count: count) {
      try await fetches.run(count: count)
    }
  case "fetch-controlled":
    let fetches = ControlledFetches()
    let count = count ?? 100_000
    _ = try await measure("(14) fetch, controlled by a no-op controller", count: count) {
      try await fetches.run(count: count)
    }
  case "fetch-subscribed":
    let fetches = SubscribedFetches()
    let count = count ?? 100_000
    _ = try await measure("(14) fetch, one subscriber with onStateChanged", count: count) {
      try await fetches.run(count: count)
    }
  case "fetch-floor":
    let floor = FetchFloor()
    let count = count ?? 100_000
    _ = await measure("(1) the floor of a fetch", count: count) { await floor.run(count: count) }
  case "fetch-defaults":
    let fetches = SequentialFetches.throughDefaultModifiers()
    let count = count ?? 100_000
    _ = try await measure("(2) fetch through defaults", count: count) {
      try await fetches.run(count: count)
    }
  case "fetch-defaults-plain":
    let fetches = SequentialFetches.throughDefaultModifiersAlone()
    let count = count ?? 100_000
    _ = try await measure("(2') fetch of a plain query through defaults", count: count) {
      try await fetches.run(count: count)
    }
  case "concurrent":
    for _ in 0..<(count ?? 5) {
      let figures = try await concurrentDeduplicatedFetches()
      print(
        "(3) 1,000 concurrent fetches: \(format(Double(figures.wallNanoseconds) / 1e6)) ms, "
          + "body ran \(figures.bodyRuns) time(s)"
      )
    }
  case "cancel-callers":
    // NB: Issue 25: the callers of one deduplicated run, cancelled; the count is the number of
    // callers (1,000, 10,000 and 100,000 in the README).
    let callers = count ?? 10_000
    let figures = await cancelDeduplicatedCallers(count: callers)
    print(
      "(16) cancelling \(callers) callers of one run: "
        + "\(format(Double(figures.cancelNanoseconds) / 1e6)) ms, "
        + "\(format(figures.nanosecondsPerCaller)) ns per caller, body ran \(figures.bodyRuns) "
        + "time(s), cancelled \(figures.cancelledBodies)"
    )
  case "batch", "batch-separate":
    // NB: Issue 29: the count is the number of lookups, made in rounds of 100 concurrent fetches
    // of 100 stores; `Scripts/instructions-per-call.sh batch batch-separate` divides by lookups.
    let lookups = BatchedLookups(BatchForm(rawValue: scenario)!)
    let rounds = ((count ?? 100_000) + BatchedLookups.storeCount - 1) / BatchedLookups.storeCount
    let count = rounds * BatchedLookups.storeCount
    try await lookups.run(count: 1_000)
    let before = lookups.loaderStatistics
    _ = try await measure("(29) \(scenario), per lookup", count: count) {
      try await lookups.run(count: count)
    }
    if let before, let after = lookups.loaderStatistics {
      let batches = after.batches - before.batches
      let ids = after.ids - before.ids
      let loads = after.lookups - before.lookups
      guard batches == rounds, ids == count, loads == count else {
        print(
          "error: \(batches) resolver calls for \(ids) ids and \(loads) lookups, expected \(rounds)"
        )
        exit(1)
      }
      print("    resolver calls: \(batches), \(BatchedLookups.storeCount) ids each")
    } else {
      print("    resolver calls: one per lookup")
    }
  case "bounded-server", "bounded-app":
    // NB: Issue 27: the count is the number of distinct keys (1,000,000 in the README).
    let isServer = scenario == "bounded-server"
    let keys = count ?? 1_000_000
    let figures = try await boundedClientMemory(
      maxStoreCount: isServer ? 10_000 : nil,
      keyCount: keys
    )
    print("(26) \(keys) distinct keys through one \(isServer ? "server" : "app") client")
    print("    keys      stores   resident MiB   heap MiB")
    for point in figures.points {
      let columns = [
        "\(point.keys)".leftPadded(to: 8),
        "\(point.stores)".leftPadded(to: 10),
        format(Double(point.residentBytes) / 1_048_576).leftPadded(to: 14),
        format(Double(point.heapBytes) / 1_048_576).leftPadded(to: 10),
      ]
      print("  " + columns.joined(separator: " "))
    }
    print("    most stores held at any check: \(figures.mostStores)")
  case "stores":
    let figures = storeCreation(count: count ?? 100_000)
    print(
      """
      (4) store(for:) creation: first batch \(format(figures.firstBatchNanosecondsPerStore)) ns, \
      last batch \(format(figures.lastBatchNanosecondsPerStore)) ns per store
          batches (ms): \(figures.batchNanoseconds.map { format(Double($0) / 1e6) })
          lookup: \(format(figures.lookupNanoseconds)) ns
          memory per store: resident \(format(figures.residentBytesPerStore)) B, \
      heap \(format(figures.heapBytesPerStore)) B
      """
    )
  case "matching", "matching-1m":
    let storeCount = scenario == "matching" ? 100_000 : 1_000_000
    let fixture = MatchingFixture(storeCount: storeCount, groups: storeCount / 100)
    let calls = count ?? 10_000
    let matched = fixture.run(count: 100)
    guard matched == 100 * fixture.matchesPerPrefix else {
      print(
        "error: matched \(matched) stores in 100 calls, expected \(100 * fixture.matchesPerPrefix)"
      )
      exit(1)
    }
    _ = await measure(
      "(5) stores(matching:) among \(storeCount) stores, \(fixture.matchesPerPrefix) matches",
      count: calls
    ) { fixture.run(count: calls) }
  case "subscribers":
    let fanOut = SubscriberFanOut()
    let updates = count ?? 10_000
    fanOut.run(count: 10)
    let start = ContinuousClock.now
    fanOut.run(count: updates)
    let perSubscriber =
      Double(nanoseconds(since: start)) / Double(updates * fanOut.subscriberCount)
    print("(6) \(format(perSubscriber)) ns per update per subscriber (\(updates) updates)")
  case "mutate":
    let figures = try await mutations(count: count ?? 100_000)
    print(
      """
      (7) mutate(with:): \(format(figures.nanosecondsPerCall)) ns per call; history \
      \(figures.historyCount); memory added: resident \(figures.residentBytesAdded / 1024) KiB, \
      heap \(figures.heapBytesAdded / 1024) KiB
      """
    )
  case "pages":
    let figures = try await nextPages(count: count ?? 1_000)
    print(
      """
      (8) fetchNextPage(): first 100 \(format(Double(figures.firstWindowNanoseconds) / 1e3)) µs, \
      last 100 \(format(Double(figures.lastWindowNanoseconds) / 1e3)) µs, ratio \
      \(format(figures.ratio)), \(figures.pageCount) pages
      """
    )
  case "graph-chain", "graph-fan-out":
    let shape = GraphShape(rawValue: String(scenario.dropFirst("graph-".count)))!
    let figures = try await graphRun(shape, count: count ?? 10_000)
    print(
      """
      (9) \(figures.nodeCount)-node \(shape.rawValue): \(format(figures.totalNanosecondsPerNode)) ns \
      per node (add \(format(figures.addNanosecondsPerNode)), run \
      \(format(figures.runNanosecondsPerNode))); heap \(format(figures.heapBytesPerNode)) B per node
      """
    )
  case "graph-dependencies":
    let figures = try await graphWithManyDependencies(count: count ?? 10_000)
    print(
      """
      (25) a node with \(figures.dependencyCount) dependencies: adding it \
      \(format(Double(figures.addNodeNanoseconds) / 1e6)) ms \
      (\(format(figures.addNanosecondsPerDependency)) ns per dependency); adding the \
      dependencies \(format(Double(figures.addDependenciesNanoseconds) / 1e6)) ms; run \
      \(format(Double(figures.runNanoseconds) / 1e6)) ms
      """
    )
  case "invalidate", "invalidate-1m":
    let storeCount = scenario == "invalidate" ? 100_000 : 1_000_000
    let fixture = MatchingFixture(storeCount: storeCount, groups: storeCount / 100)
    if let problem = await fixture.verifyInvalidation(ofGroup: 0) {
      print("error: invalidate(matching: [\"user\", 0], rerun: .none) \(problem)")
      exit(1)
    }
    let calls = count ?? 10_000
    await fixture.invalidate(count: 100)
    // NB: Under `valgrind --tool=callgrind --instr-atstart=no`, only the calls are counted.
    let start = ContinuousClock.now
    let matched = await Callgrind.measure { await fixture.invalidate(count: calls) }
    let perCall = Double(nanoseconds(since: start)) / Double(calls)
    guard matched == calls * fixture.matchesPerPrefix else {
      print("error: matched \(matched) stores in \(calls) calls")
      exit(1)
    }
    print(
      """
      (10) invalidate(matching:rerun: .none) among \(storeCount) stores, \
      \(fixture.matchesPerPrefix) matches: \(format(perCall)) ns per call (\(calls) calls)
      """
    )
  case "selection", "selection-plain":
    let fanOut = SelectionFanOut(scenario == "selection" ? .selection : .plain)
    let updates = count ?? 10_000
    let initialCalls = fanOut.handlerCalls
    fanOut.run(count: 10)
    let warmUpCalls = fanOut.handlerCalls - initialCalls
    let before = fanOut.handlerCalls
    let start = ContinuousClock.now
    Callgrind.measure { fanOut.run(count: updates) }
    let perUpdate = Double(nanoseconds(since: start)) / Double(updates)
    let calls = fanOut.handlerCalls - before
    print(
      """
      (11) \(fanOut.form.rawValue), \(fanOut.subscriberCount) subscribers: \(format(perUpdate)) ns \
      per update; handler calls: \(initialCalls) initial, \(warmUpCalls) in 10 warm-up updates, \
      \(calls) in \(updates) updates (\(format(Double(calls) / Double(updates))) per update)
      """
    )
  case "hydrate":
    let fixture = try HydrationFixture(entryCount: 10_000)
    // NB: Under `valgrind --tool=callgrind --instr-atstart=no`, only the creation of the stores
    // is counted.
    let figures = try fixture.hydrate(count: count) { Callgrind.measure($0) }
    let plain = fixture.createPlainStores(count: figures.storeCount)
    guard figures.loadedCount == figures.storeCount else {
      print("error: \(figures.loadedCount) of \(figures.storeCount) stores loaded their entry")
      exit(1)
    }
    print(
      """
      (12) hydrating \(figures.storeCount) persisted stores (10,000 entries on disk): \
      \(format(figures.nanosecondsPerStore)) ns per store, \
      \(format(Double(figures.hydrationNanoseconds) / 1e6)) ms in all; opening the file and the \
      cache \(format(Double(figures.openNanoseconds) / 1e3)) µs; writing the recorded accesses \
      \(format(Double(figures.accessFlushNanoseconds) / 1e6)) ms; heap \
      \(format(figures.heapBytesPerStore)) B per store; the same stores not persisted: \
      \(format(Double(plain) / Double(figures.storeCount))) ns per store
      """
    )
  case "hydrate-plain":
    let fixture = try HydrationFixture(entryCount: 10_000)
    let count = count ?? 10_000
    // NB: Under `valgrind --tool=callgrind --instr-atstart=no`, only the creation is counted.
    let plain = fixture.createPlainStores(count: count) { Callgrind.measure($0) }
    print(
      "(12) baseline: \(format(Double(plain) / Double(count))) ns per plain store (\(count) stores)"
    )
  case "write", "write-fetch", "write-fetch-plain", "write-flush", "write-replacing-flush",
    "write-single-flush", "write-unbounded":
    let phase: WritePhase? =
      switch scenario {
      case "write-fetch": .persistedFetches
      case "write-fetch-plain": .plainFetches
      case "write-flush": .flush
      case "write-replacing-flush": .replacingFlush
      case "write-single-flush": .singleFlush
      default: nil
      }
    let fixture = try WriteFixture(
      resultCount: count ?? 10_000,
      isBounded: scenario != "write-unbounded"
    )
    // NB: Under `valgrind --tool=callgrind --instr-atstart=no`, only `phase` is counted.
    let figures = try await fixture.run(measuring: phase)
    guard figures.pendingAfterFetches == figures.resultCount,
      figures.entriesOnDisk == figures.resultCount
    else {
      print(
        "error: \(figures.pendingAfterFetches) values pending after the fetches and "
          + "\(figures.entriesOnDisk) entries on disk, expected \(figures.resultCount)"
      )
      exit(1)
    }
    func line(_ name: String, _ total: Int) -> String {
      let perResult = format(figures.perResult(total))
      return "    \(name): \(format(Double(total) / 1e6)) ms, \(perResult) ns per result"
    }
    let maxEntries = fixture.maxEntryCount.map { "\($0)" } ?? "no bound"
    print(
      """
      (13) writing \(figures.resultCount) results (bounds: \(maxEntries) entries)
      \(line("plain fetches (baseline)", figures.plainFetchNanoseconds))
      \(line("creating the persisted stores (no entry)", figures.creationNanoseconds))
      \(line("persisted fetches (recording the values)", figures.persistedFetchNanoseconds))
      \(line("flush() into an empty table", figures.flushNanoseconds))
      \(line("persisted fetches, second round", figures.secondFetchNanoseconds))
      \(line("flush() over the first values", figures.replacingFlushNanoseconds))
          flush() of one more result: \(format(Double(figures.singleFlushNanoseconds) / 1e3)) µs
      """
    )
  case "fetch-persisted", "fetch-persisted-delay":
    let fetches = try PersistedFetches(
      writer: scenario == "fetch-persisted" ? .held : .defaultDelay
    )
    let count = count ?? 100_000
    try await fetches.run(count: 10)
    let before = fetches.writes
    // NB: Under `valgrind --tool=callgrind --instr-atstart=no`, only the fetches are counted
    // (and, with the 50 ms delay, the background writes that happen meanwhile).
    _ = try await measure("(14) persisted fetch, \(fetches.writer.rawValue)", count: count) {
      try await Callgrind.measure { try await fetches.run(count: count) }
    }
    let after = fetches.writes
    print(
      """
          background transactions during the fetches: \(after.transactions - before.transactions) \
      (\(after.entries - before.entries) entries); values pending: \(fetches.pendingWriteCount)
      """
    )
  case "flush-persisted":
    let fetches = try PersistedFetches(writer: .held)
    let count = count ?? 1_000
    try await fetches.run(count: count)
    let pending = fetches.pendingWriteCount
    let start = ContinuousClock.now
    // NB: Under `valgrind --tool=callgrind --instr-atstart=no`, only the flush is counted.
    await Callgrind.measure { await fetches.flush() }
    let flush = nanoseconds(since: start)
    print(
      """
      (14) flush() after \(count) persisted fetches (\(pending) value pending): \
      \(format(Double(flush) / 1e3)) µs, \(format(Double(flush) / Double(count))) ns per fetch
      """
    )
  case "persisted-overhead":
    // NB: Plain and persisted rounds alternate, so that a change of load affects both.
    let plain = SequentialFetches.plain()
    let persisted = try PersistedFetches(writer: .held)
    let fetchesPerRound = count ?? 100_000
    try await plain.run(count: 1_000)
    try await persisted.run(count: 1_000)
    var plainRounds = [Double]()
    var persistedRounds = [Double]()
    for _ in 0..<7 {
      var start = ContinuousClock.now
      try await plain.run(count: fetchesPerRound)
      plainRounds.append(Double(nanoseconds(since: start)) / Double(fetchesPerRound))
      start = ContinuousClock.now
      try await persisted.run(count: fetchesPerRound)
      persistedRounds.append(Double(nanoseconds(since: start)) / Double(fetchesPerRound))
    }
    let plainMedian = plainRounds.sorted()[plainRounds.count / 2]
    let persistedMedian = persistedRounds.sorted()[persistedRounds.count / 2]
    print(
      """
      (14) ns per fetch, \(fetchesPerRound) fetches per round, alternating
          plain:     \(plainRounds.map(format)) median \(format(plainMedian))
          persisted: \(persistedRounds.map(format)) median \(format(persistedMedian))
          overhead of the median: \(format((persistedMedian / plainMedian - 1) * 100))%
      """
    )
  case "all":
    for scenario in [
      "fetch", "fetch-floor", "fetch-defaults", "concurrent", "stores", "matching", "matching-1m",
      "subscribers",
      "mutate", "pages", "graph-chain", "graph-fan-out", "graph-dependencies", "invalidate",
      "invalidate-1m", "selection", "selection-plain", "hydrate", "write", "fetch-persisted",
      "fetch-persisted-delay", "flush-persisted", "persisted-overhead",
    ] {
      // NB: The main thread blocks on a semaphore instead of using an `async` top level: an `async` main
      // parks the main thread in libdispatch's `sigsuspend`, which makes Valgrind 3.19 crash.
      let done = DispatchSemaphore(value: 0)
      Task.detached {
        do {
          try await run(scenario)
        } catch {
          print("error: \(error)")
          exit(1)
        }
        done.signal()
      }
      done.wait()
    }
  default:
    print(usage)
    exit(64)
  }
}

// NB: The main thread blocks on a semaphore instead of using an `async` top level: an `async` main
// parks the main thread in libdispatch's `sigsuspend`, which makes Valgrind 3.19 crash.
let done = DispatchSemaphore(value: 0)
Task.detached {
  do {
    try await run(scenario)
  } catch {
    print("error: \(error)")
    exit(1)
  }
  done.signal()
}
done.wait()
// NB: The fixtures remove their database files; this removes the folder that held them.
removePersistenceFiles()
