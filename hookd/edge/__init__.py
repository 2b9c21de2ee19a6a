"""The daemon's edge: the socket, connections, limits, the HTTP endpoint, the service manager."""
