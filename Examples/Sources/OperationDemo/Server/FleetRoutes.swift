import Foundation
import HTTPTypes
import Hummingbird

/// The route of the fleet test and the fleet demo (`operation-demo fleet-test`,
/// `operation-demo fleet`): `GET /fleet/items/{key}` answers `{key, fetchedBy, serial}`, where
/// `fetchedBy` is the request's `X-Fleet-Instance` header: the instance that called upstream,
/// which every instance that shares the value can tell.
enum FleetRoutes {
  static func add(to router: Router<BasicRequestContext>, state: ServerState) {
    router.get("fleet/items/:key") { request, context -> Response in
      let key = context.parameters.get("key") ?? ""
      let instance = request.headers[.fleetInstance] ?? "unknown"
      let (serial, hold) = state.fleetUpstream.arrive(key: key, instance: instance)
      if let hold {
        await hold.hold()
      }
      return try .json(FleetItem(key: key, fetchedBy: instance, serial: serial))
    }
  }
}

/// What the fleet's upstream received: the requests for each key, in order, with the instance
/// that sent each; and the holds of the next request of a key, which the fleet test uses to keep
/// a leader's call in flight while it kills or stops the leader.
///
/// NB: Apart from ``ServerState/holdNextRequest(withKey:)``, whose hold does not tell which
/// instance sent the held request.
final class FleetUpstream: Sendable {
  private struct State {
    var requests = [String: [String]]()
    var holds = [String: RequestHold]()
  }

  private let state = Locked(State())

  /// Holds the next request for `key` before it is answered, until the hold is released.
  ///
  /// - Parameter key: The item's key.
  /// - Returns: The hold.
  func holdNextRequest(forKey key: String) -> RequestHold {
    let hold = RequestHold(key: key)
    let replaced = self.state.withLock { $0.holds.updateValue(hold, forKey: key) }
    replaced?.release()
    return hold
  }

  /// Records a request, and takes the hold of its key if there is one.
  ///
  /// - Parameters:
  ///   - key: The item's key.
  ///   - instance: The instance that sent it.
  /// - Returns: The request's number for its key (from 1), and its hold.
  func arrive(key: String, instance: String) -> (serial: Int, hold: RequestHold?) {
    self.state.withLock { state in
      state.requests[key, default: []].append(instance)
      return (state.requests[key, default: []].count, state.holds.removeValue(forKey: key))
    }
  }

  /// The instances that sent a request for `key`, in order.
  func requests(forKey key: String) -> [String] {
    self.state.withLock { $0.requests[key, default: []] }
  }
}

extension HTTPField.Name {
  /// `X-Fleet-Instance`: which instance of the fleet sends a request.
  // NB: A literal, valid field name.
  static let fleetInstance = HTTPField.Name("X-Fleet-Instance")!
}
