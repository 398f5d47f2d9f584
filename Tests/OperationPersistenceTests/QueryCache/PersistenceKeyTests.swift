import Foundation
import OperationCore
import OperationPersistence
import OperationPersistenceProbeSupport
import PropertyBased
import Testing

@Suite struct `PersistenceKey tests` {
  // MARK: - The cases that the description of a path mixed up

  @Test func `Operations Of Different Types With Equal Paths Have Different Keys`() throws {
    let post = try PersistentQueryCache.key(for: [PostAPI.Query(id: 1)], operationType: Post.self)
    let user = try PersistentQueryCache.key(for: [UserAPI.Query(id: 1)], operationType: User.self)
    // NB: Both paths print as `[Query(id: 1)]`.
    #expect(OperationPath([PostAPI.Query(id: 1)]).description.hasSuffix("Query(id: 1)])"))
    #expect(post != user)
    let path: OperationPath = [1]
    #expect(
      try PersistentQueryCache.key(for: path, operationType: Post.self)
        != PersistentQueryCache.key(for: path, operationType: User.self)
    )
  }

  @Test func `A String With Quotes And Separators Is Not Taken For Two Strings`() throws {
    let one = OperationPath(["a\", \"b"])
    let two: OperationPath = ["a", "b"]
    #expect(one.description == two.description)
    #expect(
      try PersistentQueryCache.key(for: one, operationType: Post.self)
        != PersistentQueryCache.key(for: two, operationType: Post.self)
    )
  }

  @Test func `Dates Within One Second Have Different Keys`() throws {
    let first = Date(timeIntervalSinceReferenceDate: 1_000.25)
    let second = Date(timeIntervalSinceReferenceDate: 1_000.5)
    #expect(
      try PersistentQueryCache.key(for: [first], operationType: Post.self)
        != PersistentQueryCache.key(for: [second], operationType: Post.self)
    )
  }

  @Test func `A Set Has One Key Whatever Its Order`() throws {
    let values = (0..<200).map { "element \($0)" }
    let forward = Set(values)
    var backward = Set<String>(minimumCapacity: 4_096)
    for value in values.reversed() { backward.insert(value) }
    // NB: Equal sets built differently iterate in different orders, as a set does in another
    // process, whose hash seed differs.
    #expect(Array(forward) != Array(backward))
    #expect(
      try PersistentQueryCache.key(for: [forward], operationType: Post.self)
        == PersistentQueryCache.key(for: [backward], operationType: Post.self)
    )
  }

  @Test func `Numbers Equal In A Path Have One Key And Others Do Not`() throws {
    func key(_ value: any Hashable & Sendable) throws -> String {
      try PersistentQueryCache.key(for: [value], operationType: Post.self)
    }
    #expect(OperationPath([1 as Int]) == OperationPath([1.0 as Double]))
    #expect(try key(1 as Int) == key(1.0 as Double))
    #expect(try key(1 as Int) == key(UInt8(1)))
    #expect(try key(0.0) == key(-0.0))
    #expect(try key(Float(0.1)) != key(0.1))
    #expect(try key(UInt64.max) != key(Double(UInt64.max)))
    #expect(try key(1) != key("1"))
    #expect(try key(true) != key(1))
  }

  @Test func `Elements Without A Stable Encoding Are Refused`() throws {
    #expect(throws: PersistentKeyError.self) {
      try PersistentQueryCache.key(for: [Double.nan], operationType: Post.self)
    }
    #expect(throws: PersistentKeyError.self) {
      try PersistentQueryCache.key(for: [Identity()], operationType: Post.self)
    }
    #expect(throws: PersistentKeyError.self) {
      try PersistentQueryCache.key(for: [Mirrored(id: 1)], operationType: Post.self)
    }
    #expect(
      try PersistentQueryCache.key(for: [Keyed(id: 1)], operationType: Post.self)
        != PersistentQueryCache.key(for: [Keyed(id: 2)], operationType: Post.self)
    )
  }

  @Test func `Keys Are The Same In Another Process`() throws {
    let probe = try ProbeProcess(["keys"])
    let keys = try ProbePaths.all.map {
      try PersistentQueryCache.key(for: $0, operationType: [String: Int].self)
    }
    #expect(probe.readAllLines() == keys)
    #expect(probe.finish() == 0)
  }

  @Test func `Private And Local Types Are Refused In Every Process`() throws {
    let probe = try ProbeProcess(["unstable-keys"])
    let lines = ProbePaths.unstable.map { path, operationType -> String in
      do throws(PersistentKeyError) {
        return try PersistentQueryCache.key(for: path, operationType: operationType)
      } catch {
        return "refused: \(error.typeName)"
      }
    }
    // NB: A private type's runtime name holds the address of its scope, which moves with every
    // launch, so a key made from it would never be found by the next process.
    #expect(probe.readAllLines() == lines)
    #expect(probe.finish() == 0)
    #expect(lines.allSatisfy { $0.hasPrefix("refused: ") })
    #expect(lines.allSatisfy { !$0.contains("$") })
  }

  @Test func `An Error For A Private Type Names It Without Its Address`() {
    #expect {
      try PersistentQueryCache.key(for: [PrivateQuery(id: 1)], operationType: Post.self)
    } throws: { error in
      guard let error = error as? PersistentKeyError else { return false }
      return error.typeName.hasSuffix(".(private or local scope).PrivateQuery")
        && error.description.contains("is private, fileprivate or declared in a function")
    }
  }

  // MARK: - Optionals

  @Test func `An Optional Number Shares The Number's Key, As In A Path`() throws {
    #expect(OperationPath([Int?.some(1)]) == OperationPath([1]))
    #expect(
      try PersistentQueryCache.key(for: [Int?.some(1)], operationType: Post.self)
        == PersistentQueryCache.key(for: [1], operationType: Post.self)
    )
    #expect(OperationPath([[Int?.some(1)]]) == OperationPath([[1]]))
    #expect(
      try PersistentQueryCache.key(for: [[Int?.some(1)]], operationType: Post.self)
        == PersistentQueryCache.key(for: [[1]], operationType: Post.self)
    )
  }

  @Test func `An Optional String Has Another Key Than The String, As In A Path`() throws {
    #expect(OperationPath([String?.some("a")]) != OperationPath(["a"]))
    #expect(
      try PersistentQueryCache.key(for: [String?.some("a")], operationType: Post.self)
        != PersistentQueryCache.key(for: ["a"], operationType: Post.self)
    )
    #expect(OperationPath([[String?.some("a")]]) != OperationPath([["a"]]))
    #expect(
      try PersistentQueryCache.key(for: [[String?.some("a")]], operationType: Post.self)
        != PersistentQueryCache.key(for: [["a"]], operationType: Post.self)
    )
  }

  // MARK: - Generated paths

  @Test func `Generated Paths Have Equal Keys If And Only If They And Their Types Are Equal`()
    async
  {
    // NB: Each number seeds one element; the domains are small, so that equal paths (and equal
    // numbers of different types, and equal strings written apart) come up often.
    await propertyCheck(
      count: 2_000,
      input: Gen.int(in: 0...200).array(of: 0...4),
      Gen.int(in: 0...200).array(of: 0...4),
      Gen.int(in: 0...3)
    ) { first, second, types in
      let firstPath = OperationPath(first.map(PathElementGenerator.element(seed:)))
      let secondPath = OperationPath(second.map(PathElementGenerator.element(seed:)))
      let firstType: any Any.Type = types & 1 == 0 ? Post.self : User.self
      let secondType: any Any.Type = types & 2 == 0 ? Post.self : User.self
      let firstKey = try? PersistentQueryCache.key(for: firstPath, operationType: firstType)
      let secondKey = try? PersistentQueryCache.key(for: secondPath, operationType: secondType)
      #expect(firstKey != nil)
      #expect(secondKey != nil)
      let areEqual = firstPath == secondPath && firstType == secondType
      #expect(
        (firstKey == secondKey) == areEqual,
        "\(firstPath) of \(firstType): \(firstKey ?? "-")\n\(secondPath) of \(secondType): \(secondKey ?? "-")"
      )
    }
  }
}

// MARK: - Generated elements

/// Makes path elements from seeds, of every kind the cache encodes.
private enum PathElementGenerator {
  static func element(seed: Int) -> any Hashable & Sendable {
    var random = SplitMix(seed: UInt64(seed))
    return self.element(&random, depth: 0)
  }

  private static let strings = [
    "", "a", "b", "a\", \"b", "\"", "\\", "[", "]", ",", "|", ":", "s\"a\"", "caf\u{E9}",
    "cafe\u{301}", "n1",
  ]

  private static func element(_ random: inout SplitMix, depth: Int) -> any Hashable & Sendable {
    let small = Int(random.next(below: 4))
    switch random.next(below: depth < 2 ? 17 : 13) {
    case 0: return self.strings[Int(random.next(below: UInt64(self.strings.count)))]
    case 1: return small
    case 2: return Int64(small)
    case 3: return UInt8(small)
    case 4: return [0.0, -0.0, 0.5, 1.0, 2.0, 0.1][Int(random.next(below: 6))]
    case 5: return Float([0.5, 1.0, 0.1][Int(random.next(below: 3))])
    case 6:
      return Date(timeIntervalSinceReferenceDate: [1_000, 1_000.25, 1_000.5][small % 3])
    case 7: return small % 2 == 0
    case 8: return small % 2 == 0 ? Int?.some(small) : Int?.none
    case 9: return small % 2 == 0 ? String?.none : String?.some("a")
    case 10: return random.next(below: 2) == 0 ? PostAPI.Query(id: small) : UserAPI.Query(id: small)
    case 11: return small % 2 == 0 ? Tab.feed : Tab.profile(id: small)
    case 12:
      return UUID(
        uuidString: [
          "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002",
        ][small % 2]
      )!
    case 13: return Set((0..<small).map { "s\($0)" })
    case 14: return Set((0..<small).map { $0 * 2 })
    case 15:
      return Nested(
        elements: (0..<small).map { _ in AnyHashable(self.element(&random, depth: depth + 1)) }
      )
    default:
      return (0..<small).map { _ in Int(random.next(below: 3)) }
    }
  }
}

/// An array of any elements, as a path element.
// NB: `@unchecked Sendable` is safe because every element the generator makes is a `Sendable`
// value; `[AnyHashable]` only lost that fact.
struct Nested: Hashable, @unchecked Sendable {
  let elements: [AnyHashable]
}

/// A small deterministic random number generator.
private struct SplitMix {
  var state: UInt64

  init(seed: UInt64) {
    self.state = seed
  }

  mutating func next(below bound: UInt64) -> UInt64 {
    self.state &+= 0x9E37_79B9_7F4A_7C15
    var z = self.state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return (z ^ (z >> 31)) % bound
  }
}

// MARK: - Fixtures

// NB: The types that keys name are internal, not private: the cache refuses to key a private
// type, whose runtime name changes from one process to the next.
enum Post {}
enum User {}

enum PostAPI {
  struct Query: Hashable, Sendable {
    let id: Int
  }
}

enum UserAPI {
  struct Query: Hashable, Sendable {
    let id: Int
  }
}

enum Tab: Hashable, Sendable {
  case feed
  case profile(id: Int)
}

private final class Identity: Hashable, Sendable {
  static func == (lhs: Identity, rhs: Identity) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

private struct Mirrored: Hashable, Sendable, CustomReflectable {
  let id: Int
  var customMirror: Mirror { Mirror(self, children: []) }
}

/// A path element of a private type, which the cache refuses to key.
private struct PrivateQuery: Hashable, Sendable {
  let id: Int
}

final class Keyed: Hashable, Sendable, PersistentKeyRepresentable {
  let id: Int
  init(id: Int) { self.id = id }
  var persistentKey: String { "\(self.id)" }
  static func == (lhs: Keyed, rhs: Keyed) -> Bool { lhs.id == rhs.id }
  func hash(into hasher: inout Hasher) { hasher.combine(self.id) }
}
