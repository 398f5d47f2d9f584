/// The name of a type without module prefixes, for example `QueryState<Int, Error>`.
///
/// Used for descriptions, default task names and warnings; never on a hot path.
package func typeName(_ type: any Any.Type) -> String {
  // NB: `_typeName(_:qualified: true)` spells every name as `Module.Outer.Inner`, including the
  // generic arguments, so the first component of each qualified name is its module.
  var result = ""
  var component = ""
  var isFirstComponent = true
  for character in _typeName(type, qualified: true) {
    switch character {
    case ".":
      if !isFirstComponent {
        result += component + "."
      }
      component = ""
      isFirstComponent = false
    case _ where character.isLetter || character.isNumber || character == "_":
      component.append(character)
    default:
      result += component
      result.append(character)
      component = ""
      isFirstComponent = true
    }
  }
  return result + component
}
