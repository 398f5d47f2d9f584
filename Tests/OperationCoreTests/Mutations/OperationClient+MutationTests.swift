import Operation
import OperationTestSupport
import Testing

@Suite struct `OperationClient+Mutation tests` {
  @Test func `The Client Keeps One Store Per Mutation Whatever The Arguments`() async throws {
    let client = OperationClient()
    let store = client.store(for: EchoMutation())
    try await store.mutate(with: "a")
    let again = client.store(for: EchoMutation(), initialValue: "ignored")
    #expect(again === store)
    try await again.mutate(with: "b")
    #expect(store.history.map(\.arguments) == ["a", "b"])
    #expect(client.store(with: EchoMutation().path)?.base as AnyObject === store)
  }

  @Test func `A New Store Starts From The Initial Value`() {
    let client = OperationClient()
    let store = client.store(for: EchoMutation(), initialValue: "start")
    #expect(store.currentValue == "start")
  }

  @Test func `A Mutation With A Default Value Gets A Non Optional Store`() async throws {
    let client = OperationClient()
    let store = client.store(for: EchoMutation().defaultValue("none"))
    let value: String = store.currentValue
    #expect(value == "none")
    #expect(!store.isAutomaticRunningEnabled)
    try await store.mutate(with: "blob")
    #expect(store.currentValue == "blob")
  }

  @Test func `Create Store Makes Mutation Stores`() async throws {
    let client = OperationClient()
    let (plain, defaulted) = client.withStores(matching: []) { stores, create in
      let plain = create(for: EchoMutation(), initialValue: "start")
      let defaulted = create(for: GatedMutation().defaultValue("none"))
      stores.update(OpaqueOperationStore(erasing: plain))
      return (plain, defaulted)
    }
    #expect(plain.currentValue == "start")
    #expect(defaulted.currentValue == "none")
    #expect(client.store(for: EchoMutation()) === plain)
    #expect(client.store(with: defaulted.path) == nil)
  }
}
