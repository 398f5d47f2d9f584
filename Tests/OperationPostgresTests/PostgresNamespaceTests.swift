import OperationPostgres
import Testing

@Suite struct PostgresNamespaceTests {
  @Test func `A Namespace Names Its Tables And Channel After Itself`() throws {
    let namespace = try PostgresNamespace("fleet_1")
    #expect(namespace.name == "fleet_1")
    #expect(namespace.description == "fleet_1")
    #expect(PostgresNamespace.default.name == "operation")
  }

  @Test(arguments: [
    "", "1fleet", "Fleet", "fleet-1", "fleet; DROP TABLE x", String(repeating: "a", count: 41),
  ])
  func `A Name That Is Not A Plain Identifier Is Refused`(name: String) {
    let error = #expect(throws: PostgresNamespace.InvalidNameError.self) {
      try PostgresNamespace(name)
    }
    #expect(error?.name == name)
  }

  @Test func `The Error Says What A Name May Hold`() {
    let error = #expect(throws: PostgresNamespace.InvalidNameError.self) {
      try PostgresNamespace("a-b")
    }
    #expect(error?.description.contains("lowercase ASCII letters, digits and underscores") == true)
  }
}
