import OperationDemoSupport
import Testing

@Suite struct `FaultPlan tests` {
  @Test func `the same seed fails the same requests`() {
    let plan = FaultPlan(failureRate: 0.5, latency: .zero, seed: 42)
    let first = (0..<200).map { plan.injectsFailure(forRequest: "GET /posts/1", occurrence: $0) }
    let second = (0..<200).map { plan.injectsFailure(forRequest: "GET /posts/1", occurrence: $0) }
    #expect(first == second)
  }

  @Test func `another seed fails other requests`() {
    let decisions = { (seed: UInt64) in
      (0..<200).map {
        FaultPlan(failureRate: 0.5, latency: .zero, seed: seed)
          .injectsFailure(forRequest: "GET /posts/1", occurrence: $0)
      }
    }
    #expect(decisions(1) != decisions(2))
  }

  @Test func `a decision depends on the key, not on other keys' requests`() {
    let plan = FaultPlan(failureRate: 0.5, latency: .zero, seed: 7)
    let posts = (0..<100).map { plan.injectsFailure(forRequest: "GET /posts/1", occurrence: $0) }
    let pages = (0..<100).map {
      plan.injectsFailure(forRequest: "GET /posts?skip=0", occurrence: $0)
    }
    #expect(posts != pages)
  }

  @Test(arguments: [0.0, 0.1, 0.3, 0.5, 0.9])
  func `the share of failed requests is close to the rate`(rate: Double) {
    let plan = FaultPlan(failureRate: rate, latency: .zero, seed: 3)
    let failures = (0..<20_000).count {
      plan.injectsFailure(forRequest: "GET /posts/\($0 % 100)", occurrence: $0 / 100)
    }
    #expect(abs(Double(failures) / 20_000 - rate) < 0.02)
  }

  @Test func `a rate of 1 fails every request`() {
    let plan = FaultPlan(failureRate: 1, latency: .zero, seed: 3)
    #expect((0..<100).allSatisfy { plan.injectsFailure(forRequest: "k", occurrence: $0) })
  }

  @Test func `out-of-range values are clamped`() {
    #expect(FaultPlan(failureRate: 2, latency: .zero, seed: 0).failureRate == 1)
    #expect(FaultPlan(failureRate: -1, latency: .zero, seed: 0).failureRate == 0)
    #expect(FaultPlan(failureRate: .nan, latency: .zero, seed: 0).failureRate == 0)
    #expect(FaultPlan(failureRate: 0, latency: .seconds(-1), seed: 0).latency == .zero)
  }
}

@Suite struct `RequestLedger tests` {
  @Test func `record returns the occurrence per key and counts the total`() {
    var ledger = RequestLedger()
    #expect(ledger.record("GET /posts/1") == 0)
    #expect(ledger.record("GET /posts/2") == 0)
    #expect(ledger.record("GET /posts/1") == 1)
    #expect(ledger.count(for: "GET /posts/1") == 2)
    #expect(ledger.count(for: "GET /posts/3") == 0)
    #expect(ledger.total == 3)
  }
}
