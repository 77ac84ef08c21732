"""The gRPC edge: remote bot players (this issue), later the referee API server, auth, store, metrics."""
