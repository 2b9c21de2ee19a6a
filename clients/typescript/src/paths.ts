/**
 * Where the daemon's socket is, and whether it is this user's: checked before anything is sent.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DaemonNotTrusted } from "./errors.js";

/** `$HOOKD_SOCKET`, else `$XDG_RUNTIME_DIR/hookd/hookd.sock`, else `/tmp/hookd-$UID/hookd.sock`. */
export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOOKD_SOCKET) return env.HOOKD_SOCKET;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, "hookd", "hookd.sock");
  return join("/tmp", `hookd-${uid()}`, "hookd.sock");
}

function uid(): number {
  return typeof process.getuid === "function" ? process.getuid() : -1;
}

const FIX = "remove it, or set XDG_RUNTIME_DIR (or HOOKD_SOCKET) to a directory only you can write";

/**
 * Refuse a socket another user controls: its directory must be a real directory owned by this user (or root)
 * and not writable by group or others, and the socket must be owned by this user. A path that does not exist
 * is left to connect(), which reports the daemon as not running.
 *
 * Node cannot read SO_PEERCRED, so the listening process's user is not checked; the directory checks are what
 * keep another user from placing a socket there.
 */
export function checkPath(path: string): void {
  const me = uid();
  if (me < 0) return;
  const directory = dirname(resolve(path));
  let st;
  try {
    st = lstatSync(directory);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) {
    let target = "?";
    try {
      target = readlinkSync(directory);
    } catch {
      // the link vanished: still refuse
    }
    throw new DaemonNotTrusted(
      `${directory} is a symbolic link (to ${target}), not a directory: another user may be redirecting hookd's socket; ${FIX}`,
    );
  }
  if (st.uid !== me && st.uid !== 0) {
    throw new DaemonNotTrusted(`${directory} is owned by uid ${st.uid}, not you (uid ${me}): another user may be impersonating hookd; ${FIX}`);
  }
  if (st.mode & 0o022) {
    throw new DaemonNotTrusted(
      `${directory} is writable by group or others (mode ${(st.mode & 0o7777).toString(8)}): anyone who can write there can replace hookd's socket; run \`chmod go-w ${directory}\`, or ${FIX}`,
    );
  }
  let sst;
  try {
    sst = lstatSync(path);
  } catch {
    return;
  }
  if (sst.isSymbolicLink()) throw new DaemonNotTrusted(`${path} is a symbolic link, not hookd's socket; ${FIX}`);
  if (sst.uid !== me) {
    throw new DaemonNotTrusted(`${path} is owned by uid ${sst.uid}, not you (uid ${me}): another user may be impersonating hookd; ${FIX}`);
  }
}
