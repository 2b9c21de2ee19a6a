/** hookd-client: the TypeScript client for hookd (docs/protocol.md, docs/typescript.md). */
export { Client, type AttachOptions, type CallOptions, type ClientOptions } from "./client.js";
export { ConnectionLost, DaemonNotRunning, DaemonNotTrusted, HookdError } from "./errors.js";
export { decodeBody, encodeFrame, FrameReader } from "./framing.js";
export { checkPath, defaultSocketPath } from "./paths.js";
export { Subscription, type SubscribeOptions } from "./subscription.js";
export type * from "./types.js";
