import OperationCore
import Testing

@Suite struct `OperationPathableCollection tests` {
  private struct Item: OperationPathable, Hashable {
    let path: OperationPath
    var value = 0
  }

  private static let items: OperationPathableCollection<Item> = [
    Item(path: ["user"]),
    Item(path: ["user", 1]),
    Item(path: ["user", 1, "friends"]),
    Item(path: ["user", 2]),
    Item(path: ["post", 1]),
  ]

  @Test func `Collection Matching Returns Items Under A Prefix`() {
    let matches = Self.items.collection(matching: ["user", 1])
    #expect(Set(matches.map(\.path)) == [["user", 1], ["user", 1, "friends"]])
    #expect(matches.count == 2)
  }

  @Test func `A Matched Collection Is Indexed By Prefix And Independent Of Its Source`() {
    var source = Self.items
    var matches = source.collection(matching: ["user", 1])
    #expect(matches.collection(matching: ["user", 1, "friends"]).count == 1)
    #expect(matches.collection(matching: ["user"]).count == 2)
    #expect(matches[["user", 1, "friends"]] != nil)

    matches.removeAll(matching: ["user", 1, "friends"])
    matches.update(Item(path: ["user", 1, "likes"]))
    source.update(Item(path: ["user", 1, "posts"]))
    #expect(matches.paths == [["user", 1], ["user", 1, "likes"]])
    #expect(matches.collection(matching: ["user", 1]).count == 2)
    #expect(source.collection(matching: ["user", 1]).count == 3)
    #expect(source[["user", 1, "friends"]] != nil)
    #expect(source[["user", 1, "likes"]] == nil)
  }

  @Test func `Paths Of One Element And The Empty Path Match Like Any Other`() {
    var items = Self.items
    items.update(Item(path: []))
    items.update(Item(path: ["post"]))
    #expect(items.collection(matching: ["post"]).paths == [["post"], ["post", 1]])
    #expect(items.collection(matching: ["user"]).collection(matching: ["user"]).count == 4)
    #expect(items.collection(matching: []).count == 7)
    #expect(items[[]] != nil)

    items.removeAll(matching: ["post"])
    #expect(items[["post"]] == nil)
    #expect(items.collection(matching: ["post"]).isEmpty)
    items.removeValue(forPath: ["user"])
    #expect(
      items.collection(matching: ["user"]).paths == [
        ["user", 1], ["user", 1, "friends"], ["user", 2],
      ]
    )
    #expect(items.paths == [[], ["user", 1], ["user", 1, "friends"], ["user", 2]])
  }

  @Test func `Collection Matching Returns Nothing For An Unknown Prefix`() {
    #expect(Self.items.collection(matching: ["comment"]).isEmpty)
    #expect(Self.items.collection(matching: ["user", 1, "friends", 3]).isEmpty)
  }

  @Test func `Collection Matching The Empty Path Returns Everything`() {
    let matches = Self.items.collection(matching: [])
    #expect(matches == Self.items)
    #expect(matches.count == 5)
  }

  @Test func `Remove All Matching Removes Every Item Under A Prefix`() {
    var items = Self.items
    items.removeAll(matching: ["user", 1])
    #expect(items.paths == [["user"], ["user", 2], ["post", 1]])
    #expect(items.collection(matching: ["user"]).count == 2)
    #expect(items[["user", 1, "friends"]] == nil)
  }

  @Test func `Remove All Matching The Empty Path Removes Everything`() {
    var items = Self.items
    items.removeAll(matching: [])
    #expect(items.isEmpty)
    #expect(items.collection(matching: ["user"]).isEmpty)
  }

  @Test func `Update Inserts A New Item`() {
    var items = Self.items
    items.update(Item(path: ["post", 2]))
    #expect(items.count == 6)
    #expect(items.collection(matching: ["post"]).count == 2)
  }

  @Test func `Update Replaces The Item With The Same Path`() {
    var items = Self.items
    items.update(Item(path: ["user", 2], value: 42))
    #expect(items.count == 5)
    #expect(items[["user", 2]]?.value == 42)
    #expect(items.collection(matching: ["user", 2]).map(\.value) == [42])
  }

  @Test func `Update Returns Void Like Upstream`() {
    // NB: Upstream code such as `client.withStores(matching: path) { stores, _ in
    // stores.update(store) }` infers the closure's result from `update`; a non-`Void` result
    // makes that call's result unused, which the compiler warns about.
    func resultType<T>(of body: () -> T) -> Any.Type {
      _ = body()
      return T.self
    }
    var items = Self.items
    let type = resultType { items.update(Item(path: ["user", 2], value: 1)) }
    #expect(ObjectIdentifier(type) == ObjectIdentifier(Void.self), "update returned \(type)")
    #expect(items[["user", 2]]?.value == 1)
  }

  @Test func `Remove Value For Path Removes Only That Exact Path`() {
    var items = Self.items
    let removed = items.removeValue(forPath: ["user", 1])
    #expect(removed == Item(path: ["user", 1]))
    #expect(items.count == 4)
    #expect(items[["user", 1]] == nil)
    #expect(items[["user", 1, "friends"]] != nil)
    #expect(items.collection(matching: ["user", 1]).map(\.path) == [["user", 1, "friends"]])
    #expect(items.removeValue(forPath: ["user", 1]) == nil)
  }

  @Test func `Subscript Set To Nil Removes The Item`() {
    var items = Self.items
    items[["post", 1]] = nil
    #expect(items.count == 4)
    #expect(items.collection(matching: ["post"]).isEmpty)
  }

  @Test func `Remove All Where Removes Matching Items`() {
    var items = Self.items
    items.removeAll { $0.path.count > 1 }
    #expect(items.paths == [["user"]])
    #expect(items.collection(matching: ["user"]).count == 1)
  }

  @Test func `Count Reflects Inserts And Removals`() {
    var items = OperationPathableCollection<Item>()
    #expect(items.count == 0)
    items.update(Item(path: [1]))
    items.update(Item(path: [2]))
    items.update(Item(path: [2]))
    #expect(items.count == 2)
    items.removeAll()
    #expect(items.count == 0)
    #expect(items.isEmpty)
  }

  @Test func `A Matched Collection Finds Every Match By Its Exact Path`() {
    let matches = Self.items.collection(matching: ["user"])
    #expect(matches[["user"]] == Item(path: ["user"]))
    #expect(matches[["user", 1]] == Item(path: ["user", 1]))
    #expect(matches[["user", 1, "friends"]] == Item(path: ["user", 1, "friends"]))
    #expect(matches[["user", 3]] == nil)
    #expect(matches[["post", 1]] == nil)
    #expect(matches[["post"]] == nil)
    #expect(matches[[]] == nil)
    #expect(Self.items.collection(matching: ["user", 1])[["user"]] == nil)
  }

  @Test func `Changing A Matched Collection Keeps Every Lookup Right`() {
    var matches = Self.items.collection(matching: ["user"])
    matches.removeValue(forPath: ["user"])
    matches.update(Item(path: ["user", 2], value: 7))
    matches.update(Item(path: ["admin"]))
    #expect(matches.count == 4)
    #expect(matches[["user"]] == nil)
    #expect(matches[["user", 2]]?.value == 7)
    #expect(matches[["admin"]] != nil)
    #expect(matches.collection(matching: ["user"]).count == 3)
    #expect(matches.collection(matching: ["admin"]).count == 1)
    #expect(Self.items[["user"]] != nil)
    #expect(Self.items[["user", 2]]?.value == 0)
  }

  @Test func `Removing A Value Keeps The Others Reachable By Index And Path`() {
    var items: OperationPathableCollection<Item> = [
      Item(path: [1]), Item(path: [2]), Item(path: [3, 1]), Item(path: [4]),
    ]
    let removed = items.remove(at: items.startIndex)
    #expect(removed.path == [1])
    #expect(items.count == 3)
    #expect(Set(items.indices.map { items[$0].path }) == [[2], [3, 1], [4]])
    for item in items {
      #expect(items[item.path] == item)
    }
    items.removeAll(where: { $0.path.count == 1 })
    #expect(items.map(\.path) == [[3, 1]])
    #expect(items[[3, 1]] != nil)
  }

  @Test func `Equal Collections Are Equal And Hash Alike Whatever Their Order`() {
    let forward: OperationPathableCollection<Item> = [
      Item(path: ["user", 1]), Item(path: ["user", 2]), Item(path: ["user"]),
    ]
    let backward: OperationPathableCollection<Item> = [
      Item(path: ["user"]), Item(path: ["user", 2]), Item(path: ["user", 1]),
    ]
    let matched = Self.items.collection(matching: ["user"])
      .collection(matching: ["user"])
    var unmatched = matched
    unmatched.removeValue(forPath: ["user", 1, "friends"])
    #expect(forward == backward)
    #expect(forward.hashValue == backward.hashValue)
    #expect(unmatched == forward)
    #expect(unmatched.hashValue == forward.hashValue)
    #expect(matched != forward)
    #expect(
      backward != [
        Item(path: ["user"]), Item(path: ["user", 2]), Item(path: ["user", 1], value: 1),
      ]
    )
  }

  @Test func `Remove All Keeping Capacity Empties A Matched Collection`() {
    var matches = Self.items.collection(matching: ["user"])
    matches.removeAll(keepingCapacity: true)
    #expect(matches.isEmpty)
    #expect(matches[["user"]] == nil)
    matches.update(Item(path: ["user", 9]))
    #expect(matches.collection(matching: ["user"]).count == 1)
  }
}
