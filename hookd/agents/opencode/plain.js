// A value hookd cannot be handed (a cycle, nesting past what JSON.stringify can walk): never sent as something else.
class Unsendable extends Error {}

// JSON.stringify writes a lone UTF-16 surrogate (a model can produce one) as an escape, and only a lone one: each
// becomes U+FFFD, as hookd reads agents' input, unless its backslash is itself escaped (then it is text).
const LONE_SURROGATE = /(\\+)(u[dD][89a-fA-F][0-9a-fA-F]{2})/g;

function plain(value) {
  // What msgpack can carry: functions and class instances become what JSON makes of them, lone surrogates U+FFFD.
  let text;
  try {
    text = JSON.stringify(value ?? {}, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  } catch (err) {
    throw new Unsendable(`it cannot be read (${err?.message ?? err})`);
  }
  if (text === undefined) return {};
  return JSON.parse(text.replace(LONE_SURROGATE, (m, slashes, code) => (slashes.length % 2 ? `${slashes.slice(1)}\\ufffd` : m)));
}
