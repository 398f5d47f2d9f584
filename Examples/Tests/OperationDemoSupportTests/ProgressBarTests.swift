import OperationDemoSupport
import Testing

@Suite struct `ProgressBar tests` {
  @Test func `renders the filled share and the counts`() {
    #expect(
      ProgressBar.render(completed: 30, total: 100, width: 10, unit: "posts")
        == "[###-------]  30/100 posts"
    )
    #expect(
      ProgressBar.render(completed: 100, total: 100, width: 4, unit: "posts")
        == "[####] 100/100 posts"
    )
  }

  @Test func `clamps bad values instead of crashing`() {
    #expect(ProgressBar.render(completed: 5, total: 0, width: 4, unit: "x") == "[----] 0/0 x")
    #expect(ProgressBar.render(completed: -3, total: 10, width: 0, unit: "x") == "[-]  0/10 x")
    #expect(ProgressBar.render(completed: 50, total: 10, width: 2, unit: "x") == "[##] 10/10 x")
  }
}
