import Testing

/// A text argument of a parameterised test that Swift Testing describes on one line, with its
/// newlines and control characters escaped (`"0::/\n"`), so that a case whose text holds several
/// lines still prints as one line.
struct OneLineText: CustomTestStringConvertible, ExpressibleByStringLiteral, Sendable {
  /// The text.
  let value: String

  init(stringLiteral value: String) {
    self.value = value
  }

  var testDescription: String {
    self.value.debugDescription
  }
}
