import OperationDemoSupport
import Testing

@Suite struct `LatencyPercentiles tests` {
  @Test func `Percentiles Of One To A Hundred Are Their Ranks`() throws {
    let latencies = try #require(
      LatencyPercentiles(milliseconds: (1...100).reversed().map(Double.init))
    )
    #expect(latencies.p50 == 50)
    #expect(latencies.p99 == 99)
    #expect(latencies.percentile(100) == 100)
    #expect(latencies.percentile(0) == 1)
    #expect(latencies.largest == 100)
    #expect(latencies.count == 100)
  }

  @Test func `The Nearest Rank Rounds Up`() throws {
    let latencies = try #require(LatencyPercentiles(milliseconds: [4, 1, 3, 2]))
    // NB: 50% of 4 samples is rank 2; 99% is rank 3.96, rounded up to 4.
    #expect(latencies.p50 == 2)
    #expect(latencies.p99 == 4)
  }

  @Test func `A Single Sample Is Every Percentile`() throws {
    let latencies = try #require(LatencyPercentiles(milliseconds: [7.5]))
    #expect(latencies.p50 == 7.5)
    #expect(latencies.p99 == 7.5)
    #expect(latencies.percentile(-10) == 7.5)
    #expect(latencies.percentile(250) == 7.5)
  }

  @Test func `A Slow Tail Shows In p99 Only`() throws {
    let latencies = try #require(
      LatencyPercentiles(
        milliseconds: Array(repeating: 2, count: 980) + Array(repeating: 150, count: 20)
      )
    )
    #expect(latencies.p50 == 2)
    #expect(latencies.p99 == 150)
  }

  @Test func `No Sample Gives No Percentiles`() {
    #expect(LatencyPercentiles(milliseconds: []) == nil)
  }
}
