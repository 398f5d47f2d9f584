import Foundation
import OperationCore
import OperationTestSupport
import OperationURLConnectionObserver
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct `URLConnectionObserver tests` {
  private static let interval = Duration.seconds(120)

  private func observer(
    _ stub: ConnectivityStub,
    clock: ManualClock
  ) -> URLConnectionObserver {
    URLConnectionObserver(
      session: stub.session,
      url: stub.url,
      clock: clock,
      pingingEvery: Self.interval
    )
  }

  @Test func `Is Running Follows Start And Stop`() async {
    let clock = ManualClock()
    let observer = self.observer(ConnectivityStub(), clock: clock)
    #expect(!observer.isRunning)
    #expect(observer.currentStatus == .connected)

    observer.start()
    #expect(observer.isRunning)
    await clock.waitForSleeps(count: 1)

    observer.stop()
    #expect(!observer.isRunning)
  }

  @Test func `Starting Returns A Running Observer That Pings At Once`() async {
    let stub = ConnectivityStub([.failure(.notConnectedToInternet)])
    let clock = ManualClock()
    let observer = URLConnectionObserver.starting(
      session: stub.session,
      url: stub.url,
      clock: clock,
      pingingEvery: Self.interval
    )
    #expect(observer.isRunning)
    await clock.waitForSleeps(count: 1)
    #expect(observer.currentStatus == .disconnected)
    #expect(stub.methods == ["HEAD"])
    observer.stop()
  }

  @Test func `Subscribing Calls Back At Once And Starts The Observer`() async {
    let stub = ConnectivityStub([.failure(.timedOut)])
    let clock = ManualClock()
    let observer = self.observer(stub, clock: clock)
    let statuses = ValueRecorder<NetworkConnectionStatus>()

    let subscription = observer.subscribe { statuses.record($0) }
    #expect(statuses.values == [.connected])
    #expect(observer.isRunning)

    await clock.waitForSleeps(count: 1)
    #expect(statuses.values == [.connected, .disconnected])
    subscription.cancel()
    observer.stop()
  }

  @Test(
    arguments: [
      URLError.Code.notConnectedToInternet, .networkConnectionLost, .timedOut,
      .internationalRoamingOff, .callIsActive, .dataNotAllowed,
    ]
  )
  func `Offline Errors Give Disconnected`(code: URLError.Code) async {
    let clock = ManualClock()
    let observer = self.observer(ConnectivityStub([.failure(code)]), clock: clock)
    observer.start()
    await clock.waitForSleeps(count: 1)
    #expect(observer.currentStatus == .disconnected)
    observer.stop()
  }

  @Test(
    arguments: [
      ConnectivityStub.Outcome.failure(.badServerResponse), .failure(.cannotFindHost),
      .failure(.secureConnectionFailed), .response(statusCode: 500),
      .response(statusCode: 404),
    ]
  )
  func `Other Errors And Responses Keep Connected`(outcome: ConnectivityStub.Outcome) async {
    let stub = ConnectivityStub([.failure(.notConnectedToInternet), outcome])
    let clock = ManualClock()
    let observer = self.observer(stub, clock: clock)
    observer.start()
    await clock.waitForSleeps(count: 1)
    #expect(observer.currentStatus == .disconnected)

    clock.advance(by: Self.interval)
    await clock.waitForSleeps(count: 2)
    #expect(observer.currentStatus == .connected)
    observer.stop()
  }

  @Test func `Follows Transitions And Sends Only Changes`() async {
    let stub = ConnectivityStub([
      .failure(.notConnectedToInternet), .failure(.networkConnectionLost),
      .response(statusCode: 200), .response(statusCode: 204), .failure(.timedOut),
    ])
    let clock = ManualClock()
    let observer = self.observer(stub, clock: clock)
    let statuses = ValueRecorder<NetworkConnectionStatus>()
    let subscription = observer.subscribe { statuses.record($0) }

    await clock.waitForSleeps(count: 1)
    for sleeps in 2...5 {
      clock.advance(by: Self.interval)
      await clock.waitForSleeps(count: sleeps)
    }

    #expect(stub.methods == Array(repeating: "HEAD", count: 5))
    #expect(statuses.values == [.connected, .disconnected, .connected, .disconnected])
    subscription.cancel()
    observer.stop()
  }

  @Test func `Pings Again Only After Each Interval`() async {
    let stub = ConnectivityStub()
    let clock = ManualClock()
    let observer = self.observer(stub, clock: clock)
    observer.start()
    await clock.waitForSleeps(count: 1)
    #expect(stub.methods.count == 1)

    clock.advance(by: Self.interval - .seconds(1))
    #expect(clock.pendingSleeperCount == 1)
    clock.advance(by: .seconds(1))
    await clock.waitForSleeps(count: 2)
    #expect(stub.methods.count == 2)
    observer.stop()
  }

  @Test func `Stopping Ends The Pings`() async {
    let stub = ConnectivityStub()
    let clock = ManualClock()
    let observer = self.observer(stub, clock: clock)
    observer.start()
    await clock.waitForSleeps(count: 1)
    #expect(clock.pendingSleeperCount == 1)
    observer.stop()
    // NB: Cancelling the polling task cancels its sleep at once.
    #expect(clock.pendingSleeperCount == 0)
    clock.advance(by: Self.interval * 3)
    #expect(stub.methods.count == 1)
  }

  @Test func `Releasing A Running Observer Frees It`() async {
    let clock = ManualClock()
    var observer: URLConnectionObserver? = self.observer(ConnectivityStub(), clock: clock)
    weak let weakObserver = observer
    observer?.start()
    await clock.waitForSleeps(count: 1)
    observer = nil
    #expect(weakObserver == nil)
    #expect(clock.pendingSleeperCount == 0)
  }

  @Test func `Connectivity Session And Default URL`() {
    let configuration = URLSession.operationConnectivity.configuration
    #expect(configuration.timeoutIntervalForRequest == 5)
    #expect(configuration.httpCookieStorage == nil)
    #expect(configuration.urlCache == nil)
    #expect(
      URL.operationURLConnectionObserverDefault.absoluteString
        == "https://www.apple.com/library/test/success.html"
    )
  }
}
