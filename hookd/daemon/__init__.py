"""The daemon: requests into replies, with no sockets; the shared state and one module per feature."""
