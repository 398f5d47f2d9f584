/// An error that fixtures throw, compared by its message.
struct TestError: Error, Hashable, CustomStringConvertible {
  var message = "Something went wrong."

  var description: String {
    "TestError(\(self.message))"
  }
}
