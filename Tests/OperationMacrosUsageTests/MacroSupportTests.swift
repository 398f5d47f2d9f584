import Operation
import Testing

private struct First {}
private class Base {}
private final class Derived: Base {}

@Suite struct MacroSupportTests {
  @Test func hashableMetatypeComparesTypes() {
    let first = _OperationHashableMetatype(type: First.self)
    #expect(first == _OperationHashableMetatype(type: First.self))
    #expect(Set([first, _OperationHashableMetatype(type: First.self)]).count == 1)
    #expect(first.type == First.self)
    // NB: A subclass's metatype is another type, as a class method's `Self` can be.
    let base = _OperationHashableMetatype<Base>(type: Base.self)
    #expect(base != _OperationHashableMetatype<Base>(type: Derived.self))
  }

  @Test func requirementsReturnTheirArgument() {
    #expect(_operationRequireHashable(3) == 3)
    #expect(_operationRequireSendable("a") == "a")
  }

  @Test func pathSynthesizersAreMarkers() {
    // NB: The macros read the expressions; the values only have to exist and type-check.
    _ = _OperationPathMacroSynthesizer.inferredFromHashable
    _ = _OperationPathMacroSynthesizer.inferredFromIdentifiable
    _ = _OperationPathMacroSynthesizer.custom { (id: Int, name: String) in [id, name] }
  }
}
