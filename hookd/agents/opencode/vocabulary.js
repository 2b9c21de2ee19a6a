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

// The agent's tool: {name: hookd's name, renames: [[agent's argument, hookd's argument], ...], joined: [the agent's
// list argument, hookd's argument holding it as one script] or null}, or null.
function vocabularyTool(agent, agentTool) {
  const tools = get(VOCABULARY.agents, agent);
  if (!isObject(tools) || typeof agentTool !== "string" || !has(tools, agentTool)) return null;
  const [name, renames, joined = null] = tools[agentTool];
  return { name, renames: Object.entries(renames), joined: Array.isArray(joined) ? joined : null };
}

// A list of strings as one per line; null for anything else.
function joinedScript(values) {
  return Array.isArray(values) && values.every((v) => typeof v === "string") ? values.join("\n") : null;
}

// `args` with hookd's name of each renamed argument beside the agent's own (a new object).
function canonicalArgs(agent, agentTool, args) {
  const known = vocabularyTool(agent, agentTool);
  if (!known || !(known.renames.length || known.joined) || !isObject(args)) return args;
  const out = { ...args };
  for (const [theirs, ours] of known.renames) {
    if (has(args, theirs) && !has(out, ours)) out[ours] = args[theirs];
  }
  if (known.joined && !has(out, known.joined[1])) {
    const script = joinedScript(get(args, known.joined[0]));
    if (script !== null) out[known.joined[1]] = script;
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
  if (!known || !(known.renames.length || known.joined) || !isObject(modified)) return modified;
  const before = isObject(sent) ? sent : {};
  const out = { ...modified };
  if (known.joined && has(out, known.joined[1])) {
    const [theirs, ours] = known.joined;
    const sentScript = get(before, ours);
    // hookd's alias (or a hook's addition), unless the agent itself sent an argument of that name
    if (!has(before, ours) || (typeof sentScript === "string" && sentScript === joinedScript(get(before, theirs)))) {
      const script = out[ours];
      delete out[ours];
      if (typeof script === "string" && script !== sentScript) out[theirs] = [script]; // rewritten: one item
    }
  }
  // Several of the agent's names may stand for one of hookd's: a rewrite of any reaches all the call carries.
  const groups = new Map();
  for (const [theirs, ours] of known.renames) {
    if (!groups.has(ours)) groups.set(ours, []);
    groups.get(ours).push(theirs);
  }
  for (const [ours, names] of groups) {
    if (!has(out, ours)) continue;
    const source = names.find((t) => has(before, t));
    if (has(before, ours) && (source === undefined || !sameValue(before[ours], before[source]))) continue;
    const value = out[ours];
    delete out[ours];
    const present = names.filter((t) => has(out, t));
    if (!present.length) {
      out[names[0]] = value;
      continue;
    }
    const changed = present.filter((t) => !sameValue(out[t], get(before, t, out[t])));
    let winner;
    if (changed.length) winner = out[changed[0]];
    else if (!sameValue(value, get(before, ours, get(before, present[0])))) winner = value;
    else continue;
    for (const t of present) out[t] = winner;
  }
  return out;
}
