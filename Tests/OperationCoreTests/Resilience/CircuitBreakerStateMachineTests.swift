import Foundation
import PropertyBased
import Testing

@testable import OperationCore

@Suite struct `CircuitBreakerStateMachine tests` {
  private static let start = Date(timeIntervalSince1970: 1_000)

  private static func machine(
    threshold: CircuitBreaker.Threshold = .consecutiveFailures(2),
    probes: Int = 2
  ) -> CircuitBreakerStateMachine {
    CircuitBreakerStateMachine(
      configuration: .init(threshold: threshold, coolDown: .seconds(10), probes: probes)
    )
  }

  private static func ticket(
    _ admission: CircuitBreakerStateMachine.Admission
  ) -> CircuitBreakerStateMachine.Ticket? {
    if case .admitted(let ticket) = admission { ticket } else { nil }
  }

  @Test func `A Call That Started Before A Transition Changes Nothing When It Ends`() throws {
    var machine = Self.machine()
    let slow = try #require(Self.ticket(machine.admit(at: Self.start).admission))
    let a = try #require(Self.ticket(machine.admit(at: Self.start).admission))
    let b = try #require(Self.ticket(machine.admit(at: Self.start).admission))
    #expect(machine.end(a, with: .failure, at: Self.start) == nil)
    #expect(machine.end(b, with: .failure, at: Self.start) == .init(from: .closed, to: .open))
    #expect(machine.end(slow, with: .success, at: Self.start) == nil)
    #expect(machine.state == .open)
  }

  @Test func `Half-Open Lets The Probes Through And Closes When All Succeed`() throws {
    var machine = Self.machine()
    for _ in 0..<2 {
      let ticket = try #require(Self.ticket(machine.admit(at: Self.start).admission))
      _ = machine.end(ticket, with: .failure, at: Self.start)
    }
    let later = Self.start.addingTimeInterval(10)
    let (first, transition) = machine.admit(at: later)
    #expect(transition == .init(from: .open, to: .halfOpen))
    let second = machine.admit(at: later).admission
    #expect(machine.admit(at: later).admission == .rejected(retryAfter: nil))
    #expect(machine.end(try #require(Self.ticket(first)), with: .success, at: later) == nil)
    #expect(
      machine.end(try #require(Self.ticket(second)), with: .success, at: later)
        == .init(from: .halfOpen, to: .closed)
    )
  }

  @Test func `A Cancelled Probe Frees Its Slot`() throws {
    var machine = Self.machine(threshold: .consecutiveFailures(1), probes: 1)
    let ticket = try #require(Self.ticket(machine.admit(at: Self.start).admission))
    _ = machine.end(ticket, with: .failure, at: Self.start)
    let later = Self.start.addingTimeInterval(10)
    let probe = try #require(Self.ticket(machine.admit(at: later).admission))
    #expect(machine.admit(at: later).admission == .rejected(retryAfter: nil))
    #expect(machine.end(probe, with: .ignored, at: later) == nil)
    #expect(Self.ticket(machine.admit(at: later).admission) != nil)
  }

  @Test func `Probes That Outlive The Cool-Down Are Given Up, And The Next Call Probes`() throws {
    var machine = Self.machine(threshold: .consecutiveFailures(1), probes: 1)
    let ticket = try #require(Self.ticket(machine.admit(at: Self.start).admission))
    _ = machine.end(ticket, with: .failure, at: Self.start)
    let halfOpen = Self.start.addingTimeInterval(10)
    let hung = try #require(Self.ticket(machine.admit(at: halfOpen).admission))
    let justBefore = halfOpen.addingTimeInterval(9.5)
    #expect(machine.admit(at: justBefore).admission == .rejected(retryAfter: nil))
    let deadline = halfOpen.addingTimeInterval(10)
    let (next, transition) = machine.admit(at: deadline)
    let probe = try #require(Self.ticket(next))
    #expect(probe.isProbe && transition == nil)
    #expect(machine.state == .halfOpen)
    // NB: The hung probe's end belongs to the round that was given up.
    #expect(machine.end(hung, with: .failure, at: deadline) == nil)
    #expect(machine.state == .halfOpen)
    #expect(machine.end(probe, with: .success, at: deadline) == .init(from: .halfOpen, to: .closed))
  }

  /// The rules as plainly as they can be said, for consecutive failures.
  private struct Model {
    enum Phase: Equatable {
      case closed(failures: Int)
      case open(since: Int)
      case halfOpen(admitted: Int, succeeded: Int, since: Int)
    }

    var phase = Phase.closed(failures: 0)
    var epoch = 0
    let threshold = 3
    let coolDown = 5
    let probes = 2

    mutating func admit(at time: Int) -> (admitted: Bool, epoch: Int) {
      if case .open(let since) = self.phase {
        guard time - since >= self.coolDown else { return (false, self.epoch) }
        self.phase = .halfOpen(admitted: 0, succeeded: 0, since: time)
        self.epoch += 1
      }
      switch self.phase {
      case .closed: return (true, self.epoch)
      case .halfOpen(let admitted, let succeeded, let since):
        if admitted < self.probes {
          self.phase = .halfOpen(admitted: admitted + 1, succeeded: succeeded, since: since)
          return (true, self.epoch)
        }
        guard time - since >= self.coolDown else { return (false, self.epoch) }
        self.phase = .halfOpen(admitted: 1, succeeded: 0, since: time)
        self.epoch += 1
        return (true, self.epoch)
      case .open: fatalError()
      }
    }

    mutating func end(epoch: Int, outcome: CircuitBreakerStateMachine.Outcome, at time: Int) {
      guard epoch == self.epoch else { return }
      switch (self.phase, outcome) {
      case (.closed(let failures), .failure):
        if failures + 1 >= self.threshold {
          self.phase = .open(since: time)
          self.epoch += 1
        } else {
          self.phase = .closed(failures: failures + 1)
        }
      case (.closed, .success): self.phase = .closed(failures: 0)
      case (.halfOpen, .failure):
        self.phase = .open(since: time)
        self.epoch += 1
      case (.halfOpen(let admitted, let succeeded, let since), .success):
        if succeeded + 1 >= self.probes {
          self.phase = .closed(failures: 0)
          self.epoch += 1
        } else {
          self.phase = .halfOpen(admitted: admitted, succeeded: succeeded + 1, since: since)
        }
      case (.halfOpen(let admitted, let succeeded, let since), .ignored):
        self.phase = .halfOpen(admitted: max(0, admitted - 1), succeeded: succeeded, since: since)
      case (.closed, .ignored), (.open, _): break
      }
    }

    func state(at time: Int) -> CircuitBreaker.State {
      switch self.phase {
      case .closed: .closed
      case .open(let since): time - since >= self.coolDown ? .halfOpen : .open
      case .halfOpen: .halfOpen
      }
    }
  }

  /// Each generated number is an event: 0–24 moves the time on by 0–3 seconds, 25–49 asks to
  /// start a call, 50–99 ends a call in flight (which one, and how, from the number).
  @Test func `Generated Sequences Of Calls Agree With The Model After Every Step`() async {
    await propertyCheck(count: 500, input: Gen.int(in: 0...99).array(of: 0...100)) { events in
      var machine = CircuitBreakerStateMachine(
        configuration: .init(threshold: .consecutiveFailures(3), coolDown: .seconds(5), probes: 2)
      )
      var model = Model()
      var time = 0
      var inFlight = [(ticket: CircuitBreakerStateMachine.Ticket, modelEpoch: Int)]()
      for event in events {
        let now = Self.start.addingTimeInterval(TimeInterval(time))
        switch event {
        case 0..<25:
          time += event % 4
        case 25..<50:
          let (admission, _) = machine.admit(at: now)
          let expected = model.admit(at: time)
          #expect((Self.ticket(admission) != nil) == expected.admitted)
          if let ticket = Self.ticket(admission) {
            inFlight.append((ticket, expected.epoch))
          }
        default:
          guard !inFlight.isEmpty else { continue }
          let call = inFlight.remove(at: event % inFlight.count)
          let outcomes: [CircuitBreakerStateMachine.Outcome] = [
            .success, .failure, .failure, .ignored,
          ]
          let outcome = outcomes[(event / 7) % 4]
          _ = machine.end(call.ticket, with: outcome, at: now)
          model.end(epoch: call.modelEpoch, outcome: outcome, at: time)
        }
        let after = Self.start.addingTimeInterval(TimeInterval(time))
        #expect(machine.state(at: after) == model.state(at: time))
        #expect(machine.epoch == model.epoch)
      }
    }
  }
}
