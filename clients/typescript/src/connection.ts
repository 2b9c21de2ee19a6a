/**
 * One verified, greeted connection to the daemon: frames out, frames in. The client and each subscription
 * own one. Replies are matched by id; frames with id 0 (invokes, stream frames) go to `onUnasked`.
 */
import { createConnection, type Socket } from "node:net";
import { ConnectionLost, DaemonNotRunning, HookdError } from "./errors.js";
import { decodeBody, encodeFrame, FrameReader } from "./framing.js";
import { checkPath } from "./paths.js";
import type { Frame, Welcome } from "./types.js";

export const PROTOCOL_VERSION = 1;

interface Waiter {
  resolve: (frame: Frame) => void;
  reject: (err: Error) => void;
}

export class Connection {
  readonly socket: Socket;
  welcome?: Welcome;
  closed = false;
  private readonly waiting = new Map<number, Waiter>();
  private readonly reader = new FrameReader();
  private lostWith?: Error;

  private constructor(
    socket: Socket,
    private readonly path: string,
    private readonly onUnasked: (frame: Frame) => void,
    private readonly onClose: (conn: Connection) => void,
  ) {
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => this.data(chunk));
    socket.on("error", (err) => this.lose(new ConnectionLost(`connection to ${path} failed: ${err.message}`)));
    socket.on("close", () => this.lose(new ConnectionLost("the connection to the daemon was lost; the call's outcome is unknown")));
  }

  /** Connect to `path` (after checking it is this user's), then send hello and wait for the welcome. */
  static async open(
    path: string,
    name: string,
    nextId: () => number,
    onUnasked: (frame: Frame) => void,
    onClose: (conn: Connection) => void,
    onSocket?: (socket: Socket) => void,
  ): Promise<Connection> {
    checkPath(path);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = createConnection({ path });
      onSocket?.(s); // the opener can destroy it while it waits (a daemon that accepts and never answers)
      const fail = (err: NodeJS.ErrnoException) => {
        s.destroy();
        if (err.code === "ENOENT" || err.code === "ECONNREFUSED") reject(new DaemonNotRunning(path, err.code));
        else reject(new ConnectionLost(`cannot connect to ${path}: ${err.message}`));
      };
      s.once("error", fail);
      s.once("close", () => reject(new ConnectionLost(`the connection to ${path} was closed before it was greeted`)));
      s.once("connect", () => {
        s.off("error", fail);
        resolve(s);
      });
    });
    const conn = new Connection(socket, path, onUnasked, onClose);
    const reply = await conn.request({ type: "hello", id: nextId(), protocol: PROTOCOL_VERSION, client: name, pid: process.pid });
    if (reply.type === "error") {
      conn.close();
      throw new HookdError(String(reply.code), String(reply.message));
    }
    conn.welcome = reply as unknown as Welcome;
    return conn;
  }

  /** Send one request and wait for the reply with its id. */
  request(message: { type: string; id: number } & Record<string, unknown>): Promise<Frame> {
    if (this.closed) return Promise.reject(this.lostWith ?? new ConnectionLost("the connection is closed"));
    const frame = encodeFrame(message);
    const limit = this.welcome?.limits.max_frame;
    if (limit !== undefined && frame.length - 4 > limit) {
      // The daemon would close the connection, failing every other call in flight: refuse it here.
      return Promise.reject(
        new HookdError("frame_too_large", `the ${message.type} request is ${frame.length - 4} bytes, over the daemon's frame limit of ${limit} bytes; nothing was sent`),
      );
    }
    return new Promise<Frame>((resolve, reject) => {
      this.waiting.set(message.id, { resolve, reject });
      this.socket.write(frame);
    });
  }

  /** Send a frame that gets no reply (an invoke_result). */
  send(frame: Uint8Array): void {
    if (!this.closed) this.socket.write(frame);
  }

  close(): void {
    this.socket.destroy();
    this.lose(new ConnectionLost("the client was closed"));
  }

  private data(chunk: Buffer): void {
    let bodies: Uint8Array[];
    try {
      bodies = this.reader.feed(chunk);
    } catch (err) {
      this.socket.destroy();
      this.lose(new ConnectionLost(`connection to ${this.path} failed: ${(err as Error).message}`));
      return;
    }
    for (const body of bodies) {
      let frame: Frame;
      try {
        frame = decodeBody(body) as Frame;
      } catch (err) {
        this.socket.destroy();
        this.lose(new ConnectionLost(`the daemon sent a frame that is not msgpack: ${(err as Error).message}`));
        return;
      }
      const id = typeof frame.id === "number" ? frame.id : 0;
      const waiter = id !== 0 ? this.waiting.get(id) : undefined;
      if (waiter) {
        this.waiting.delete(id);
        waiter.resolve(frame);
      } else if (id === 0 && frame.type === "error" && this.waiting.size) {
        // An error about the connection itself (id 0): it is about to close; the close fails the waiters.
        this.lostWith = new HookdError(String(frame.code), String(frame.message));
      } else {
        this.onUnasked(frame);
      }
    }
  }

  private lose(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    const reason = this.lostWith ?? err;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of waiting) w.reject(reason);
    this.onClose(this);
  }
}
