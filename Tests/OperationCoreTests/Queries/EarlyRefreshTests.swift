import Foundation
import Testing

@_spi(Warnings) @testable import OperationCore

@Suite struct `EarlyRefresh tests` {
  @Test func `Defaults Are A Beta Of One And A Window Of Thirty Seconds`() {
    let settings = EarlyRefresh()
    #expect(settings.beta == 1)
    #expect(settings.servingWindow == .seconds(30))
  }

  @Test(arguments: [
    (2.0, 1.0, 1.0, 0.0),
    (2.0, 1.5, 0.25, 3 * log(4.0)),
    (0.0, 1.0, 0.1, 0.0),
    (2.0, 0.0, 0.1, 0.0),
  ])
  func `The Head Start Is Delta Times Beta Times Minus Log R`(
    delta: Double,
    beta: Double,
    random: Double,
    seconds: Double
  ) {
    let settings = EarlyRefresh(beta: beta)
    let headStart = settings.headStart(lastRunDuration: .seconds(delta), random: random)
    #expect(abs(headStart / .seconds(1) - seconds) < 1e-9)
  }

  @Test(arguments: [(1.5, 1.0), (0.0, .leastNormalMagnitude), (-1.0, .leastNormalMagnitude)])
  func `A Random Source Keeps Its Numbers In Zero Exclusive To One`(drawn: Double, next: Double) {
    #expect(EarlyRefresh.RandomSource.constant(drawn).next() == next)
  }

  @Test func `The System Random Source Draws In Zero Exclusive To One`() {
    let numbers = (0..<1_000).map { _ in EarlyRefresh.RandomSource.system.next() }
    #expect(numbers.allSatisfy { $0 > 0 && $0 <= 1 })
    #expect(Set(numbers).count > 1)
  }

  @Test func `A Negative Beta Is Reported And Counts As Zero`() {
    withKnownIssue {
      #expect(EarlyRefresh(beta: -1).beta == 0)
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.earlyRefreshBetaNegative(-1).message)
      )
    }
  }

  @Test func `A Negative Window Is Reported And Counts As Zero`() {
    withKnownIssue {
      #expect(EarlyRefresh(servingWindow: .seconds(-1)).servingWindow == .zero)
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.earlyRefreshServingWindowNegative(.seconds(-1)).message)
      )
    }
  }

  @Test func `Early Refresh Is Off By Default`() {
    #expect(OperationContext().earlyRefresh == nil)
  }

  @Test func `The Modifier Writes The Settings And Nil Switches Them Off`() {
    var context = OperationContext()
    TestQuery().refreshEarly(beta: 2, servingWindow: .seconds(5)).setup(context: &context)
    #expect(context.earlyRefresh?.beta == 2)
    #expect(context.earlyRefresh?.servingWindow == .seconds(5))

    TestQuery().refreshEarly(nil).setup(context: &context)
    #expect(context.earlyRefresh == nil)
  }
}
