@_exported public import OperationCore
// NB: Upstream declares `URLConnectionObserver` in its core; here it is a module of its own, so
// that only programs that link it pay for FoundationNetworking, and code that imports `Operation`
// sees it as before.
@_exported public import OperationURLConnectionObserver
