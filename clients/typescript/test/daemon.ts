/**
 * A real `hookd serve` for the tests, in its own temporary HOME (as tests/conftest.py does). The Python that
 * runs hookd is `$HOOKD_TEST_PYTHON` (the pytest runner sets it to its own interpreter).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const PYTHON = process.env.HOOKD_TEST_PYTHON ?? "python3";

export class Daemon {
  readonly root: string;
  readonly env: NodeJS.ProcessEnv;
  readonly socket: string;
  proc?: ChildProcess;
  private readonly logPath: string;

  constructor(readonly extra: string[] = []) {
    this.root = mkdtempSync(join(tmpdir(), "hookd-ts-"));
    for (const d of ["home", "config", "state", "run"]) mkdirSync(join(this.root, d), { recursive: true });
    chmodSync(join(this.root, "run"), 0o700);
    this.socket = join(this.root, "run", "hookd.sock");
    this.logPath = join(this.root, "daemon.log");
    this.env = {
      ...process.env,
      HOME: join(this.root, "home"),
      XDG_CONFIG_HOME: join(this.root, "config"),
      XDG_STATE_HOME: join(this.root, "state"),
      XDG_RUNTIME_DIR: join(this.root, "run"),
      HOOKD_SOCKET: this.socket,
      PYTHONUNBUFFERED: "1",
      HOOKD_TRUST_ALL: "1",
    };
    delete this.env.NOTIFY_SOCKET;
    delete this.env.LISTEN_FDS;
    delete this.env.LISTEN_PID;
  }

  static async start(extra: string[] = []): Promise<Daemon> {
    const d = new Daemon(extra);
    await d.start();
    return d;
  }

  writeGlobalHooks(yaml: string): void {
    mkdirSync(join(this.root, "config", "hookd"), { recursive: true });
    writeFileSync(join(this.root, "config", "hookd", "hooks.yaml"), yaml);
  }

  async start(): Promise<void> {
    const log = openSync(this.logPath, "a");
    this.proc = spawn(PYTHON, ["-m", "hookd", "serve", ...this.extra], { env: this.env, cwd: this.root, stdio: ["ignore", log, log] });
    const proc = this.proc;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) throw new Error(`daemon exited with ${proc.exitCode}: ${this.log()}`);
      if (await canConnect(this.socket)) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no daemon on ${this.socket} after 60 s`);
  }

  /** SIGKILL, and wait until it is gone. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGKILL");
    await gone;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.root, { recursive: true, force: true });
  }

  hookd(...args: string[]): { stdout: string; stderr: string; status: number | null } {
    const r = spawnSync(PYTHON, ["-m", "hookd", ...args], { env: this.env, encoding: "utf8", timeout: 60_000 });
    return { stdout: r.stdout, stderr: r.stderr, status: r.status };
  }

  log(): string {
    try {
      return readFileSync(this.logPath, "utf8");
    } catch {
      return "";
    }
  }
}

function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ path });
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

/** Wait (bounded, generously) until `check` holds. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
