extension SharedOperation {
  /// The object that holds this wrapper's subscription, for tests that check it is released.
  @_spi(Testing)
  public var _subscriptionHolder: AnyObject {
    self.reference
  }
}
