// A Node program guarding one agent session through hookd-client: it reads the event stream from its start
// (so a session that began before the program subscribed is not missed) up to the session's first chat message, attaches a decision hook served by its own function at POINT to that
// session (tool.approval.pre for the agents whose shell commands hookd decides before approval), writes
// the session to READY_FILE, and serves the hook until it is stopped.
//
//   node session_guard.mjs CLIENT_URL READY_FILE POINT [START_POINT]
//
// START_POINT (default chat.message) is the point whose first event names the session, for an agent that
// sends no chat message before its first tool call.
const [clientUrl, readyFile, point, startPoint = "chat.message"] = process.argv.slice(2);
const { Client } = await import(clientUrl);
const { writeFileSync } = await import("node:fs");

const client = await Client.connect({ name: "session-guard" });
const stream = client.subscribe({ points: [startPoint], sinceSeq: 0 });
for await (const item of stream) {
  if (item.type !== "event" || !item.session) continue;
  await client.attachSession(item.session, {
    hooks: [
      {
        point,
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
