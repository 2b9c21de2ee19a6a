// A Node program guarding one opencode session through hookd-client: it waits on the event stream for the
// session's first chat message, attaches a decision hook served by its own function to that session, writes
// READY_FILE, and serves the hook until it is stopped.
//
//   node session_guard.mjs CLIENT_URL READY_FILE
const [clientUrl, readyFile] = process.argv.slice(2);
const { Client } = await import(clientUrl);
const { writeFileSync } = await import("node:fs");

const client = await Client.connect({ name: "session-guard" });
const stream = client.subscribe({ points: ["chat.message"] });
for await (const item of stream) {
  if (item.type !== "event" || !item.session) continue;
  await client.attachSession(item.session, {
    hooks: [
      {
        point: "tool.execute.before",
        name: "node-session-guard",
        handler: async (payload) => {
          const command = String(payload.args?.command ?? "");
          return command.includes("touch") ? { decision: "deny", reason: "the Node session guard forbids touch" } : null;
        },
      },
    ],
  });
  writeFileSync(readyFile, item.session);
  break;
}
stream.close();
process.on("SIGTERM", async () => {
  await client.close();
  process.exit(0);
});
