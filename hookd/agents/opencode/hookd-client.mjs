// hookd-client bundled for hookd's opencode plugin by `npm run bundle` in clients/typescript; do not edit

// src/client.ts
import { basename } from "node:path";

// node_modules/@msgpack/msgpack/dist.esm/utils/utf8.mjs
function utf8Count(str) {
  const strLength = str.length;
  let byteLength = 0;
  let pos = 0;
  while (pos < strLength) {
    let value = str.charCodeAt(pos++);
    if ((value & 4294967168) === 0) {
      byteLength++;
      continue;
    } else if ((value & 4294965248) === 0) {
      byteLength += 2;
    } else {
      if (value >= 55296 && value <= 56319) {
        if (pos < strLength) {
          const extra = str.charCodeAt(pos);
          if ((extra & 64512) === 56320) {
            ++pos;
            value = ((value & 1023) << 10) + (extra & 1023) + 65536;
          }
        }
      }
      if ((value & 4294901760) === 0) {
        byteLength += 3;
      } else {
        byteLength += 4;
      }
    }
  }
  return byteLength;
}
function utf8EncodeJs(str, output, outputOffset) {
  const strLength = str.length;
  let offset = outputOffset;
  let pos = 0;
  while (pos < strLength) {
    let value = str.charCodeAt(pos++);
    if ((value & 4294967168) === 0) {
      output[offset++] = value;
      continue;
    } else if ((value & 4294965248) === 0) {
      output[offset++] = value >> 6 & 31 | 192;
    } else {
      if (value >= 55296 && value <= 56319) {
        if (pos < strLength) {
          const extra = str.charCodeAt(pos);
          if ((extra & 64512) === 56320) {
            ++pos;
            value = ((value & 1023) << 10) + (extra & 1023) + 65536;
          }
        }
      }
      if ((value & 4294901760) === 0) {
        output[offset++] = value >> 12 & 15 | 224;
        output[offset++] = value >> 6 & 63 | 128;
      } else {
        output[offset++] = value >> 18 & 7 | 240;
        output[offset++] = value >> 12 & 63 | 128;
        output[offset++] = value >> 6 & 63 | 128;
      }
    }
    output[offset++] = value & 63 | 128;
  }
}
var sharedTextEncoder = new TextEncoder();
var TEXT_ENCODER_THRESHOLD = 50;
function utf8EncodeTE(str, output, outputOffset) {
  sharedTextEncoder.encodeInto(str, output.subarray(outputOffset));
}
function utf8Encode(str, output, outputOffset) {
  if (str.length > TEXT_ENCODER_THRESHOLD) {
    utf8EncodeTE(str, output, outputOffset);
  } else {
    utf8EncodeJs(str, output, outputOffset);
  }
}
var CHUNK_SIZE = 4096;
function utf8DecodeJs(bytes, inputOffset, byteLength) {
  let offset = inputOffset;
  const end = offset + byteLength;
  const units = [];
  let result = "";
  while (offset < end) {
    const byte1 = bytes[offset++];
    if ((byte1 & 128) === 0) {
      units.push(byte1);
    } else if ((byte1 & 224) === 192) {
      const byte2 = bytes[offset++] & 63;
      units.push((byte1 & 31) << 6 | byte2);
    } else if ((byte1 & 240) === 224) {
      const byte2 = bytes[offset++] & 63;
      const byte3 = bytes[offset++] & 63;
      units.push((byte1 & 31) << 12 | byte2 << 6 | byte3);
    } else if ((byte1 & 248) === 240) {
      const byte2 = bytes[offset++] & 63;
      const byte3 = bytes[offset++] & 63;
      const byte4 = bytes[offset++] & 63;
      let unit = (byte1 & 7) << 18 | byte2 << 12 | byte3 << 6 | byte4;
      if (unit > 65535) {
        unit -= 65536;
        units.push(unit >>> 10 & 1023 | 55296);
        unit = 56320 | unit & 1023;
      }
      units.push(unit);
    } else {
      units.push(byte1);
    }
    if (units.length >= CHUNK_SIZE) {
      result += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  if (units.length > 0) {
    result += String.fromCharCode(...units);
  }
  return result;
}
var sharedTextDecoder = new TextDecoder();
var TEXT_DECODER_THRESHOLD = 200;
function utf8DecodeTD(bytes, inputOffset, byteLength) {
  const stringBytes = bytes.subarray(inputOffset, inputOffset + byteLength);
  return sharedTextDecoder.decode(stringBytes);
}
function utf8Decode(bytes, inputOffset, byteLength) {
  if (byteLength > TEXT_DECODER_THRESHOLD) {
    return utf8DecodeTD(bytes, inputOffset, byteLength);
  } else {
    return utf8DecodeJs(bytes, inputOffset, byteLength);
  }
}

// node_modules/@msgpack/msgpack/dist.esm/ExtData.mjs
var ExtData = class {
  type;
  data;
  constructor(type, data) {
    this.type = type;
    this.data = data;
  }
};

// node_modules/@msgpack/msgpack/dist.esm/DecodeError.mjs
var DecodeError = class _DecodeError extends Error {
  constructor(message) {
    super(message);
    const proto = Object.create(_DecodeError.prototype);
    Object.setPrototypeOf(this, proto);
    Object.defineProperty(this, "name", {
      configurable: true,
      enumerable: false,
      value: _DecodeError.name
    });
  }
};

// node_modules/@msgpack/msgpack/dist.esm/utils/int.mjs
var UINT32_MAX = 4294967295;
function setUint64(view, offset, value) {
  const high = value / 4294967296;
  const low = value;
  view.setUint32(offset, high);
  view.setUint32(offset + 4, low);
}
function setInt64(view, offset, value) {
  const high = Math.floor(value / 4294967296);
  const low = value;
  view.setUint32(offset, high);
  view.setUint32(offset + 4, low);
}
function getInt64(view, offset) {
  const high = view.getInt32(offset);
  const low = view.getUint32(offset + 4);
  return high * 4294967296 + low;
}
function getUint64(view, offset) {
  const high = view.getUint32(offset);
  const low = view.getUint32(offset + 4);
  return high * 4294967296 + low;
}

// node_modules/@msgpack/msgpack/dist.esm/timestamp.mjs
var EXT_TIMESTAMP = -1;
var TIMESTAMP32_MAX_SEC = 4294967296 - 1;
var TIMESTAMP64_MAX_SEC = 17179869184 - 1;
function encodeTimeSpecToTimestamp({ sec, nsec }) {
  if (sec >= 0 && nsec >= 0 && sec <= TIMESTAMP64_MAX_SEC) {
    if (nsec === 0 && sec <= TIMESTAMP32_MAX_SEC) {
      const rv = new Uint8Array(4);
      const view = new DataView(rv.buffer);
      view.setUint32(0, sec);
      return rv;
    } else {
      const secHigh = sec / 4294967296;
      const secLow = sec & 4294967295;
      const rv = new Uint8Array(8);
      const view = new DataView(rv.buffer);
      view.setUint32(0, nsec << 2 | secHigh & 3);
      view.setUint32(4, secLow);
      return rv;
    }
  } else {
    const rv = new Uint8Array(12);
    const view = new DataView(rv.buffer);
    view.setUint32(0, nsec);
    setInt64(view, 4, sec);
    return rv;
  }
}
function encodeDateToTimeSpec(date) {
  const msec = date.getTime();
  const sec = Math.floor(msec / 1e3);
  const nsec = (msec - sec * 1e3) * 1e6;
  const nsecInSec = Math.floor(nsec / 1e9);
  return {
    sec: sec + nsecInSec,
    nsec: nsec - nsecInSec * 1e9
  };
}
function encodeTimestampExtension(object) {
  if (object instanceof Date) {
    const timeSpec = encodeDateToTimeSpec(object);
    return encodeTimeSpecToTimestamp(timeSpec);
  } else {
    return null;
  }
}
function decodeTimestampToTimeSpec(data) {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  switch (data.byteLength) {
    case 4: {
      const sec = view.getUint32(0);
      const nsec = 0;
      return { sec, nsec };
    }
    case 8: {
      const nsec30AndSecHigh2 = view.getUint32(0);
      const secLow32 = view.getUint32(4);
      const sec = (nsec30AndSecHigh2 & 3) * 4294967296 + secLow32;
      const nsec = nsec30AndSecHigh2 >>> 2;
      return { sec, nsec };
    }
    case 12: {
      const sec = getInt64(view, 4);
      const nsec = view.getUint32(0);
      return { sec, nsec };
    }
    default:
      throw new DecodeError(`Unrecognized data size for timestamp (expected 4, 8, or 12): ${data.length}`);
  }
}
function decodeTimestampExtension(data) {
  const timeSpec = decodeTimestampToTimeSpec(data);
  return new Date(timeSpec.sec * 1e3 + timeSpec.nsec / 1e6);
}
var timestampExtension = {
  type: EXT_TIMESTAMP,
  encode: encodeTimestampExtension,
  decode: decodeTimestampExtension
};

// node_modules/@msgpack/msgpack/dist.esm/ExtensionCodec.mjs
var ExtensionCodec = class _ExtensionCodec {
  static defaultCodec = new _ExtensionCodec();
  // ensures ExtensionCodecType<X> matches ExtensionCodec<X>
  // this will make type errors a lot more clear
  // eslint-disable-next-line @typescript-eslint/naming-convention
  __brand;
  // built-in extensions
  builtInEncoders = [];
  builtInDecoders = [];
  // custom extensions
  encoders = [];
  decoders = [];
  constructor() {
    this.register(timestampExtension);
  }
  register({ type, encode, decode }) {
    if (type >= 0) {
      this.encoders[type] = encode;
      this.decoders[type] = decode;
    } else {
      const index = -1 - type;
      this.builtInEncoders[index] = encode;
      this.builtInDecoders[index] = decode;
    }
  }
  tryToEncode(object, context) {
    for (let i = 0; i < this.builtInEncoders.length; i++) {
      const encodeExt = this.builtInEncoders[i];
      if (encodeExt != null) {
        const data = encodeExt(object, context);
        if (data != null) {
          const type = -1 - i;
          return new ExtData(type, data);
        }
      }
    }
    for (let i = 0; i < this.encoders.length; i++) {
      const encodeExt = this.encoders[i];
      if (encodeExt != null) {
        const data = encodeExt(object, context);
        if (data != null) {
          const type = i;
          return new ExtData(type, data);
        }
      }
    }
    if (object instanceof ExtData) {
      return object;
    }
    return null;
  }
  decode(data, type, context) {
    const decodeExt = type < 0 ? this.builtInDecoders[-1 - type] : this.decoders[type];
    if (decodeExt) {
      return decodeExt(data, type, context);
    } else {
      return new ExtData(type, data);
    }
  }
};

// node_modules/@msgpack/msgpack/dist.esm/utils/typedArrays.mjs
function isArrayBufferLike(buffer) {
  return buffer instanceof ArrayBuffer || typeof SharedArrayBuffer !== "undefined" && buffer instanceof SharedArrayBuffer;
}
function ensureUint8Array(buffer) {
  if (buffer instanceof Uint8Array) {
    return buffer;
  } else if (ArrayBuffer.isView(buffer)) {
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } else if (isArrayBufferLike(buffer)) {
    return new Uint8Array(buffer);
  } else {
    return Uint8Array.from(buffer);
  }
}

// node_modules/@msgpack/msgpack/dist.esm/Encoder.mjs
var DEFAULT_MAX_DEPTH = 100;
var DEFAULT_INITIAL_BUFFER_SIZE = 2048;
var Encoder = class _Encoder {
  extensionCodec;
  context;
  useBigInt64;
  maxDepth;
  initialBufferSize;
  sortKeys;
  forceFloat32;
  ignoreUndefined;
  forceIntegerToFloat;
  pos;
  view;
  bytes;
  entered = false;
  constructor(options) {
    this.extensionCodec = options?.extensionCodec ?? ExtensionCodec.defaultCodec;
    this.context = options?.context;
    this.useBigInt64 = options?.useBigInt64 ?? false;
    this.maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.initialBufferSize = options?.initialBufferSize ?? DEFAULT_INITIAL_BUFFER_SIZE;
    this.sortKeys = options?.sortKeys ?? false;
    this.forceFloat32 = options?.forceFloat32 ?? false;
    this.ignoreUndefined = options?.ignoreUndefined ?? false;
    this.forceIntegerToFloat = options?.forceIntegerToFloat ?? false;
    this.pos = 0;
    this.view = new DataView(new ArrayBuffer(this.initialBufferSize));
    this.bytes = new Uint8Array(this.view.buffer);
  }
  clone() {
    return new _Encoder({
      extensionCodec: this.extensionCodec,
      context: this.context,
      useBigInt64: this.useBigInt64,
      maxDepth: this.maxDepth,
      initialBufferSize: this.initialBufferSize,
      sortKeys: this.sortKeys,
      forceFloat32: this.forceFloat32,
      ignoreUndefined: this.ignoreUndefined,
      forceIntegerToFloat: this.forceIntegerToFloat
    });
  }
  reinitializeState() {
    this.pos = 0;
  }
  /**
   * This is almost equivalent to {@link Encoder#encode}, but it returns an reference of the encoder's internal buffer and thus much faster than {@link Encoder#encode}.
   *
   * @returns Encodes the object and returns a shared reference the encoder's internal buffer.
   */
  encodeSharedRef(object) {
    if (this.entered) {
      const instance = this.clone();
      return instance.encodeSharedRef(object);
    }
    try {
      this.entered = true;
      this.reinitializeState();
      this.doEncode(object, 1);
      return this.bytes.subarray(0, this.pos);
    } finally {
      this.entered = false;
    }
  }
  /**
   * @returns Encodes the object and returns a copy of the encoder's internal buffer.
   */
  encode(object) {
    if (this.entered) {
      const instance = this.clone();
      return instance.encode(object);
    }
    try {
      this.entered = true;
      this.reinitializeState();
      this.doEncode(object, 1);
      return this.bytes.slice(0, this.pos);
    } finally {
      this.entered = false;
    }
  }
  doEncode(object, depth) {
    if (depth > this.maxDepth) {
      throw new Error(`Too deep objects in depth ${depth}`);
    }
    if (object == null) {
      this.encodeNil();
    } else if (typeof object === "boolean") {
      this.encodeBoolean(object);
    } else if (typeof object === "number") {
      if (!this.forceIntegerToFloat) {
        this.encodeNumber(object);
      } else {
        this.encodeNumberAsFloat(object);
      }
    } else if (typeof object === "string") {
      this.encodeString(object);
    } else if (this.useBigInt64 && typeof object === "bigint") {
      this.encodeBigInt64(object);
    } else {
      this.encodeObject(object, depth);
    }
  }
  ensureBufferSizeToWrite(sizeToWrite) {
    const requiredSize = this.pos + sizeToWrite;
    if (this.view.byteLength < requiredSize) {
      this.resizeBuffer(requiredSize * 2);
    }
  }
  resizeBuffer(newSize) {
    const newBuffer = new ArrayBuffer(newSize);
    const newBytes = new Uint8Array(newBuffer);
    const newView = new DataView(newBuffer);
    newBytes.set(this.bytes);
    this.view = newView;
    this.bytes = newBytes;
  }
  encodeNil() {
    this.writeU8(192);
  }
  encodeBoolean(object) {
    if (object === false) {
      this.writeU8(194);
    } else {
      this.writeU8(195);
    }
  }
  encodeNumber(object) {
    if (!this.forceIntegerToFloat && Number.isSafeInteger(object)) {
      if (object >= 0) {
        if (object < 128) {
          this.writeU8(object);
        } else if (object < 256) {
          this.writeU8(204);
          this.writeU8(object);
        } else if (object < 65536) {
          this.writeU8(205);
          this.writeU16(object);
        } else if (object < 4294967296) {
          this.writeU8(206);
          this.writeU32(object);
        } else if (!this.useBigInt64) {
          this.writeU8(207);
          this.writeU64(object);
        } else {
          this.encodeNumberAsFloat(object);
        }
      } else {
        if (object >= -32) {
          this.writeU8(224 | object + 32);
        } else if (object >= -128) {
          this.writeU8(208);
          this.writeI8(object);
        } else if (object >= -32768) {
          this.writeU8(209);
          this.writeI16(object);
        } else if (object >= -2147483648) {
          this.writeU8(210);
          this.writeI32(object);
        } else if (!this.useBigInt64) {
          this.writeU8(211);
          this.writeI64(object);
        } else {
          this.encodeNumberAsFloat(object);
        }
      }
    } else {
      this.encodeNumberAsFloat(object);
    }
  }
  encodeNumberAsFloat(object) {
    if (this.forceFloat32) {
      this.writeU8(202);
      this.writeF32(object);
    } else {
      this.writeU8(203);
      this.writeF64(object);
    }
  }
  encodeBigInt64(object) {
    if (object >= BigInt(0)) {
      this.writeU8(207);
      this.writeBigUint64(object);
    } else {
      this.writeU8(211);
      this.writeBigInt64(object);
    }
  }
  writeStringHeader(byteLength) {
    if (byteLength < 32) {
      this.writeU8(160 + byteLength);
    } else if (byteLength < 256) {
      this.writeU8(217);
      this.writeU8(byteLength);
    } else if (byteLength < 65536) {
      this.writeU8(218);
      this.writeU16(byteLength);
    } else if (byteLength < 4294967296) {
      this.writeU8(219);
      this.writeU32(byteLength);
    } else {
      throw new Error(`Too long string: ${byteLength} bytes in UTF-8`);
    }
  }
  encodeString(object) {
    const maxHeaderSize = 1 + 4;
    const byteLength = utf8Count(object);
    this.ensureBufferSizeToWrite(maxHeaderSize + byteLength);
    this.writeStringHeader(byteLength);
    utf8Encode(object, this.bytes, this.pos);
    this.pos += byteLength;
  }
  encodeObject(object, depth) {
    const ext = this.extensionCodec.tryToEncode(object, this.context);
    if (ext != null) {
      this.encodeExtension(ext);
    } else if (Array.isArray(object)) {
      this.encodeArray(object, depth);
    } else if (ArrayBuffer.isView(object)) {
      this.encodeBinary(object);
    } else if (typeof object === "object") {
      this.encodeMap(object, depth);
    } else {
      throw new Error(`Unrecognized object: ${Object.prototype.toString.apply(object)}`);
    }
  }
  encodeBinary(object) {
    const size = object.byteLength;
    if (size < 256) {
      this.writeU8(196);
      this.writeU8(size);
    } else if (size < 65536) {
      this.writeU8(197);
      this.writeU16(size);
    } else if (size < 4294967296) {
      this.writeU8(198);
      this.writeU32(size);
    } else {
      throw new Error(`Too large binary: ${size}`);
    }
    const bytes = ensureUint8Array(object);
    this.writeU8a(bytes);
  }
  encodeArray(object, depth) {
    const size = object.length;
    if (size < 16) {
      this.writeU8(144 + size);
    } else if (size < 65536) {
      this.writeU8(220);
      this.writeU16(size);
    } else if (size < 4294967296) {
      this.writeU8(221);
      this.writeU32(size);
    } else {
      throw new Error(`Too large array: ${size}`);
    }
    for (const item of object) {
      this.doEncode(item, depth + 1);
    }
  }
  countWithoutUndefined(object, keys) {
    let count = 0;
    for (const key of keys) {
      if (object[key] !== void 0) {
        count++;
      }
    }
    return count;
  }
  encodeMap(object, depth) {
    const keys = Object.keys(object);
    if (this.sortKeys) {
      keys.sort();
    }
    const size = this.ignoreUndefined ? this.countWithoutUndefined(object, keys) : keys.length;
    if (size < 16) {
      this.writeU8(128 + size);
    } else if (size < 65536) {
      this.writeU8(222);
      this.writeU16(size);
    } else if (size < 4294967296) {
      this.writeU8(223);
      this.writeU32(size);
    } else {
      throw new Error(`Too large map object: ${size}`);
    }
    for (const key of keys) {
      const value = object[key];
      if (!(this.ignoreUndefined && value === void 0)) {
        this.encodeString(key);
        this.doEncode(value, depth + 1);
      }
    }
  }
  encodeExtension(ext) {
    if (typeof ext.data === "function") {
      const data = ext.data(this.pos + 6);
      const size2 = data.length;
      if (size2 >= 4294967296) {
        throw new Error(`Too large extension object: ${size2}`);
      }
      this.writeU8(201);
      this.writeU32(size2);
      this.writeI8(ext.type);
      this.writeU8a(data);
      return;
    }
    const size = ext.data.length;
    if (size === 1) {
      this.writeU8(212);
    } else if (size === 2) {
      this.writeU8(213);
    } else if (size === 4) {
      this.writeU8(214);
    } else if (size === 8) {
      this.writeU8(215);
    } else if (size === 16) {
      this.writeU8(216);
    } else if (size < 256) {
      this.writeU8(199);
      this.writeU8(size);
    } else if (size < 65536) {
      this.writeU8(200);
      this.writeU16(size);
    } else if (size < 4294967296) {
      this.writeU8(201);
      this.writeU32(size);
    } else {
      throw new Error(`Too large extension object: ${size}`);
    }
    this.writeI8(ext.type);
    this.writeU8a(ext.data);
  }
  writeU8(value) {
    this.ensureBufferSizeToWrite(1);
    this.view.setUint8(this.pos, value);
    this.pos++;
  }
  writeU8a(values) {
    const size = values.length;
    this.ensureBufferSizeToWrite(size);
    this.bytes.set(values, this.pos);
    this.pos += size;
  }
  writeI8(value) {
    this.ensureBufferSizeToWrite(1);
    this.view.setInt8(this.pos, value);
    this.pos++;
  }
  writeU16(value) {
    this.ensureBufferSizeToWrite(2);
    this.view.setUint16(this.pos, value);
    this.pos += 2;
  }
  writeI16(value) {
    this.ensureBufferSizeToWrite(2);
    this.view.setInt16(this.pos, value);
    this.pos += 2;
  }
  writeU32(value) {
    this.ensureBufferSizeToWrite(4);
    this.view.setUint32(this.pos, value);
    this.pos += 4;
  }
  writeI32(value) {
    this.ensureBufferSizeToWrite(4);
    this.view.setInt32(this.pos, value);
    this.pos += 4;
  }
  writeF32(value) {
    this.ensureBufferSizeToWrite(4);
    this.view.setFloat32(this.pos, value);
    this.pos += 4;
  }
  writeF64(value) {
    this.ensureBufferSizeToWrite(8);
    this.view.setFloat64(this.pos, value);
    this.pos += 8;
  }
  writeU64(value) {
    this.ensureBufferSizeToWrite(8);
    setUint64(this.view, this.pos, value);
    this.pos += 8;
  }
  writeI64(value) {
    this.ensureBufferSizeToWrite(8);
    setInt64(this.view, this.pos, value);
    this.pos += 8;
  }
  writeBigUint64(value) {
    this.ensureBufferSizeToWrite(8);
    this.view.setBigUint64(this.pos, value);
    this.pos += 8;
  }
  writeBigInt64(value) {
    this.ensureBufferSizeToWrite(8);
    this.view.setBigInt64(this.pos, value);
    this.pos += 8;
  }
};

// node_modules/@msgpack/msgpack/dist.esm/utils/prettyByte.mjs
function prettyByte(byte) {
  return `${byte < 0 ? "-" : ""}0x${Math.abs(byte).toString(16).padStart(2, "0")}`;
}

// node_modules/@msgpack/msgpack/dist.esm/CachedKeyDecoder.mjs
var DEFAULT_MAX_KEY_LENGTH = 16;
var DEFAULT_MAX_LENGTH_PER_KEY = 16;
var CachedKeyDecoder = class {
  hit = 0;
  miss = 0;
  caches;
  maxKeyLength;
  maxLengthPerKey;
  constructor(maxKeyLength = DEFAULT_MAX_KEY_LENGTH, maxLengthPerKey = DEFAULT_MAX_LENGTH_PER_KEY) {
    this.maxKeyLength = maxKeyLength;
    this.maxLengthPerKey = maxLengthPerKey;
    this.caches = [];
    for (let i = 0; i < this.maxKeyLength; i++) {
      this.caches.push([]);
    }
  }
  canBeCached(byteLength) {
    return byteLength > 0 && byteLength <= this.maxKeyLength;
  }
  find(bytes, inputOffset, byteLength) {
    const records = this.caches[byteLength - 1];
    FIND_CHUNK: for (const record of records) {
      const recordBytes = record.bytes;
      for (let j = 0; j < byteLength; j++) {
        if (recordBytes[j] !== bytes[inputOffset + j]) {
          continue FIND_CHUNK;
        }
      }
      return record.str;
    }
    return null;
  }
  store(bytes, value) {
    const records = this.caches[bytes.length - 1];
    const record = { bytes, str: value };
    if (records.length >= this.maxLengthPerKey) {
      records[Math.random() * records.length | 0] = record;
    } else {
      records.push(record);
    }
  }
  decode(bytes, inputOffset, byteLength) {
    const cachedValue = this.find(bytes, inputOffset, byteLength);
    if (cachedValue != null) {
      this.hit++;
      return cachedValue;
    }
    this.miss++;
    const str = utf8DecodeJs(bytes, inputOffset, byteLength);
    const slicedCopyOfBytes = Uint8Array.prototype.slice.call(bytes, inputOffset, inputOffset + byteLength);
    this.store(slicedCopyOfBytes, str);
    return str;
  }
};

// node_modules/@msgpack/msgpack/dist.esm/Decoder.mjs
var STATE_ARRAY = "array";
var STATE_MAP_KEY = "map_key";
var STATE_MAP_VALUE = "map_value";
var mapKeyConverter = (key) => {
  if (typeof key === "string" || typeof key === "number") {
    return key;
  }
  throw new DecodeError("The type of key must be string or number but " + typeof key);
};
var StackPool = class {
  stack = [];
  stackHeadPosition = -1;
  get length() {
    return this.stackHeadPosition + 1;
  }
  top() {
    return this.stack[this.stackHeadPosition];
  }
  pushArrayState(size) {
    const state = this.getUninitializedStateFromPool();
    state.type = STATE_ARRAY;
    state.position = 0;
    state.size = size;
    state.array = new Array(size);
  }
  pushMapState(size) {
    const state = this.getUninitializedStateFromPool();
    state.type = STATE_MAP_KEY;
    state.readCount = 0;
    state.size = size;
    state.map = {};
  }
  getUninitializedStateFromPool() {
    this.stackHeadPosition++;
    if (this.stackHeadPosition === this.stack.length) {
      const partialState = {
        type: void 0,
        size: 0,
        array: void 0,
        position: 0,
        readCount: 0,
        map: void 0,
        key: null
      };
      this.stack.push(partialState);
    }
    return this.stack[this.stackHeadPosition];
  }
  release(state) {
    const topStackState = this.stack[this.stackHeadPosition];
    if (topStackState !== state) {
      throw new Error("Invalid stack state. Released state is not on top of the stack.");
    }
    if (state.type === STATE_ARRAY) {
      const partialState = state;
      partialState.size = 0;
      partialState.array = void 0;
      partialState.position = 0;
      partialState.type = void 0;
    }
    if (state.type === STATE_MAP_KEY || state.type === STATE_MAP_VALUE) {
      const partialState = state;
      partialState.size = 0;
      partialState.map = void 0;
      partialState.readCount = 0;
      partialState.type = void 0;
    }
    this.stackHeadPosition--;
  }
  reset() {
    this.stack.length = 0;
    this.stackHeadPosition = -1;
  }
};
var HEAD_BYTE_REQUIRED = -1;
var EMPTY_VIEW = new DataView(new ArrayBuffer(0));
var EMPTY_BYTES = new Uint8Array(EMPTY_VIEW.buffer);
try {
  EMPTY_VIEW.getInt8(0);
} catch (e) {
  if (!(e instanceof RangeError)) {
    throw new Error("This module is not supported in the current JavaScript engine because DataView does not throw RangeError on out-of-bounds access");
  }
}
var MORE_DATA = new RangeError("Insufficient data");
var sharedCachedKeyDecoder = new CachedKeyDecoder();
var Decoder = class _Decoder {
  extensionCodec;
  context;
  useBigInt64;
  rawStrings;
  maxStrLength;
  maxBinLength;
  maxArrayLength;
  maxMapLength;
  maxExtLength;
  keyDecoder;
  mapKeyConverter;
  totalPos = 0;
  pos = 0;
  view = EMPTY_VIEW;
  bytes = EMPTY_BYTES;
  headByte = HEAD_BYTE_REQUIRED;
  stack = new StackPool();
  entered = false;
  constructor(options) {
    this.extensionCodec = options?.extensionCodec ?? ExtensionCodec.defaultCodec;
    this.context = options?.context;
    this.useBigInt64 = options?.useBigInt64 ?? false;
    this.rawStrings = options?.rawStrings ?? false;
    this.maxStrLength = options?.maxStrLength ?? UINT32_MAX;
    this.maxBinLength = options?.maxBinLength ?? UINT32_MAX;
    this.maxArrayLength = options?.maxArrayLength ?? UINT32_MAX;
    this.maxMapLength = options?.maxMapLength ?? UINT32_MAX;
    this.maxExtLength = options?.maxExtLength ?? UINT32_MAX;
    this.keyDecoder = options?.keyDecoder !== void 0 ? options.keyDecoder : sharedCachedKeyDecoder;
    this.mapKeyConverter = options?.mapKeyConverter ?? mapKeyConverter;
  }
  clone() {
    return new _Decoder({
      extensionCodec: this.extensionCodec,
      context: this.context,
      useBigInt64: this.useBigInt64,
      rawStrings: this.rawStrings,
      maxStrLength: this.maxStrLength,
      maxBinLength: this.maxBinLength,
      maxArrayLength: this.maxArrayLength,
      maxMapLength: this.maxMapLength,
      maxExtLength: this.maxExtLength,
      keyDecoder: this.keyDecoder
    });
  }
  reinitializeState() {
    this.totalPos = 0;
    this.headByte = HEAD_BYTE_REQUIRED;
    this.stack.reset();
  }
  setBuffer(buffer) {
    const bytes = ensureUint8Array(buffer);
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
  }
  appendBuffer(buffer) {
    if (this.headByte === HEAD_BYTE_REQUIRED && !this.hasRemaining(1)) {
      this.setBuffer(buffer);
    } else {
      const remainingData = this.bytes.subarray(this.pos);
      const newData = ensureUint8Array(buffer);
      const newBuffer = new Uint8Array(remainingData.length + newData.length);
      newBuffer.set(remainingData);
      newBuffer.set(newData, remainingData.length);
      this.setBuffer(newBuffer);
    }
  }
  hasRemaining(size) {
    return this.view.byteLength - this.pos >= size;
  }
  createExtraByteError(posToShow) {
    const { view, pos } = this;
    return new RangeError(`Extra ${view.byteLength - pos} of ${view.byteLength} byte(s) found at buffer[${posToShow}]`);
  }
  /**
   * @throws {@link DecodeError}
   * @throws {@link RangeError}
   */
  decode(buffer) {
    if (this.entered) {
      const instance = this.clone();
      return instance.decode(buffer);
    }
    try {
      this.entered = true;
      this.reinitializeState();
      this.setBuffer(buffer);
      const object = this.doDecodeSync();
      if (this.hasRemaining(1)) {
        throw this.createExtraByteError(this.pos);
      }
      return object;
    } finally {
      this.entered = false;
    }
  }
  *decodeMulti(buffer) {
    if (this.entered) {
      const instance = this.clone();
      yield* instance.decodeMulti(buffer);
      return;
    }
    try {
      this.entered = true;
      this.reinitializeState();
      this.setBuffer(buffer);
      while (this.hasRemaining(1)) {
        yield this.doDecodeSync();
      }
    } finally {
      this.entered = false;
    }
  }
  async decodeAsync(stream) {
    if (this.entered) {
      const instance = this.clone();
      return instance.decodeAsync(stream);
    }
    try {
      this.entered = true;
      let decoded = false;
      let object;
      for await (const buffer of stream) {
        if (decoded) {
          this.entered = false;
          throw this.createExtraByteError(this.totalPos);
        }
        this.appendBuffer(buffer);
        try {
          object = this.doDecodeSync();
          decoded = true;
        } catch (e) {
          if (!(e instanceof RangeError)) {
            throw e;
          }
        }
        this.totalPos += this.pos;
      }
      if (decoded) {
        if (this.hasRemaining(1)) {
          throw this.createExtraByteError(this.totalPos);
        }
        return object;
      }
      const { headByte, pos, totalPos } = this;
      throw new RangeError(`Insufficient data in parsing ${prettyByte(headByte)} at ${totalPos} (${pos} in the current buffer)`);
    } finally {
      this.entered = false;
    }
  }
  decodeArrayStream(stream) {
    return this.decodeMultiAsync(stream, true);
  }
  decodeStream(stream) {
    return this.decodeMultiAsync(stream, false);
  }
  async *decodeMultiAsync(stream, isArray) {
    if (this.entered) {
      const instance = this.clone();
      yield* instance.decodeMultiAsync(stream, isArray);
      return;
    }
    try {
      this.entered = true;
      let isArrayHeaderRequired = isArray;
      let arrayItemsLeft = -1;
      for await (const buffer of stream) {
        if (isArray && arrayItemsLeft === 0) {
          throw this.createExtraByteError(this.totalPos);
        }
        this.appendBuffer(buffer);
        if (isArrayHeaderRequired) {
          arrayItemsLeft = this.readArraySize();
          isArrayHeaderRequired = false;
          this.complete();
        }
        try {
          while (true) {
            yield this.doDecodeSync();
            if (--arrayItemsLeft === 0) {
              break;
            }
          }
        } catch (e) {
          if (!(e instanceof RangeError)) {
            throw e;
          }
        }
        this.totalPos += this.pos;
      }
    } finally {
      this.entered = false;
    }
  }
  doDecodeSync() {
    DECODE: while (true) {
      const headByte = this.readHeadByte();
      let object;
      if (headByte >= 224) {
        object = headByte - 256;
      } else if (headByte < 192) {
        if (headByte < 128) {
          object = headByte;
        } else if (headByte < 144) {
          const size = headByte - 128;
          if (size !== 0) {
            this.pushMapState(size);
            this.complete();
            continue DECODE;
          } else {
            object = {};
          }
        } else if (headByte < 160) {
          const size = headByte - 144;
          if (size !== 0) {
            this.pushArrayState(size);
            this.complete();
            continue DECODE;
          } else {
            object = [];
          }
        } else {
          const byteLength = headByte - 160;
          object = this.decodeString(byteLength, 0);
        }
      } else if (headByte === 192) {
        object = null;
      } else if (headByte === 194) {
        object = false;
      } else if (headByte === 195) {
        object = true;
      } else if (headByte === 202) {
        object = this.readF32();
      } else if (headByte === 203) {
        object = this.readF64();
      } else if (headByte === 204) {
        object = this.readU8();
      } else if (headByte === 205) {
        object = this.readU16();
      } else if (headByte === 206) {
        object = this.readU32();
      } else if (headByte === 207) {
        if (this.useBigInt64) {
          object = this.readU64AsBigInt();
        } else {
          object = this.readU64();
        }
      } else if (headByte === 208) {
        object = this.readI8();
      } else if (headByte === 209) {
        object = this.readI16();
      } else if (headByte === 210) {
        object = this.readI32();
      } else if (headByte === 211) {
        if (this.useBigInt64) {
          object = this.readI64AsBigInt();
        } else {
          object = this.readI64();
        }
      } else if (headByte === 217) {
        const byteLength = this.lookU8();
        object = this.decodeString(byteLength, 1);
      } else if (headByte === 218) {
        const byteLength = this.lookU16();
        object = this.decodeString(byteLength, 2);
      } else if (headByte === 219) {
        const byteLength = this.lookU32();
        object = this.decodeString(byteLength, 4);
      } else if (headByte === 220) {
        const size = this.readU16();
        if (size !== 0) {
          this.pushArrayState(size);
          this.complete();
          continue DECODE;
        } else {
          object = [];
        }
      } else if (headByte === 221) {
        const size = this.readU32();
        if (size !== 0) {
          this.pushArrayState(size);
          this.complete();
          continue DECODE;
        } else {
          object = [];
        }
      } else if (headByte === 222) {
        const size = this.readU16();
        if (size !== 0) {
          this.pushMapState(size);
          this.complete();
          continue DECODE;
        } else {
          object = {};
        }
      } else if (headByte === 223) {
        const size = this.readU32();
        if (size !== 0) {
          this.pushMapState(size);
          this.complete();
          continue DECODE;
        } else {
          object = {};
        }
      } else if (headByte === 196) {
        const size = this.lookU8();
        object = this.decodeBinary(size, 1);
      } else if (headByte === 197) {
        const size = this.lookU16();
        object = this.decodeBinary(size, 2);
      } else if (headByte === 198) {
        const size = this.lookU32();
        object = this.decodeBinary(size, 4);
      } else if (headByte === 212) {
        object = this.decodeExtension(1, 0);
      } else if (headByte === 213) {
        object = this.decodeExtension(2, 0);
      } else if (headByte === 214) {
        object = this.decodeExtension(4, 0);
      } else if (headByte === 215) {
        object = this.decodeExtension(8, 0);
      } else if (headByte === 216) {
        object = this.decodeExtension(16, 0);
      } else if (headByte === 199) {
        const size = this.lookU8();
        object = this.decodeExtension(size, 1);
      } else if (headByte === 200) {
        const size = this.lookU16();
        object = this.decodeExtension(size, 2);
      } else if (headByte === 201) {
        const size = this.lookU32();
        object = this.decodeExtension(size, 4);
      } else {
        throw new DecodeError(`Unrecognized type byte: ${prettyByte(headByte)}`);
      }
      this.complete();
      const stack = this.stack;
      while (stack.length > 0) {
        const state = stack.top();
        if (state.type === STATE_ARRAY) {
          state.array[state.position] = object;
          state.position++;
          if (state.position === state.size) {
            object = state.array;
            stack.release(state);
          } else {
            continue DECODE;
          }
        } else if (state.type === STATE_MAP_KEY) {
          if (object === "__proto__") {
            throw new DecodeError("The key __proto__ is not allowed");
          }
          state.key = this.mapKeyConverter(object);
          state.type = STATE_MAP_VALUE;
          continue DECODE;
        } else {
          state.map[state.key] = object;
          state.readCount++;
          if (state.readCount === state.size) {
            object = state.map;
            stack.release(state);
          } else {
            state.key = null;
            state.type = STATE_MAP_KEY;
            continue DECODE;
          }
        }
      }
      return object;
    }
  }
  readHeadByte() {
    if (this.headByte === HEAD_BYTE_REQUIRED) {
      this.headByte = this.readU8();
    }
    return this.headByte;
  }
  complete() {
    this.headByte = HEAD_BYTE_REQUIRED;
  }
  readArraySize() {
    const headByte = this.readHeadByte();
    switch (headByte) {
      case 220:
        return this.readU16();
      case 221:
        return this.readU32();
      default: {
        if (headByte < 160) {
          return headByte - 144;
        } else {
          throw new DecodeError(`Unrecognized array type byte: ${prettyByte(headByte)}`);
        }
      }
    }
  }
  pushMapState(size) {
    if (size > this.maxMapLength) {
      throw new DecodeError(`Max length exceeded: map length (${size}) > maxMapLengthLength (${this.maxMapLength})`);
    }
    this.stack.pushMapState(size);
  }
  pushArrayState(size) {
    if (size > this.maxArrayLength) {
      throw new DecodeError(`Max length exceeded: array length (${size}) > maxArrayLength (${this.maxArrayLength})`);
    }
    this.stack.pushArrayState(size);
  }
  decodeString(byteLength, headerOffset) {
    if (!this.rawStrings || this.stateIsMapKey()) {
      return this.decodeUtf8String(byteLength, headerOffset);
    }
    return this.decodeBinary(byteLength, headerOffset);
  }
  /**
   * @throws {@link RangeError}
   */
  decodeUtf8String(byteLength, headerOffset) {
    if (byteLength > this.maxStrLength) {
      throw new DecodeError(`Max length exceeded: UTF-8 byte length (${byteLength}) > maxStrLength (${this.maxStrLength})`);
    }
    if (this.bytes.byteLength < this.pos + headerOffset + byteLength) {
      throw MORE_DATA;
    }
    const offset = this.pos + headerOffset;
    let object;
    if (this.stateIsMapKey() && this.keyDecoder?.canBeCached(byteLength)) {
      object = this.keyDecoder.decode(this.bytes, offset, byteLength);
    } else {
      object = utf8Decode(this.bytes, offset, byteLength);
    }
    this.pos += headerOffset + byteLength;
    return object;
  }
  stateIsMapKey() {
    if (this.stack.length > 0) {
      const state = this.stack.top();
      return state.type === STATE_MAP_KEY;
    }
    return false;
  }
  /**
   * @throws {@link RangeError}
   */
  decodeBinary(byteLength, headOffset) {
    if (byteLength > this.maxBinLength) {
      throw new DecodeError(`Max length exceeded: bin length (${byteLength}) > maxBinLength (${this.maxBinLength})`);
    }
    if (!this.hasRemaining(byteLength + headOffset)) {
      throw MORE_DATA;
    }
    const offset = this.pos + headOffset;
    const object = this.bytes.subarray(offset, offset + byteLength);
    this.pos += headOffset + byteLength;
    return object;
  }
  decodeExtension(size, headOffset) {
    if (size > this.maxExtLength) {
      throw new DecodeError(`Max length exceeded: ext length (${size}) > maxExtLength (${this.maxExtLength})`);
    }
    const extType = this.view.getInt8(this.pos + headOffset);
    const data = this.decodeBinary(
      size,
      headOffset + 1
      /* extType */
    );
    return this.extensionCodec.decode(data, extType, this.context);
  }
  lookU8() {
    return this.view.getUint8(this.pos);
  }
  lookU16() {
    return this.view.getUint16(this.pos);
  }
  lookU32() {
    return this.view.getUint32(this.pos);
  }
  readU8() {
    const value = this.view.getUint8(this.pos);
    this.pos++;
    return value;
  }
  readI8() {
    const value = this.view.getInt8(this.pos);
    this.pos++;
    return value;
  }
  readU16() {
    const value = this.view.getUint16(this.pos);
    this.pos += 2;
    return value;
  }
  readI16() {
    const value = this.view.getInt16(this.pos);
    this.pos += 2;
    return value;
  }
  readU32() {
    const value = this.view.getUint32(this.pos);
    this.pos += 4;
    return value;
  }
  readI32() {
    const value = this.view.getInt32(this.pos);
    this.pos += 4;
    return value;
  }
  readU64() {
    const value = getUint64(this.view, this.pos);
    this.pos += 8;
    return value;
  }
  readI64() {
    const value = getInt64(this.view, this.pos);
    this.pos += 8;
    return value;
  }
  readU64AsBigInt() {
    const value = this.view.getBigUint64(this.pos);
    this.pos += 8;
    return value;
  }
  readI64AsBigInt() {
    const value = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return value;
  }
  readF32() {
    const value = this.view.getFloat32(this.pos);
    this.pos += 4;
    return value;
  }
  readF64() {
    const value = this.view.getFloat64(this.pos);
    this.pos += 8;
    return value;
  }
};

// src/framing.ts
var HEADER_SIZE = 4;
var encoder = new Encoder({ ignoreUndefined: true, useBigInt64: true });
var decoder = new Decoder();
function encodeFrame(message) {
  const body = encoder.encode(message);
  const frame = new Uint8Array(HEADER_SIZE + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, false);
  frame.set(body, HEADER_SIZE);
  return frame;
}
function decodeBody(body) {
  return decoder.decode(body);
}
var FrameReader = class {
  constructor(maxFrame = 1 << 30) {
    this.maxFrame = maxFrame;
  }
  maxFrame;
  chunks = [];
  size = 0;
  feed(chunk) {
    this.chunks.push(chunk);
    this.size += chunk.length;
    const bodies = [];
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
  peek(n) {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, n);
  }
  take(n) {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0];
    const out = first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.size -= n;
    return out;
  }
};

// src/answers.ts
var MAX_DEPTH = 62;
var MAX_ERROR = 4e3;
var KINDS = /* @__PURE__ */ new Set(["allow", "deny", "ask", "continue"]);
var FIELDS = /* @__PURE__ */ new Set(["decision", "reason", "injection", "modifiedInput", "modifiedOutput", "agentOutput"]);
var INT64_MIN = -(2n ** 63n);
var UINT64_MAX = 2n ** 64n - 1n;
function describe(err) {
  let text;
  try {
    if (err instanceof Error) text = err.message ? `${err.name}: ${err.message}` : err.name;
    else text = `thrown ${typeof err}: ${String(err)}`;
  } catch {
    text = "the thrown value could not be read";
  }
  return clip(text, MAX_ERROR);
}
function clip(text, limit) {
  return text.length <= limit ? text : text.slice(0, limit - 3) + "...";
}
function unencodable(value, path = "decision", depth = 0, seen = /* @__PURE__ */ new Set()) {
  if (depth > MAX_DEPTH) return `${path} is nested deeper than ${MAX_DEPTH} levels`;
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return null;
    case "number":
      return null;
    case "bigint":
      return value < INT64_MIN || value > UINT64_MAX ? `${path} is an integer outside 64 bits` : null;
    case "function":
    case "symbol":
      return `${path} is a ${typeof value}, which msgpack cannot carry`;
    case "object": {
      if (value === null || value instanceof Uint8Array) return null;
      if (seen.has(value)) return `${path} refers back to itself (a cycle)`;
      seen.add(value);
      try {
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) {
            const bad = unencodable(value[i], `${path}[${i}]`, depth + 1, seen);
            if (bad) return bad;
          }
          return null;
        }
        if (value instanceof Map || value instanceof Set || value instanceof Date) {
          return `${path} is a ${value.constructor.name}; answer plain objects, arrays and scalars`;
        }
        for (const [k, v] of Object.entries(value)) {
          const bad = unencodable(v, `${path}.${k}`, depth + 1, seen);
          if (bad) return bad;
        }
        return null;
      } finally {
        seen.delete(value);
      }
    }
    default:
      return `${path} has a type msgpack cannot carry`;
  }
}
function invalidDecision(value) {
  if (value === null || value === void 0) return null;
  if (typeof value !== "object" || Array.isArray(value)) return `answered ${Array.isArray(value) ? "an array" : typeof value}, not a HookDecision object or null`;
  const d = value;
  const unknown = Object.keys(d).filter((key) => !FIELDS.has(key) && d[key] !== void 0);
  if (unknown.length) {
    return `answered unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => JSON.stringify(clip(key, 100))).join(", ")}; a HookDecision has only ${[...FIELDS].join(", ")}`;
  }
  if (d.decision !== void 0 && d.decision !== null && !KINDS.has(d.decision)) {
    return `answered decision ${JSON.stringify(d.decision)}; expected allow, deny, ask, continue or null`;
  }
  for (const key of ["reason", "injection"]) {
    if (d[key] !== void 0 && d[key] !== null && typeof d[key] !== "string") return `answered a ${key} that is not text`;
  }
  const mi = d.modifiedInput;
  if (mi !== void 0 && mi !== null && (typeof mi !== "object" || Array.isArray(mi))) return "answered a modifiedInput that is not an object";
  const ao = d.agentOutput;
  if (ao !== void 0 && ao !== null && (typeof ao !== "object" || Array.isArray(ao))) return "answered an agentOutput that is not an object";
  return null;
}
function pick(d) {
  const out = {};
  if (d.decision !== void 0) out.decision = d.decision;
  if (d.reason !== void 0) out.reason = d.reason;
  if (d.injection !== void 0) out.injection = d.injection;
  if (d.modifiedInput !== void 0) out.modifiedInput = d.modifiedInput;
  if (d.modifiedOutput !== void 0) out.modifiedOutput = d.modifiedOutput;
  if (d.agentOutput !== void 0) out.agentOutput = d.agentOutput;
  return out;
}
function failure(call, hook, what) {
  return encodeFrame({ type: "invoke_result", call, error: clip(`handler ${JSON.stringify(clip(hook, 200))} ${what}`, MAX_ERROR) });
}
function answerFrame(call, hook, outcome2, maxFrame) {
  if ("error" in outcome2) return failure(call, hook, `failed: ${describe(outcome2.error)}`);
  const value = outcome2.value ?? null;
  const bad = invalidDecision(value) ?? unencodable(value);
  if (bad) return failure(call, hook, bad);
  let frame;
  try {
    frame = encodeFrame({ type: "invoke_result", call, decision: value === null ? null : pick(value) });
  } catch (err) {
    return failure(call, hook, `answered a value msgpack cannot carry (${describe(err)})`);
  }
  if (maxFrame !== void 0 && frame.length - HEADER_SIZE > maxFrame) {
    return failure(call, hook, `answered ${frame.length - HEADER_SIZE} bytes, over the daemon's frame limit of ${maxFrame} bytes`);
  }
  return frame;
}

// src/connection.ts
import { createConnection } from "node:net";

// src/errors.ts
var HookdError = class extends Error {
  code;
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = "HookdError";
    this.code = code;
  }
};
var DaemonNotRunning = class extends HookdError {
  path;
  constructor(path, why) {
    super("not_running", `hookd is not running (nothing listens on ${path}: ${why})`);
    this.name = "DaemonNotRunning";
    this.path = path;
  }
};
var DaemonNotTrusted = class extends HookdError {
  constructor(message) {
    super("untrusted_daemon", message);
    this.name = "DaemonNotTrusted";
  }
};
var ConnectionLost = class extends HookdError {
  constructor(message) {
    super("connection_lost", message);
    this.name = "ConnectionLost";
  }
};

// src/paths.ts
import { lstatSync, readlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
function defaultSocketPath(env = process.env) {
  if (env.HOOKD_SOCKET) return env.HOOKD_SOCKET;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, "hookd", "hookd.sock");
  return join("/tmp", `hookd-${uid()}`, "hookd.sock");
}
function uid() {
  return typeof process.getuid === "function" ? process.getuid() : -1;
}
var FIX = "remove it, or set XDG_RUNTIME_DIR (or HOOKD_SOCKET) to a directory only you can write";
function checkPath(path) {
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
    }
    throw new DaemonNotTrusted(
      `${directory} is a symbolic link (to ${target}), not a directory: another user may be redirecting hookd's socket; ${FIX}`
    );
  }
  if (st.uid !== me && st.uid !== 0) {
    throw new DaemonNotTrusted(`${directory} is owned by uid ${st.uid}, not you (uid ${me}): another user may be impersonating hookd; ${FIX}`);
  }
  if (st.mode & 18) {
    throw new DaemonNotTrusted(
      `${directory} is writable by group or others (mode ${(st.mode & 4095).toString(8)}): anyone who can write there can replace hookd's socket; run \`chmod go-w ${directory}\`, or ${FIX}`
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

// src/connection.ts
var PROTOCOL_VERSION = 1;
var Connection = class _Connection {
  constructor(socket, path, onUnasked, onClose) {
    this.path = path;
    this.onUnasked = onUnasked;
    this.onClose = onClose;
    this.socket = socket;
    socket.on("data", (chunk) => this.data(chunk));
    socket.on("error", (err) => this.lose(new ConnectionLost(`connection to ${path} failed: ${err.message}`)));
    socket.on("close", () => this.lose(new ConnectionLost("the connection to the daemon was lost; the call's outcome is unknown")));
  }
  path;
  onUnasked;
  onClose;
  socket;
  welcome;
  closed = false;
  waiting = /* @__PURE__ */ new Map();
  reader = new FrameReader();
  lostWith;
  /** Connect to `path` (after checking it is this user's), then send hello and wait for the welcome. */
  static async open(path, name, nextId, onUnasked, onClose, onSocket) {
    checkPath(path);
    const socket = await new Promise((resolve2, reject) => {
      const s = createConnection({ path });
      onSocket?.(s);
      const fail = (err) => {
        s.destroy();
        if (err.code === "ENOENT" || err.code === "ECONNREFUSED") reject(new DaemonNotRunning(path, err.code));
        else reject(new ConnectionLost(`cannot connect to ${path}: ${err.message}`));
      };
      s.once("error", fail);
      s.once("close", () => reject(new ConnectionLost(`the connection to ${path} was closed before it was greeted`)));
      s.once("connect", () => {
        s.off("error", fail);
        resolve2(s);
      });
    });
    const conn = new _Connection(socket, path, onUnasked, onClose);
    const reply = await conn.request({ type: "hello", id: nextId(), protocol: PROTOCOL_VERSION, client: name, pid: process.pid });
    if (reply.type === "error") {
      conn.close();
      throw new HookdError(String(reply.code), String(reply.message));
    }
    conn.welcome = reply;
    return conn;
  }
  /** Send one request and wait for the reply with its id. */
  request(message) {
    if (this.closed) return Promise.reject(this.lostWith ?? new ConnectionLost("the connection is closed"));
    const frame = encodeFrame(message);
    const limit = this.welcome?.limits.max_frame;
    if (limit !== void 0 && frame.length - 4 > limit) {
      return Promise.reject(
        new HookdError("frame_too_large", `the ${message.type} request is ${frame.length - 4} bytes, over the daemon's frame limit of ${limit} bytes; nothing was sent`)
      );
    }
    return new Promise((resolve2, reject) => {
      this.waiting.set(message.id, { resolve: resolve2, reject });
      this.socket.write(frame);
    });
  }
  /** Send a frame that gets no reply (an invoke_result). */
  send(frame) {
    if (!this.closed) this.socket.write(frame);
  }
  close() {
    this.socket.destroy();
    this.lose(new ConnectionLost("the client was closed"));
  }
  data(chunk) {
    let bodies;
    try {
      bodies = this.reader.feed(chunk);
    } catch (err) {
      this.socket.destroy();
      this.lose(new ConnectionLost(`connection to ${this.path} failed: ${err.message}`));
      return;
    }
    for (const body of bodies) {
      let frame;
      try {
        frame = decodeBody(body);
      } catch (err) {
        this.socket.destroy();
        this.lose(new ConnectionLost(`the daemon sent a frame that is not msgpack: ${err.message}`));
        return;
      }
      const id = typeof frame.id === "number" ? frame.id : 0;
      const waiter = id !== 0 ? this.waiting.get(id) : void 0;
      if (waiter) {
        this.waiting.delete(id);
        waiter.resolve(frame);
      } else if (id === 0 && frame.type === "error" && this.waiting.size) {
        this.lostWith = new HookdError(String(frame.code), String(frame.message));
      } else {
        this.onUnasked(frame);
      }
    }
  }
  lose(err) {
    if (this.closed) return;
    this.closed = true;
    const reason = this.lostWith ?? err;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of waiting) w.reject(reason);
    this.onClose(this);
  }
};

// src/sessions.ts
var Book = class {
  sessions = /* @__PURE__ */ new Map();
  served = /* @__PURE__ */ new Map();
  handles = /* @__PURE__ */ new Map();
  nextCb = 1;
  nextAlias = 2;
  get serving() {
    return this.served.size > 0;
  }
  /** The wire form of one hook; a callback hook's handler gets a number and is served from now on. */
  entryFor(hook) {
    if ("handler" in hook) {
      if (typeof hook.handler !== "function") throw new TypeError("a callback hook's handler must be a function");
      const cb = this.nextCb++;
      this.served.set(cb, hook.handler);
      const spec = {
        cb,
        name: hook.name ?? (hook.handler.name || `callback-${cb}`),
        point: hook.point,
        type: hook.type ?? "decision"
      };
      if (hook.priority !== void 0) spec.priority = hook.priority;
      if (hook.timeout !== void 0) spec.timeout = hook.timeout;
      if (hook.on_error !== void 0) spec.on_error = hook.on_error;
      return { kind: "callback", spec };
    }
    return { kind: "command", spec: hook };
  }
  /** Stop serving the handlers of entries the daemon refused. */
  dropUnrecorded(entries) {
    for (const e of entries) if (e.kind === "callback") this.served.delete(e.spec.cb);
  }
  /** Record an attach the daemon accepted; returns the handles the caller gets. */
  attached(session, project, entries, handles) {
    let rec = this.sessions.get(session);
    if (!rec) {
      rec = { project, entries: [] };
      this.sessions.set(session, rec);
    } else if (project !== null) {
      rec.project = project;
    }
    const out = [];
    entries.forEach((wire, i) => {
      const theirs = handles[i] ?? "";
      const entry = { wire, handle: this.unique(theirs), current: theirs };
      rec.entries.push(entry);
      this.handles.set(entry.handle, { session, entry });
      out.push(entry.handle);
    });
    return out;
  }
  /** The requests that re-create every recorded session, in order. */
  restoreRequests(nextId) {
    return [...this.sessions.entries()].map(([session, rec]) => ({
      type: "attach_hooks",
      id: nextId(),
      session,
      ...rec.project !== null ? { project: rec.project } : {},
      hooks: rec.entries.map((e) => e.wire),
      fresh: true
    }));
  }
  /** Map a restored session's new handles onto the recorded ones ("" when the daemon gave none: gone). */
  restored(session, handles) {
    const rec = this.sessions.get(session);
    if (!rec) return;
    rec.entries.forEach((entry, i) => {
      entry.current = handles[i] ?? "";
    });
  }
  /** The daemon's handle now for the caller's `handle`, "" if its hook is gone, or `handle` if unknown. */
  current(handle) {
    const known = this.handles.get(handle);
    return known ? known.entry.current : handle;
  }
  forgetHandle(handle) {
    const known = this.handles.get(handle);
    if (!known) return;
    this.handles.delete(handle);
    const rec = this.sessions.get(known.session);
    if (rec) rec.entries = rec.entries.filter((e) => e !== known.entry);
    if (known.entry.wire.kind === "callback") this.served.delete(known.entry.wire.spec.cb);
  }
  forgetSession(session) {
    const rec = this.sessions.get(session);
    if (!rec) return;
    this.sessions.delete(session);
    for (const entry of rec.entries) {
      this.handles.delete(entry.handle);
      if (entry.wire.kind === "callback") this.served.delete(entry.wire.spec.cb);
    }
  }
  unique(handle) {
    if (!this.handles.has(handle)) return handle;
    for (; ; ) {
      const alias = `${handle}~${this.nextAlias++}`;
      if (!this.handles.has(alias)) return alias;
    }
  }
};

// src/subscription.ts
var Subscription = class {
  constructor(path, name, options, onEnd) {
    this.path = path;
    this.name = name;
    this.options = options;
    this.onEnd = onEnd;
    this.started = this.start(true);
    this.started.catch(() => void 0);
  }
  path;
  name;
  options;
  onEnd;
  /** The `subscribed` reply of the current connection, once it came. */
  subscribed;
  items = [];
  waiter;
  ended = false;
  failure;
  conn;
  lastSeq;
  nextId = 1;
  started;
  /** Resolves with the `subscribed` reply (or rejects with why the subscription failed). */
  ready() {
    return this.started;
  }
  close() {
    this.ended = true;
    this.conn?.close();
    this.wake();
    this.onEnd();
  }
  async *[Symbol.asyncIterator]() {
    for (; ; ) {
      const item = this.items.shift();
      if (item) {
        yield item;
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return;
      await new Promise((resolve2) => {
        this.waiter = { resolve: resolve2 };
      });
    }
  }
  async start(first) {
    const o = this.options;
    const request = { type: "subscribe", id: 0 };
    if (o.points) request.points = o.points;
    if (o.sessions) request.sessions = o.sessions;
    if (o.projects) request.projects = o.projects;
    if (this.lastSeq !== void 0) request.since_seq = this.lastSeq + 1;
    else if (o.sinceSeq !== void 0) request.since_seq = o.sinceSeq;
    else if (o.sinceAge !== void 0) request.since_age = o.sinceAge;
    if (o.follow === false) request.follow = false;
    if (o.queue !== void 0) request.queue = o.queue;
    if (o.queueBytes !== void 0) request.queue_bytes = o.queueBytes;
    const conn = await this.openRetrying(first);
    this.conn = conn;
    request.id = this.nextId++;
    const reply = await conn.request(request);
    if (reply.type === "error") {
      conn.close();
      const err = new HookdError(String(reply.code), String(reply.message));
      this.fail(err);
      throw err;
    }
    this.subscribed = reply;
    return reply;
  }
  async openRetrying(first) {
    let delay = 10;
    for (; ; ) {
      try {
        return await Connection.open(
          this.path,
          this.name,
          () => this.nextId++,
          (frame) => this.frame(frame),
          (c) => this.lost(c)
        );
      } catch (err) {
        if (first || this.ended || err instanceof DaemonNotTrusted || !(err instanceof HookdError)) {
          this.fail(err);
          throw err;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 250);
      }
    }
  }
  frame(frame) {
    if (frame.type === "event") {
      this.lastSeq = Number(frame.seq);
      this.push(withDefaults(frame));
    } else if (frame.type === "gap") {
      this.push({ type: "gap", missed: Number(frame.missed), first: Number(frame.first), last: Number(frame.last), reason: frame.reason === "history" ? "history" : "overflow" });
    } else if (frame.type === "live") {
      this.push({ type: "live", seq: Number(frame.seq) });
      if (this.options.follow === false) {
        this.ended = true;
        this.conn?.close();
        this.onEnd();
      }
    }
  }
  lost(conn) {
    if (conn !== this.conn || this.ended) return;
    if (this.options.resume === false || this.options.follow === false) {
      this.fail(new HookdError("connection_lost", "the event stream's connection was lost"));
      return;
    }
    this.start(false).catch(() => void 0);
  }
  fail(err) {
    this.failure = err;
    this.ended = true;
    this.wake();
    this.onEnd();
  }
  push(item) {
    this.items.push(item);
    this.wake();
  }
  wake() {
    const w = this.waiter;
    this.waiter = void 0;
    w?.resolve();
  }
};
function withDefaults(f) {
  return {
    type: "event",
    seq: Number(f.seq),
    time: Number(f.time),
    kind: f.kind,
    point: String(f.point),
    session: f.session ?? null,
    project: f.project ?? null,
    payload: f.payload ?? {},
    decision: f.decision ?? null,
    reason: f.reason ?? null,
    decided_by: f.decided_by ?? null,
    errors: Number(f.errors ?? 0),
    duration: f.duration ?? null,
    hooks: f.hooks ?? []
  };
}

// src/client.ts
var Client = class _Client {
  path;
  name;
  reconnect;
  /** The daemon's welcome on the current connection. */
  welcome;
  /** Sessions the last reconnect could not restore, one error each. */
  restoreErrors = [];
  conn;
  connecting;
  opening;
  // the socket of a connection not greeted yet
  book = new Book();
  nextIdValue = 1;
  closing = false;
  subscriptions = /* @__PURE__ */ new Set();
  constructor(options = {}) {
    this.path = options.path ?? defaultSocketPath();
    this.name = options.name ?? defaultName();
    this.reconnect = options.reconnect ?? 10;
  }
  /** A connected client. */
  static async connect(options = {}) {
    const client = new _Client(options);
    await client.open();
    return client;
  }
  /** Connect (or reconnect) now; resolves with the daemon's welcome. */
  async open() {
    this.closing = false;
    const conn = await this.ready();
    return conn.welcome;
  }
  /** Run the observers of `point`; with `wait`, resolve once they finished (their failures in `errors`). */
  async emit(point, payload = {}, options = {}) {
    const reply = await this.call({ type: "emit", id: 0, point, payload, ...scope(options), ...options.wait ? { wait: true } : {} });
    return { observers: num(reply.observers), errors: reply.errors ?? [] };
  }
  /**
   * Run the decision hooks of `point` and resolve with their folded outcome; with `trace`, each hook's account in `trace`.
   * `timeout`: the seconds you will wait for the outcome; every wait of the call inside hookd (hook timeouts, an approval)
   * ends before it, so a fail-closed guard's deny reaches you in time.
   */
  async decide(point, payload = {}, options = {}) {
    const extra = {};
    if (options.trace) extra.trace = true;
    if (options.timeout !== void 0 && options.timeout > 0) extra.timeout = options.timeout;
    const reply = await this.call({ type: "decide", id: 0, point, payload, ...scope(options), ...extra });
    return outcome(reply);
  }
  /** Per hook, point and session counts and durations, over the daemon's life and the last `window` seconds. */
  async stats(window) {
    const reply = await this.call({ type: "stats", id: 0, ...window !== void 0 ? { window } : {} });
    return {
      since: Number(reply.since),
      window: Number(reply.window),
      enabled: reply.enabled !== false,
      hooks: reply.hooks ?? [],
      points: reply.points ?? [],
      sessions: reply.sessions ?? []
    };
  }
  /**
   * Attach `session` (claiming it for this connection) with hooks: command hooks (HookSpec) and hooks served
   * by this program's own functions (`{point, handler, type?, name?, priority?, timeout?, on_error?}`).
   * Resolves with one handle per hook, in order; the handles stay valid across reconnects.
   */
  async attachSession(session, options = {}) {
    const entries = (options.hooks ?? []).map((h) => this.book.entryFor(h));
    const project = options.project ?? null;
    const message = entries.every((e) => e.kind === "command") ? { type: "attach_session", id: 0, session, hooks: entries.map((e) => e.spec) } : { type: "attach_hooks", id: 0, session, hooks: entries };
    if (project !== null) message.project = project;
    let reply;
    try {
      reply = await this.call(message);
    } catch (err) {
      this.book.dropUnrecorded(entries);
      throw err;
    }
    return this.book.attached(session, project, entries, reply.handles ?? []);
  }
  /** Remove the session and its hooks; resolves with how many hooks were removed. */
  async disposeSession(session) {
    try {
      const reply = await this.call({ type: "dispose_session", id: 0, session });
      return num(reply.count);
    } finally {
      this.book.forgetSession(session);
    }
  }
  /** Remove one hook by the handle attachSession (or a raw register) gave. */
  async unregister(handle) {
    const current = this.book.current(handle);
    if (current === "") {
      this.book.forgetHandle(handle);
      throw new HookdError("stale_handle", `hook ${handle} is gone: its session could not be restored on the restarted daemon`);
    }
    try {
      await this.call({ type: "unregister", id: 0, handle: current });
    } finally {
      this.book.forgetHandle(handle);
    }
  }
  /** Any other request of docs/protocol.md, as a raw frame (`id` is set by the client); an error reply throws. */
  async request(message) {
    return this.call({ ...message, id: 0 });
  }
  /** The event stream on a connection of its own: `for await (const item of client.subscribe({...}))`. */
  subscribe(options = {}) {
    const sub = new Subscription(this.path, this.name, options, () => this.subscriptions.delete(sub));
    this.subscriptions.add(sub);
    return sub;
  }
  /** Close the connection (the daemon disposes this client's sessions after its grace period) and every subscription. */
  async close() {
    this.closing = true;
    for (const sub of [...this.subscriptions]) sub.close();
    const conn = this.conn;
    this.conn = void 0;
    conn?.close();
    this.opening?.destroy();
    await this.connecting?.catch(() => void 0);
  }
  nextId = () => this.nextIdValue++;
  async call(message) {
    for (let attempt = 1; ; attempt++) {
      const conn = await this.ready();
      if (conn.closed && attempt === 1) continue;
      const reply = await conn.request({ ...message, id: this.nextId() });
      if (reply.type === "error") throw new HookdError(String(reply.code), String(reply.message));
      return reply;
    }
  }
  /** The current connection, greeted and restored; opening one when needed. */
  ready() {
    if (this.conn && !this.conn.closed) return Promise.resolve(this.conn);
    if (this.closing) return Promise.reject(new ConnectionLost("the client was closed"));
    if (!this.connecting) {
      const first = this.welcome === void 0;
      this.connecting = this.establish(first ? 0 : this.reconnect).finally(() => {
        this.connecting = void 0;
      });
    }
    return this.connecting;
  }
  /** Open, greet and restore, retrying with capped backoff for `budget` seconds (Infinity: until closed). */
  async establish(budget) {
    const deadline = Date.now() + budget * 1e3;
    let delay = 10;
    for (; ; ) {
      try {
        return await this.openOnce();
      } catch (err) {
        const retryable = err instanceof DaemonNotRunning || err instanceof ConnectionLost;
        if (!retryable || this.closing || Date.now() + delay > deadline) {
          if (retryable && budget > 0 && err instanceof DaemonNotRunning) throw new DaemonNotRunning(this.path, `not back after ${budget} s`);
          throw err;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 250);
      }
    }
  }
  async openOnce() {
    let conn;
    try {
      conn = await Connection.open(
        this.path,
        this.name,
        this.nextId,
        (frame) => this.unasked(conn, frame),
        (c) => this.lost(c),
        (socket) => {
          this.opening = socket;
        }
      );
    } finally {
      this.opening = void 0;
    }
    if (this.closing) {
      conn.close();
      throw new ConnectionLost("the client was closed");
    }
    const requests = this.book.restoreRequests(this.nextId);
    const errors = [];
    await Promise.all(
      requests.map(async (req) => {
        const reply = await conn.request(req);
        this.book.restored(req.session, reply.type === "attached" ? reply.handles ?? [] : []);
        if (reply.type === "error") errors.push(new HookdError(String(reply.code), `restoring session ${JSON.stringify(req.session)}: ${String(reply.message)}`));
      })
    );
    this.restoreErrors = errors;
    this.welcome = conn.welcome;
    this.conn = conn;
    return conn;
  }
  lost(conn) {
    if (conn !== this.conn) return;
    this.conn = void 0;
    if (this.book.serving && !this.closing && !this.connecting) {
      this.connecting = this.establish(Infinity).finally(() => {
        this.connecting = void 0;
      });
      this.connecting.catch(() => void 0);
    }
  }
  unasked(conn, frame) {
    if (frame.type !== "invoke") return;
    const call = num(frame.call);
    const hook = String(frame.hook ?? "");
    const handler = this.book.served.get(num(frame.cb));
    const maxFrame = conn.welcome?.limits.max_frame;
    if (!handler) {
      conn.send(answerFrame(call, hook, { error: new Error(`this client serves no handler number ${String(frame.cb)}`) }, maxFrame));
      return;
    }
    const context = {
      point: String(frame.point),
      hook,
      kind: frame.kind === "observer" ? "observer" : "decision",
      session: frame.session ?? null,
      project: frame.project ?? null,
      replay: frame.replay === true
    };
    const payload = frame.payload ?? {};
    new Promise((resolve2) => resolve2(handler(payload, context))).then(
      (value) => conn.send(answerFrame(call, hook, { value: context.kind === "observer" ? null : value }, maxFrame)),
      (error) => conn.send(answerFrame(call, hook, { error }, maxFrame))
    );
  }
};
function defaultName() {
  const script = process.argv[1];
  return script ? basename(script) : "node";
}
function scope(options) {
  const out = {};
  if (options.session !== void 0) out.session = options.session;
  if (options.project !== void 0) out.project = options.project;
  return out;
}
function num(value) {
  return typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : 0;
}
function outcome(reply) {
  return {
    decision: reply.decision ?? null,
    reason: reply.reason ?? null,
    injection: reply.injection ?? null,
    modifiedInput: reply.modifiedInput ?? null,
    modifiedOutput: reply.modifiedOutput ?? null,
    decided_by: reply.decided_by ?? null,
    errors: reply.errors ?? [],
    not_run: reply.not_run ?? [],
    trace: reply.trace ?? null
  };
}
export {
  Client,
  ConnectionLost,
  DaemonNotRunning,
  DaemonNotTrusted,
  FrameReader,
  HookdError,
  Subscription,
  checkPath,
  decodeBody,
  defaultSocketPath,
  encodeFrame
};
