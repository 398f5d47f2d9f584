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
  scenarios: fetch, fetch-defaults, concurrent, stores, matching, matching-1m, subscribers,
             mutate, pages, graph-chain, graph-fan-out, invalidate, invalidate-1m, selection,
             selection-plain, all
  """

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
  case "fetch-defaults":
    let fetches = SequentialFetches.throughDefaultModifiers()
    let count = count ?? 100_000
    _ = try await measure("(2) fetch through defaults", count: count) {
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
  case "all":
    for scenario in [
      "fetch", "fetch-defaults", "concurrent", "stores", "matching", "matching-1m", "subscribers",
      "mutate", "pages", "graph-chain", "graph-fan-out", "invalidate", "invalidate-1m", "selection",
      "selection-plain",
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
