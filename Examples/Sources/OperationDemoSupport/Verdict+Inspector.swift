extension Verdict {
  /// Checks that the client's snapshot, as `GET /debug/operations` reported it, lists a store
  /// with a phase.
  ///
  /// It fails without a snapshot, with a snapshot of no stores, and when the store is missing or
  /// in another phase: an endpoint that answers nothing must not pass.
  ///
  /// - Parameters:
  ///   - path: The store's path, as the snapshot spells it.
  ///   - label: What the store is, such as `"the feed's store"`.
  ///   - phase: The phase the store must be in, such as `"success"`.
  ///   - snapshot: The snapshot, or `nil` when none could be fetched.
  ///   - problem: Why there is no snapshot, such as `"HTTP 404: …"`.
  /// - Returns: The verdict.
  public static func inspectorLists(
    path: String,
    label: String,
    phase: String,
    in snapshot: InspectorSnapshot?,
    problem: String? = nil
  ) -> Verdict {
    let prefix = "inspect: \(DebugEndpoint.operationsPath)"
    guard let snapshot else {
      return Verdict(
        passed: false,
        message: "\(prefix) gave no snapshot (\(problem ?? "no answer")), expected \(label) "
          + "\(path)"
      )
    }
    guard !snapshot.stores.isEmpty else {
      return Verdict(
        passed: false,
        message: "\(prefix) listed no stores, expected \(label) \(path)"
      )
    }
    guard let store = snapshot.stores.first(where: { $0.path == path }) else {
      return Verdict(
        passed: false,
        message: "\(prefix) listed \(snapshot.stores.count) store(s) but not \(label) \(path)"
      )
    }
    guard store.phase == phase else {
      return Verdict(
        passed: false,
        message: "\(prefix) lists \(label) \(path) in phase \(store.phase), expected \(phase)"
      )
    }
    let pages = store.pageCount.map { ", \($0) page(s)" } ?? ""
    return Verdict(
      passed: true,
      message: "\(prefix) lists \(label) \(path): \(phase)\(pages), among "
        + "\(snapshot.stores.count) store(s)"
    )
  }

  /// Checks that the embedded server answered the inspector's debug requests and kept them out of
  /// the accounting the other checks compare with: none failed (the fault injection lets
  /// `/debug/*` through, even while the server is offline), and none is in its request history.
  ///
  /// It fails when no debug request reached the server: then nothing shows they are left out.
  ///
  /// - Parameters:
  ///   - answered: The debug requests the server answered, counted apart from the others.
  ///   - failed: The inspector's debug requests that did not get a snapshot.
  ///   - history: The server's request history, which the other checks read.
  /// - Returns: The verdict.
  public static func debugRequestsLeftOut(
    answered: Int,
    failed: Int,
    history: RequestHistory
  ) -> Verdict {
    guard answered > 0 else {
      return Verdict(
        passed: false,
        message: "inspect: no request reached \(DebugEndpoint.operationsPath), so nothing shows "
          + "that the server leaves debug requests out of its counts"
      )
    }
    let counted = history.entries.count { DebugEndpoint.isDebug(requestKey: $0.key) }
    guard counted == 0 else {
      return Verdict(
        passed: false,
        message: "inspect: the server's request history counts \(counted) debug request(s); "
          + "the checks that compare it with the client's requests would be off"
      )
    }
    guard failed == 0 else {
      return Verdict(
        passed: false,
        message: "inspect: \(failed) of the inspector's debug request(s) got no snapshot; the "
          + "fault injection must let /debug/* through"
      )
    }
    return Verdict(
      passed: true,
      message: "inspect: the server answered \(answered) debug request(s), none failed, and "
        + "none is among the \(history.entries.count) request(s) of its history"
    )
  }
}
