import OperationDemoSupport
import Testing

@Suite struct `IdempotencyLedger tests` {
  @Test func `a new key is applied and a repeated key gets the first answer`() {
    var ledger = IdempotencyLedger<Int>()
    var applications = 0
    let first = ledger.receive(key: "k", path: "/p", body: [1]) {
      applications += 1
      return 42
    }
    let second = ledger.receive(key: "k", path: "/p", body: [1]) {
      applications += 1
      return 43
    }
    #expect(first == .applied(42))
    #expect(second == .replayed(42))
    #expect(applications == 1)
    #expect(ledger.receipts(for: "k") == 2)
    #expect(ledger.appliedCount == 1)
    #expect(ledger.replayCount == 1)
    #expect(ledger.answer(for: "k") == 42)
  }

  @Test func `keys are applied in order per path`() {
    var ledger = IdempotencyLedger<Int>()
    for (key, path) in [("a1", "/a"), ("b1", "/b"), ("a2", "/a"), ("a1", "/a"), ("b2", "/b")] {
      _ = ledger.receive(key: key, path: path, body: []) { 0 }
    }
    #expect(ledger.appliedKeys(path: "/a") == ["a1", "a2"])
    #expect(ledger.appliedKeysByPath == ["/a": ["a1", "a2"], "/b": ["b1", "b2"]])
    #expect(ledger.appliedKeys(path: "/c").isEmpty)
    #expect(ledger.receipts(for: "a1") == 2)
    #expect(ledger.receipts(for: "never") == 0)
  }

  @Test(arguments: [("/other", [UInt8(1)]), ("/p", [UInt8(2)])])
  func `a key that comes back with another path or body is refused`(path: String, body: [UInt8]) {
    var ledger = IdempotencyLedger<Int>()
    _ = ledger.receive(key: "k", path: "/p", body: [1]) { 1 }
    let outcome = ledger.receive(key: "k", path: path, body: body) { 2 }
    #expect(outcome == .conflict)
    #expect(ledger.conflictCount == 1)
    #expect(ledger.appliedCount == 1)
    #expect(ledger.answer(for: "k") == 1)
  }

  @Test func `a failed application records nothing, so a later request applies the key`() throws {
    struct Failure: Error {}
    var ledger = IdempotencyLedger<Int>()
    #expect(throws: Failure.self) {
      try ledger.receive(key: "k", path: "/p", body: []) { throw Failure() }
    }
    #expect(ledger.receipts(for: "k") == 0)
    let outcome = ledger.receive(key: "k", path: "/p", body: []) { 7 }
    #expect(outcome == .applied(7))
    #expect(ledger.appliedKeys(path: "/p") == ["k"])
  }
}
