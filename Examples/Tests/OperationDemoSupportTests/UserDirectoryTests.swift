import OperationDemoSupport
import Testing

@Suite struct `UserDirectory tests` {
  @Test func `users have ids from 1 and the same names on every run`() {
    let directory = UserDirectory(count: 100)
    #expect(directory.users.map(\.id) == Array(1...100))
    #expect(directory.user(id: 1) == CatalogUser(id: 1, firstName: "Ada", lastName: "Lovelace"))
    #expect(directory == UserDirectory(count: 100))
    #expect(Set(directory.users.map { "\($0.firstName) \($0.lastName)" }).count == 100)
  }

  @Test func `an unknown id has no user`() {
    let directory = UserDirectory(count: 3)
    #expect(directory.user(id: 0) == nil)
    #expect(directory.user(id: 4) == nil)
    #expect(directory.user(id: -1) == nil)
    #expect(UserDirectory(count: -5).users.isEmpty)
  }

  @Test func `a batch answers the known ids in the order asked, each once`() {
    let directory = UserDirectory(count: 10)
    #expect(directory.users(ids: [3, 9999, 1, 3, 0]).map(\.id) == [3, 1])
    #expect(directory.users(ids: []).isEmpty)
  }

  @Test func `a list of users counts them`() {
    let list = CatalogUserList(users: UserDirectory(count: 2).users)
    #expect(list.total == 2)
    #expect(list.limit == 2)
    #expect(list.skip == 0)
  }

  // MARK: - The ids parameter

  @Test func `ids are written and read back`() throws {
    #expect(UserIDList.text([1, 20, 3]) == "1,20,3")
    #expect(try UserIDList.parse("1,20,3") == [1, 20, 3])
    #expect(try UserIDList.parse("7,7") == [7, 7])
  }

  @Test func `a bad list is refused`() {
    #expect(throws: UserIDListError.missing) { try UserIDList.parse(nil) }
    #expect(throws: UserIDListError.missing) { try UserIDList.parse("") }
    #expect(throws: UserIDListError.invalid("")) { try UserIDList.parse("1,,2") }
    #expect(throws: UserIDListError.invalid("-3")) { try UserIDList.parse("-3") }
    #expect(throws: UserIDListError.invalid("x")) { try UserIDList.parse("1,x") }
    #expect(throws: UserIDListError.invalid("99999999999999999999")) {
      try UserIDList.parse("99999999999999999999")
    }
    let tooMany = UserIDList.text(Array(1...(UserIDList.maxCount + 1)))
    #expect(throws: UserIDListError.tooMany(UserIDList.maxCount + 1)) {
      try UserIDList.parse(tooMany)
    }
  }

  @Test func `a long list is cut short for the output`() {
    #expect(UserIDList.summary([1, 2, 3]) == "1,2,3")
    #expect(UserIDList.summary(Array(1...5)) == "1,2,3,4,5")
    #expect(UserIDList.summary(Array(1...100)) == "1,2,3,4,5,… (100 ids)")
    #expect(UserIDList.summary([9, 8, 7], showing: 2) == "9,8,… (3 ids)")
  }
}
