import OperationCore
import Testing

@Suite struct `BinaryOperatorRunSpecification tests` {
  private static let pairs = [(false, false), (false, true), (true, false), (true, true)]

  @Test(arguments: Self.pairs)
  func `And Holds Only When Both Sides Hold`(left: Bool, right: Bool) {
    let spec = AlwaysRunSpecification(isTrue: left) && AlwaysRunSpecification(isTrue: right)
    #expect(spec.isSatisfied(in: OperationContext()) == (left && right))
  }

  @Test(arguments: Self.pairs)
  func `Or Holds When Either Side Holds`(left: Bool, right: Bool) {
    let spec = AlwaysRunSpecification(isTrue: left) || AlwaysRunSpecification(isTrue: right)
    #expect(spec.isSatisfied(in: OperationContext()) == (left || right))
  }

  @Test(arguments: Self.pairs)
  func `Sides Changed After Creation Are Read Again`(left: Bool, right: Bool) {
    let a = TestRunSpecification(!left)
    let b = TestRunSpecification(!right)
    let and = a && b
    let or = a || b
    a.send(left)
    b.send(right)
    #expect(and.isSatisfied(in: OperationContext()) == (left && right))
    #expect(or.isSatisfied(in: OperationContext()) == (left || right))
  }

  @Test(
    arguments: [false, true].flatMap { a in
      [false, true].flatMap { b in [false, true].map { c in (a, b, c) } }
    }
  )
  func `Nested Expressions Follow Boolean Precedence`(a: Bool, b: Bool, c: Bool) {
    let specA = AlwaysRunSpecification(isTrue: a)
    let specB = AlwaysRunSpecification(isTrue: b)
    let specC = AlwaysRunSpecification(isTrue: c)
    let context = OperationContext()
    #expect((specA && specB || specC).isSatisfied(in: context) == (a && b || c))
    #expect((specA && (specB || specC)).isSatisfied(in: context) == (a && (b || c)))
    #expect((specA || specB && specC).isSatisfied(in: context) == (a || b && c))
    #expect((!specA && (specB || !specC)).isSatisfied(in: context) == (!a && (b || !c)))
  }

  @Test func `Subscribing To Two Specifications Reports Changes From Both`() {
    let a = TestRunSpecification()
    let b = TestRunSpecification()
    let changes = CallCounter()
    let subscription = (a && b).subscribe(in: OperationContext()) { changes.increment() }
    #expect(a.subscriberCount == 1)
    #expect(b.subscriberCount == 1)

    a.send(true)
    b.send(true)
    #expect(changes.value == 2)

    subscription.cancel()
    #expect(a.subscriberCount == 0)
    #expect(b.subscriberCount == 0)
    a.send(false)
    #expect(changes.value == 2)
  }

  @Test func `Subscribing To Three Specifications Reports Changes From Each`() {
    let a = TestRunSpecification()
    let b = TestRunSpecification()
    let c = TestRunSpecification()
    let changes = CallCounter()
    let subscription = (a || b || c).subscribe(in: OperationContext()) { changes.increment() }

    a.send(true)
    b.send(true)
    c.send(true)
    #expect(changes.value == 3)

    subscription.cancel()
    #expect([a, b, c].map(\.subscriberCount) == [0, 0, 0])
  }

  @Test func `Subscribing To A Mixed Nesting Reaches Every Leaf`() {
    let a = TestRunSpecification(true)
    let b = TestRunSpecification()
    let c = TestRunSpecification(true)
    let spec = a && (!b || c)
    let changes = CallCounter()
    let subscription = spec.subscribe(in: OperationContext()) { changes.increment() }
    #expect(spec.isSatisfied(in: OperationContext()))

    b.send(true)
    c.send(false)
    #expect(changes.value == 2)
    #expect(!spec.isSatisfied(in: OperationContext()))

    a.send(false)
    #expect(changes.value == 3)

    subscription.cancel()
    #expect([a, b, c].map(\.subscriberCount) == [0, 0, 0])
  }

  @Test func `Combination Of Sendable Specifications Is Sendable`() {
    // NB: Passes if it compiles; `automaticRunningSpecification` requires `Sendable`.
    var context = OperationContext()
    context.automaticRunningSpecification = .always(true) && !.always(false) || .always(false)
    #expect(context.automaticRunningSpecification.isSatisfied(in: context))
  }
}
