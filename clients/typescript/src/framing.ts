/**
 * Frames on the wire: a 4-byte big-endian length, then one msgpack map. Sans-IO.
 */
import { Decoder, Encoder } from "@msgpack/msgpack";

export const HEADER_SIZE = 4;

const encoder = new Encoder({ ignoreUndefined: true, useBigInt64: true });
const decoder = new Decoder();

/** One frame for `message` (undefined fields are left out, so the receiver applies its defaults). */
export function encodeFrame(message: object): Uint8Array {
  const body = encoder.encode(message);
  const frame = new Uint8Array(HEADER_SIZE + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, false);
  frame.set(body, HEADER_SIZE);
  return frame;
}

export function decodeBody(body: Uint8Array): unknown {
  return decoder.decode(body);
}

/** Splits a byte stream into frame bodies: many frames per chunk, or one frame over many chunks. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxFrame: number = 1 << 30) {}

  feed(chunk: Buffer): Uint8Array[] {
    this.chunks.push(chunk);
    this.size += chunk.length;
    const bodies: Uint8Array[] = [];
    while (this.size >= HEADER_SIZE) {
      const head = this.peek(HEADER_SIZE);
      const length = head.readUInt32BE(0);
      if (length > this.maxFrame) {
        throw new Error(`the daemon sent a frame of ${length} bytes, over the client's limit of ${this.maxFrame}`);
      }
      if (this.size < HEADER_SIZE + length) break;
      const frame = this.take(HEADER_SIZE + length);
      bodies.push(frame.subarray(HEADER_SIZE));
    }
    return bodies;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, n);
  }

  private take(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0];
    const out = first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.size -= n;
    return out;
  }
}
