/// How well the device is connected to a network.
///
/// Statuses are ordered from worst to best: ``disconnected`` < ``requiresConnection`` <
/// ``connected``. ``NetworkConnectionRunSpecification`` compares an observer's status with
/// ``OperationContext/satisfiedConnectionStatus`` using this order.
public enum NetworkConnectionStatus: Hashable, Sendable {
  /// The device can reach the network.
  case connected

  /// The device cannot reach the network.
  case disconnected

  /// The device cannot reach the network now, but making a connection may activate an interface,
  /// for example a cellular or on-demand VPN link.
  case requiresConnection
}

extension NetworkConnectionStatus: Comparable {
  /// Whether `lhs` is a worse connection than `rhs`.
  ///
  /// - Parameters:
  ///   - lhs: A status.
  ///   - rhs: Another status.
  /// - Returns: `true` when `lhs` comes before `rhs` in disconnected < requiresConnection <
  ///   connected.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.rank < rhs.rank
  }

  private var rank: Int {
    switch self {
    case .disconnected: 0
    case .requiresConnection: 1
    case .connected: 2
    }
  }
}
