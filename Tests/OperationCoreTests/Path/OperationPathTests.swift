import OperationCore
import Testing

@Suite struct `OperationPath tests` {
  @Test(arguments: [OperationPath(), [1], ["a", 1, true], [[1, 2], "b"]] as [OperationPath])
  func `Empty Path Is A Prefix Of Every Path`(path: OperationPath) {
    #expect(OperationPath().isPrefix(of: path))
  }

  @Test(arguments: [OperationPath(), [1], ["a", 1, true]] as [OperationPath])
  func `Every Path Is A Prefix Of Itself`(path: OperationPath) {
    #expect(path.isPrefix(of: path))
  }

  @Test(
    arguments: [
      ([1], [1, 2]),
      (["a"], ["a", 1, true]),
      (["a", 1], ["a", 1, true]),
    ] as [(OperationPath, OperationPath)]
  )
  func `Leading Elements Are A Prefix`(prefix: OperationPath, path: OperationPath) {
    #expect(prefix.isPrefix(of: path))
  }

  @Test(
    arguments: [
      ([1, 2], [1]),
      (["a", 1, true], ["a", 1]),
      ([1], []),
    ] as [(OperationPath, OperationPath)]
  )
  func `Longer Path Is Not A Prefix`(prefix: OperationPath, path: OperationPath) {
    #expect(!prefix.isPrefix(of: path))
  }

  @Test(
    arguments: [
      ([2], [1, 2]),
      ([1, 3], [1, 2, 3]),
      (["1"], [1]),
      ([1], [true]),
    ] as [(OperationPath, OperationPath)]
  )
  func `Path With A Different Element Is Not A Prefix`(prefix: OperationPath, path: OperationPath) {
    #expect(!prefix.isPrefix(of: path))
  }

  @Test func `Single Element Path Equals And Hashes Like One Element Array Path`() {
    let paths = [
      OperationPath(1),
      OperationPath(element: OperationPath.Element(1)),
      OperationPath([1]),
      OperationPath(elements: [OperationPath.Element(1)]),
      [1],
    ]
    for path in paths {
      #expect(path == [1])
      #expect(path.hashValue == ([1] as OperationPath).hashValue)
    }
  }

  @Test func `Empty Path Equals Empty Array Literal`() {
    #expect(OperationPath() == [])
    #expect(OperationPath(elements: []) == [])
    #expect(OperationPath().hashValue == ([] as OperationPath).hashValue)
    #expect(OperationPath().isEmpty)
  }

  @Test func `Elements Of Different Types Are Not Equal`() {
    #expect(OperationPath(Int(1)) != OperationPath("1"))
    #expect(OperationPath.Element(Int(1)) != OperationPath.Element("1"))
    #expect(OperationPath(true) != OperationPath("true"))
  }

  @Test func `Paths With The Same Elements In Another Order Are Not Equal`() {
    #expect(([1, 2] as OperationPath) != [2, 1])
  }

  @Test func `Description Quotes Strings And Describes Other Elements`() {
    let path: OperationPath = [1, "hello", true]
    #expect(path.description == #"OperationPath([1, "hello", true])"#)
    #expect(OperationPath().description == "OperationPath([])")
    #expect(
      OperationPath(elements: [OperationPath.Element("a"[...])]).description
        == #"OperationPath(["a"])"#
    )
  }

  @Test func `Appending A Path Adds Its Elements At The End`() {
    let path: OperationPath = ["user"]
    #expect(path.appending(["friends", 2] as OperationPath) == ["user", "friends", 2])
    #expect(path == ["user"])

    var mutable = path
    mutable.append(["friends"] as OperationPath)
    mutable.append(OperationPath())
    #expect(mutable == ["user", "friends"])
  }

  @Test func `Array Literals Append As Paths`() {
    let path: OperationPath = ["user"]
    #expect(path.appending(["friends", 2]) == ["user", "friends", 2])
    #expect(path.appending(["friends"]) == ["user", "friends"])
    var mutable = path
    mutable.append(["friends"])
    #expect(mutable == ["user", "friends"])
  }

  @Test func `Appending A Value Adds It At The End`() {
    let path: OperationPath = ["user"]
    #expect(path.appending(1) == ["user", 1])

    var mutable = path
    mutable.append(1)
    #expect(mutable == ["user", 1])
  }

  @Test func `Appending An Element Adds It Unwrapped`() {
    var path: OperationPath = [1]
    path.append(OperationPath.Element(2))
    #expect(path == [1, 2])
  }

  @Test func `Subscript Set Replaces An Element`() {
    var single: OperationPath = [1]
    single[0] = OperationPath.Element("a")
    #expect(single == ["a"])

    var multiple: OperationPath = [1, 2, 3]
    multiple[1] = OperationPath.Element("b")
    #expect(multiple == [1, "b", 3])
    #expect(multiple[1] == OperationPath.Element("b"))
  }

  @Test func `Replace Subrange Handles Every Length`() {
    var path: OperationPath = [1, 2, 3]
    path.replaceSubrange(1..<2, with: [OperationPath.Element("a"), OperationPath.Element("b")])
    #expect(path == [1, "a", "b", 3])

    path.replaceSubrange(0..<3, with: [OperationPath.Element(true)])
    #expect(path == [true, 3])

    path.replaceSubrange(0..<2, with: [])
    #expect(path == OperationPath())
    #expect(path.isEmpty)

    path.replaceSubrange(0..<0, with: [OperationPath.Element("x")])
    #expect(path == ["x"])
  }

  @Test func `Range Replaceable Operations Edit The Path`() {
    var path: OperationPath = [1]
    path.append(contentsOf: [OperationPath.Element(2), OperationPath.Element(3)])
    #expect(path == [1, 2, 3])

    path.insert(OperationPath.Element(4), at: 3)
    #expect(path == [1, 2, 3, 4])

    path.insert(OperationPath.Element(0), at: 0)
    #expect(path == [0, 1, 2, 3, 4])

    #expect(path.removeFirst() == OperationPath.Element(0))
    #expect(path.removeLast() == OperationPath.Element(4))
    #expect(path == [1, 2, 3])
    #expect(path.count == 3)
    #expect(path.endIndex == 3)
  }

  @Test func `Element Base Is The Wrapped Value`() {
    let path: OperationPath = ["a", 1]
    #expect(path[0].base as? String == "a")
    #expect(path[1].base as? Int == 1)
  }

  @Test func `Element Base Keeps The Type Of Other Values`() {
    let path: OperationPath = [Int8(3), UInt(4), 2.5, Substring("s")]
    #expect(path[0].base as? Int8 == 3)
    #expect(path[1].base as? UInt == 4)
    #expect(path[2].base as? Double == 2.5)
    #expect(path[3].base as? Substring == "s")
  }

  @Test(arguments: [0, 1, -1, 127, -128])
  func `Integer Elements Of Different Types Are Equal And Hash Alike`(number: Int) {
    let int = OperationPath.Element(number)
    let int8 = OperationPath.Element(Int8(number))
    let int64 = OperationPath.Element(Int64(number))
    #expect(int == int8)
    #expect(int8 == int)
    #expect(int == int64)
    #expect(int.hashValue == int8.hashValue)
    #expect(int.hashValue == AnyHashable(number).hashValue)
    #expect(OperationPath(number) == OperationPath(Int8(number)))
    #expect(OperationPath(number).hashValue == OperationPath(Int8(number)).hashValue)
  }

  @Test func `Elements Compare And Hash Like AnyHashable`() {
    let values: [any Hashable & Sendable] = [1, UInt8(1), "1", Substring("1"), true, 1.0, [1]]
    for lhs in values {
      for rhs in values {
        let expected = AnyHashable(lhs) == AnyHashable(rhs)
        #expect((OperationPath.Element(lhs) == OperationPath.Element(rhs)) == expected)
        if expected {
          #expect(OperationPath.Element(lhs).hashValue == OperationPath.Element(rhs).hashValue)
        }
      }
    }
  }

  @Test func `Optional Elements Compare And Hash Like AnyHashable`() {
    // NB: `AnyHashable` looks through an optional number (`Optional(1)` equals `1`), and through
    // arrays of them, but not through any other optional (`Optional("a")` is not `"a"`); a path
    // agrees, in its elements' equality and in the hashes it keeps.
    let values: [any Hashable & Sendable] = [
      1, Int?.some(1), Int8?.some(1), Int??.some(1), Int?.none, Int8?.none, Int??.some(nil),
      "a", String?.some("a"), String?.none, [1], [Int?.some(1)], ["a"], [String?.some("a")],
    ]
    for lhs in values {
      for rhs in values {
        let expected = AnyHashable(lhs) == AnyHashable(rhs)
        #expect(
          (OperationPath.Element(lhs) == OperationPath.Element(rhs)) == expected,
          "\(lhs) and \(rhs)"
        )
        #expect((OperationPath(["p", lhs]) == OperationPath(["p", rhs])) == expected)
        if expected {
          #expect(OperationPath.Element(lhs).hashValue == OperationPath.Element(rhs).hashValue)
          #expect(OperationPath(["p", lhs]).hashValue == OperationPath(["p", rhs]).hashValue)
        }
      }
    }
    #expect(OperationPath([Int?.some(1)]) == [1])
    #expect(OperationPath([String?.some("a")]) != ["a"])
  }

  @Test func `Editing A Path Keeps Its Hash In Step With Its Elements`() {
    var path: OperationPath = ["user", 1, "posts"]
    path[1] = OperationPath.Element(2)
    #expect(path == ["user", 2, "posts"])
    #expect(path.hashValue == (["user", 2, "posts"] as OperationPath).hashValue)
    path.removeLast()
    #expect(path == ["user", 2])
    #expect(path.hashValue == (["user", 2] as OperationPath).hashValue)
    path.removeLast()
    path[0] = OperationPath.Element("post")
    #expect(path == ["post"])
    #expect(path.hashValue == OperationPath("post").hashValue)
  }

  @Test func `Paths That Differ Only In Their Last Element Are Not Equal`() {
    #expect(([1, 2, 3] as OperationPath) != [1, 2, 4])
    #expect(Set<OperationPath>([[1, 2, 3], [1, 2, 4], [1, 2, 3]]).count == 2)
  }
}
