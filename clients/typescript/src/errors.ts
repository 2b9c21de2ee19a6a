/** Errors the client raises. Branch on `code`, never on the message. */

export class HookdError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(`${code}: ${message}`);
    this.name = "HookdError";
    this.code = code;
  }
}

/** Nothing listens on the socket (or the daemon did not come back within the reconnect budget). */
export class DaemonNotRunning extends HookdError {
  readonly path: string;
  constructor(path: string, why: string) {
    super("not_running", `hookd is not running (nothing listens on ${path}: ${why})`);
    this.name = "DaemonNotRunning";
    this.path = path;
  }
}

/** The socket's directory or file is not this user's alone: nothing was sent. */
export class DaemonNotTrusted extends HookdError {
  constructor(message: string) {
    super("untrusted_daemon", message);
    this.name = "DaemonNotTrusted";
  }
}

/** The connection was lost with this request in flight: its outcome is unknown. */
export class ConnectionLost extends HookdError {
  constructor(message: string) {
    super("connection_lost", message);
    this.name = "ConnectionLost";
  }
}
