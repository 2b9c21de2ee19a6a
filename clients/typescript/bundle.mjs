// Bundles hookd-client and its one dependency (@msgpack/msgpack) into a single ES module that imports
// nothing but Node's own modules. hookd's opencode plugin imports it by relative path, so the plugin
// needs no npm package at all; the bundle ships inside hookd's Python distribution
// (hookd/agents/opencode/hookd-client.mjs) and a test rebuilds it to check it matches these sources.
//
//   npm run bundle              # writes hookd/agents/opencode/hookd-client.mjs
//   node bundle.mjs OUTFILE     # writes OUTFILE instead
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const outfile = process.argv[2] ?? fileURLToPath(new URL("../../hookd/agents/opencode/hookd-client.mjs", import.meta.url));

await build({
  absWorkingDir: here, // the paths esbuild writes in comments are relative to it: the same bytes from any directory
  entryPoints: ["src/index.ts"],
  bundle: true,
  format: "esm",
  platform: "node",
  mainFields: ["module", "main"], // @msgpack/msgpack as ES modules, not its CommonJS build
  target: "node18",
  outfile,
  banner: { js: "// hookd-client bundled for hookd's opencode plugin by `npm run bundle` in clients/typescript; do not edit" },
  charset: "utf8",
  legalComments: "eof",
  logLevel: "warning",
});
