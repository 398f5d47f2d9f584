// NB: Only for `log`, which the standard library lacks.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(WASILibc)
  import WASILibc
#elseif canImport(ucrt)
  import ucrt
#endif

// MARK: - Settings

/// How ``OperationStore/fetchIfNeeded(using:)`` serves a value that is about to go stale, or that
/// went stale a moment ago, while one refresh runs in the background.
///
/// A popular key on a server must not stall every request at once when its value expires. With
/// these settings in a store's context, a serving call:
///
/// - serves a value that went stale less than ``servingWindow`` ago at once, and makes sure that
///   exactly one refresh runs in the background;
/// - refreshes a fresh value early, with a probability that grows as its stale deadline nears
///   (probabilistic early expiration, "XFetch", by Vattani, Chierichetti and Lowenstein): a
///   request at time `t` before the deadline `T` starts one background refresh when
///   `t − δ · β · ln(r) ≥ T`, where `δ` is how long the store's last successful refresh took,
///   `β` is ``beta`` and `r` is drawn from ``random``, uniform in (0, 1]. Slow refreshes and a
///   larger `β` start earlier.
///
/// Both need to know when the value goes stale, so they apply only to stores whose operation has
/// a ``StatefulOperationRequest/stale(after:whenNoValue:)-(OperationDuration,_)`` modifier; a
/// store whose staleness comes only from predicates is served as without these settings.
///
/// Switch it on for one operation with ``StatefulOperationRequest/refreshEarly(beta:servingWindow:random:)``,
/// or for every store of a client through ``OperationContext/earlyRefresh`` in its default
/// context:
///
/// ```swift
/// var context = OperationContext()
/// context.earlyRefresh = EarlyRefresh()
/// let client = OperationClient(defaultContext: context)
///
/// let store = client.store(for: PriceQuery(sku: "A1").stale(after: .seconds(60)))
/// let price = try await store.fetchIfNeeded()
/// ```
///
/// It is off (`nil`) by default: a serving call then waits for a run whenever the value is stale.
public struct EarlyRefresh: Sendable {
  /// How eagerly a fresh value is refreshed before its deadline; 1 by default, 0 for never.
  ///
  /// The expected head start of a refresh is `δ · β` (`δ` is the duration of the last
  /// successful refresh). Values above 1 refresh earlier, values below 1 later.
  public let beta: Double

  /// How long after its value went stale a store still serves it at once while it refreshes it;
  /// 30 seconds by default.
  ///
  /// A request that comes later waits for a refresh, as it would without these settings.
  public let servingWindow: OperationDuration

  /// Where the `r` of the early refresh rule comes from; ``RandomSource/system`` by default.
  public let random: RandomSource

  /// Creates settings for serving stale values and refreshing early.
  ///
  /// A negative or NaN `beta` counts as 0 (no early refresh), and a negative window counts as
  /// zero; both are reported as warnings.
  ///
  /// - Parameters:
  ///   - beta: How eagerly a fresh value is refreshed before its deadline; 1 by default.
  ///   - servingWindow: How long after its value went stale a store still serves it; 30 seconds
  ///     by default.
  ///   - random: Where the early refresh rule draws its random numbers; the system's generator
  ///     by default.
  public init(
    beta: Double = 1,
    servingWindow: OperationDuration = .seconds(30),
    random: RandomSource = .system
  ) {
    if beta >= 0 {
      self.beta = beta
    } else {
      reportWarning(.earlyRefreshBetaNegative(beta))
      self.beta = 0
    }
    if servingWindow >= .zero {
      self.servingWindow = servingWindow
    } else {
      reportWarning(.earlyRefreshServingWindowNegative(servingWindow))
      self.servingWindow = .zero
    }
    self.random = random
  }
}

// MARK: - Random source

extension EarlyRefresh {
  /// A source of random numbers in (0, 1] for the early refresh rule.
  ///
  /// Tests replace it with a fixed number, so that they know where the early refresh starts:
  ///
  /// ```swift
  /// let settings = EarlyRefresh(random: .constant(0.5))
  /// ```
  public struct RandomSource: Sendable {
    private let draw: @Sendable () -> Double

    /// Creates a source from a closure that returns numbers in (0, 1].
    ///
    /// A number above 1 counts as 1 and a number at or below 0 (or NaN) as the smallest positive
    /// number, so that a wrong number never stops or breaks the rule.
    ///
    /// - Parameter draw: Returns the next number.
    public init(_ draw: @escaping @Sendable () -> Double) {
      self.draw = draw
    }

    /// Draws the next number, in (0, 1].
    ///
    /// - Returns: The number.
    public func next() -> Double {
      let number = self.draw()
      guard number > 0 else { return .leastNormalMagnitude }
      return min(number, 1)
    }

    /// Numbers from the system's random number generator, uniform in (0, 1].
    public static var system: Self {
      Self { 1 - Double.random(in: 0..<1) }
    }

    /// Always the same number.
    ///
    /// - Parameter number: The number, in (0, 1].
    /// - Returns: The source.
    public static func constant(_ number: Double) -> Self {
      Self { number }
    }
  }
}

// MARK: - Rule

extension EarlyRefresh {
  /// How long before a value's stale deadline a request refreshes it, by the early refresh rule:
  /// `−δ · β · ln(r)`.
  ///
  /// - Parameters:
  ///   - lastRunDuration: `δ`, how long the store's last successful refresh took.
  ///   - random: `r`, in (0, 1].
  /// - Returns: The head start; zero when `δ` or `β` is zero, whatever `r`.
  func headStart(lastRunDuration: OperationDuration, random: Double) -> OperationDuration {
    let seconds = Double(lastRunDuration.attoseconds) / 1e18
    let product = seconds * self.beta
    // NB: `r` is never 0 (see `RandomSource.next()`), so `−ln(r)` is finite; a zero product
    // stays zero even when `−ln(r)` is, which avoids the NaN of `0 · ∞` for any `β`.
    guard product > 0 else { return .zero }
    let start = product * -log(random)
    guard start.isFinite else { return .seconds(Int64.max / 2) }
    return .seconds(start)
  }
}

// MARK: - Context

extension OperationContext {
  /// How ``OperationStore/fetchIfNeeded(using:)`` serves values near or just past their stale
  /// deadline; `nil` (the default) serves a stale value only after a run.
  ///
  /// Set it on a client's default context to switch it on for every store of the client, or
  /// per operation with ``StatefulOperationRequest/refreshEarly(beta:servingWindow:random:)``.
  /// See ``EarlyRefresh``.
  public var earlyRefresh: EarlyRefresh? {
    get { self[EarlyRefreshKey.self] }
    set { self[EarlyRefreshKey.self] = newValue }
  }

  private enum EarlyRefreshKey: Key {
    static let defaultValue: EarlyRefresh? = nil
  }
}

// MARK: - Modifiers

extension StatefulOperationRequest {
  /// Serves this operation's value while it refreshes it in the background, near and just past
  /// its stale deadline; see ``EarlyRefresh``.
  ///
  /// Only ``OperationStore/fetchIfNeeded(using:)`` reads the settings, and only for an
  /// operation with a ``StatefulOperationRequest/stale(after:whenNoValue:)-(OperationDuration,_)``
  /// modifier, which sets the deadline:
  ///
  /// ```swift
  /// let store = client.store(
  ///   for: PriceQuery(sku: "A1").stale(after: .seconds(60)).refreshEarly()
  /// )
  /// let price = try await store.fetchIfNeeded()
  /// ```
  ///
  /// - Parameters:
  ///   - beta: How eagerly a fresh value is refreshed before its deadline; 1 by default.
  ///   - servingWindow: How long after its value went stale a store still serves it; 30 seconds
  ///     by default.
  ///   - random: Where the early refresh rule draws its random numbers.
  /// - Returns: The modified operation.
  public func refreshEarly(
    beta: Double = 1,
    servingWindow: OperationDuration = .seconds(30),
    random: EarlyRefresh.RandomSource = .system
  ) -> ModifiedOperation<Self, _EarlyRefreshModifier<Self>> {
    self.refreshEarly(EarlyRefresh(beta: beta, servingWindow: servingWindow, random: random))
  }

  /// Sets how this operation's value is served near its stale deadline, or switches early
  /// refresh off for it with `nil` (for example when a client's default context switches it on).
  ///
  /// - Parameter settings: The settings, or `nil` for none.
  /// - Returns: The modified operation.
  public func refreshEarly(
    _ settings: EarlyRefresh?
  ) -> ModifiedOperation<Self, _EarlyRefreshModifier<Self>> {
    self.modifier(_EarlyRefreshModifier(settings: settings))
  }
}

/// The modifier behind ``StatefulOperationRequest/refreshEarly(beta:servingWindow:random:)``.
public struct _EarlyRefreshModifier<
  Operation: StatefulOperationRequest
>: _ContextUpdatingOperationModifier, Sendable {
  let settings: EarlyRefresh?

  /// Writes the settings to ``OperationContext/earlyRefresh``.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    context.earlyRefresh = self.settings
  }
}

// MARK: - Warnings

@_spi(Warnings)
extension OperationWarning {
  /// ``EarlyRefresh`` was given a negative or NaN `beta`.
  ///
  /// The settings use 0, which never refreshes a fresh value early.
  ///
  /// - Parameter beta: The `beta` it was given.
  /// - Returns: The warning.
  public static func earlyRefreshBetaNegative(_ beta: Double) -> Self {
    Self(
      """
      EarlyRefresh was given a beta of \(beta); it uses 0 instead, which never refreshes a fresh \
      value early. Pass a beta of 0 or more (1 is the usual choice).
      """
    )
  }

  /// ``EarlyRefresh`` was given a negative serving window.
  ///
  /// The settings use a window of zero, which never serves a stale value.
  ///
  /// - Parameter window: The window it was given.
  /// - Returns: The warning.
  public static func earlyRefreshServingWindowNegative(_ window: OperationDuration) -> Self {
    Self(
      """
      EarlyRefresh was given a serving window of \(window); it uses zero instead, which never \
      serves a stale value. Pass a window of zero or more.
      """
    )
  }
}
