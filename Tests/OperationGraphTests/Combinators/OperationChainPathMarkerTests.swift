import OperationCore
import OperationGraph
import Testing

@Suite struct `OperationChainPathMarker tests` {
  @Test func `A Marker Without A Closure Is Its Kind`() {
    let log = ChainLog()
    let chain = Step.succeeding("a", 1, log: log).then(Step.succeeding("b", 2, log: log))
    let marker = marker(at: 2, of: chain.path)
    #expect(marker?.description == "then")
    #expect(marker?.line == nil && marker?.column == nil)
  }

  @Test func `A Closure Marker Names Its Call Site`() {
    let log = ChainLog()
    let line: UInt = #line + 1
    let mapped = Step.succeeding("a", 1, log: log).map { $0 + 1 }
    let marker = marker(at: 2, of: mapped.path)
    #expect(marker?.line == line)
    #expect(marker?.description.hasPrefix("map@\(#fileID):\(line):") == true)
  }

  @Test func `Markers Made At The Same Place Are Equal`() {
    let log = ChainLog()
    let markers = (0..<2).map { _ in
      marker(at: 2, of: Step.succeeding("a", 1, log: log).mapError { $0 }.path)
    }
    #expect(markers[0] != nil)
    #expect(markers[0] == markers[1])
    #expect(markers[0]?.hashValue == markers[1]?.hashValue)
  }
}
