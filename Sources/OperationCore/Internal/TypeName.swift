/// The name of a type without module prefixes, for example `QueryState<Int, Error>`.
///
/// Used for descriptions, default task names and warnings; never on a hot path.
@usableFromInline
package func typeName(_ type: any Any.Type) -> String {
  // NB: `_typeName(_:qualified: true)` spells every name as `Module.Outer.Inner`, including the
  // generic arguments, so the first component of each qualified name is its module.
  var result = ""
  var component = ""
  var isFirstComponent = true
  var name = _typeName(type, qualified: true)
  // NB: Private and extension-scoped types carry "(extension in Module):" and
  // "(unknown context at $…)" markers; drop them.
  while let start = name.firstRange(of: "(extension in "),
    let end = name[start.upperBound...].firstRange(of: "):")
  {
    name.removeSubrange(start.lowerBound..<end.upperBound)
  }
  while let start = name.firstRange(of: "(unknown context at "),
    let end = name[start.upperBound...].firstRange(of: ")")
  {
    name.removeSubrange(start.lowerBound..<end.upperBound)
  }
  while let range = name.firstRange(of: "..") {
    name.replaceSubrange(range, with: ".")
  }
  for character in name {
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
