import OperationCore
import Testing

@Suite struct `NetworkConnectionStatus tests` {
  @Test func `Orders Disconnected Then Requires Connection Then Connected`() {
    let statuses: [NetworkConnectionStatus] = [.connected, .disconnected, .requiresConnection]
    #expect(statuses.sorted() == [.disconnected, .requiresConnection, .connected])
    #expect(NetworkConnectionStatus.disconnected < .requiresConnection)
    #expect(NetworkConnectionStatus.requiresConnection < .connected)
    #expect(!(NetworkConnectionStatus.connected < .connected))
  }
}
