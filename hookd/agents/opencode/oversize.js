async function tooLarge(point, payload, where) {
  const welcome = client.welcome ?? (await withDeadline(client.open()));
  let size;
  let why = "";
  try {
    size = encodeFrame({ type: "decide", id: 1, point, payload, ...where }).length - 4;
  } catch (err) {
    size = Infinity;
    why = ` (${err?.message ?? err})`;
  }
  if (size <= welcome.limits.max_frame) return false;
  const what =
    size === Infinity
      ? `the ${point} input cannot be encoded for hookd${why}`
      : `the ${point} input is ${size} bytes, over hookd's frame limit of ${welcome.limits.max_frame} bytes`;
  await unsendable(point, where, what);
  return true;
}
