// hookd's one tool vocabulary (hookd/core/vocabulary.py) for the opencode plugin: the same rules, in JavaScript, over
// the same table, which install writes into the plugin as VOCABULARY (vocabulary.table()). Install puts this text
// into the plugin as it is; tests/unit/test_opencode_vocabulary.py holds it to the Python functions' answers.

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
// Python's dict.get: a missing key reads as null.
const get = (o, k, otherwise = null) => (has(o, k) ? o[k] : otherwise);

function sameValue(a, b) {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => has(b, k) && sameValue(a[k], b[k]));
  }
  return false;
}

// The agent's tool: {name: hookd's name, renames: [[agent's argument, hookd's argument], ...]}, or null.
function vocabularyTool(agent, agentTool) {
  const tools = get(VOCABULARY.agents, agent);
  if (!isObject(tools) || typeof agentTool !== "string" || !has(tools, agentTool)) return null;
  const [name, renames] = tools[agentTool];
  return { name, renames: Object.entries(renames) };
}

// `args` with hookd's name of each renamed argument beside the agent's own (a new object).
function canonicalArgs(agent, agentTool, args) {
  const known = vocabularyTool(agent, agentTool);
  if (!known || !known.renames.length || !isObject(args)) return args;
  const out = { ...args };
  for (const [theirs, ours] of known.renames) {
    if (has(args, theirs) && !has(out, ours)) out[ours] = args[theirs];
  }
  return out;
}

// A tool call's payload ({toolName, args}) in hookd's vocabulary, in place, naming the agent.
function canonical(payload, agent) {
  payload.agent = agent;
  const name = payload.toolName;
  if (typeof name !== "string") return payload;
  payload.agentToolName = name;
  const known = vocabularyTool(agent, name);
  if (known) {
    payload.toolName = known.name;
    if (has(payload, "args")) payload.args = canonicalArgs(agent, name, payload.args);
  }
  return payload;
}

// A guard's rewrite as the agent's own arguments: where the two names disagree, the one that differs from what
// was `sent` wins.
function agentArgs(agent, agentTool, modified, sent) {
  const known = vocabularyTool(agent, agentTool);
  if (!known || !known.renames.length || !isObject(modified)) return modified;
  const before = isObject(sent) ? sent : {};
  const out = { ...modified };
  for (const [theirs, ours] of known.renames) {
    if (!has(out, ours)) continue;
    if (has(before, ours) && (!has(before, theirs) || !sameValue(before[ours], before[theirs]))) continue;
    const value = out[ours];
    delete out[ours];
    if (!has(out, theirs)) {
      out[theirs] = value;
    } else if (sameValue(out[theirs], get(before, theirs, out[theirs])) && !sameValue(value, get(before, ours, get(before, theirs)))) {
      out[theirs] = value; // only hookd's name was rewritten
    }
  }
  return out;
}
