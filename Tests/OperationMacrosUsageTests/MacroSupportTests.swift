import Operation
import Testing

private struct First {}
private class Base {}
private final class Derived: Base {}

@Suite struct MacroSupportTests {
  @Test func `A Hashable Metatype Compares Its Types`() {
    let first = _OperationHashableMetatype(type: First.self)
    #expect(first == _OperationHashableMetatype(type: First.self))
    #expect(Set([first, _OperationHashableMetatype(type: First.self)]).count == 1)
    #expect(first.type == First.self)
    // NB: A subclass's metatype is another type, as a class method's `Self` can be.
    let base = _OperationHashableMetatype<Base>(type: Base.self)
    #expect(base != _OperationHashableMetatype<Base>(type: Derived.self))
  }

  @Test func `The Requirement Checks Return Their Argument`() {
    #expect(_operationRequireHashable(3) == 3)
    #expect(_operationRequireSendable("a") == "a")
  }

  @Test func `The Path Synthesizers Carry Nothing And Never Run The Custom Closure`() {
    // NB: The macros read the expressions you write and never evaluate them, so a marker holds no
    // value and `.custom` must not build a path from arguments that do not exist.
    #expect(MemoryLayout<_OperationPathMacroSynthesizer>.size == 0)
    _ = _OperationPathMacroSynthesizer.inferredFromHashable
    _ = _OperationPathMacroSynthesizer.inferredFromIdentifiable
    var calls = 0
    _ = _OperationPathMacroSynthesizer.custom { (id: Int, name: String) in
      calls += 1
      return [id, name]
    }
    #expect(calls == 0)
  }
}
