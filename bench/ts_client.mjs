// The TypeScript client's side of bench/ts_client.py: decide round trips one at a time, then rounds of
// pipelined decides on one connection. Prints one JSON object: {"rtt_ns": [...], "pipelined": [[count, ns], ...]}.
//
//   node bench/ts_client.mjs CLIENT_URL N_ROUNDTRIPS PIPELINE_SIZE ROUNDS
const [clientUrl, nArg, sizeArg, roundsArg] = process.argv.slice(2);
const { Client } = await import(clientUrl);
const n = Number(nArg);
const size = Number(sizeArg);
const rounds = Number(roundsArg);
const payload = { tool: "bash", args: { command: "ls -la" } };

const client = await Client.connect({ name: "bench-ts" });
for (let i = 0; i < 200; i++) await client.decide("tool.execute.before", payload);
const rtt = [];
for (let i = 0; i < n; i++) {
  const t0 = process.hrtime.bigint();
  await client.decide("tool.execute.before", payload);
  rtt.push(Number(process.hrtime.bigint() - t0));
}
const pipelined = [];
for (let r = 0; r < rounds; r++) {
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: size }, () => client.decide("tool.execute.before", payload)));
  pipelined.push([size, Number(process.hrtime.bigint() - t0)]);
}
await client.close();
process.stdout.write(JSON.stringify({ rtt_ns: rtt, pipelined }) + "\n");
