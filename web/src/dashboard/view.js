// The dashboard's view state, made from the server's answers (docs/agent-control.md): pure
// functions, no DOM, unit-tested in test/dashboard.test.js. Also the goal form's kinds and the
// client-side check of a goal before it is sent (the server checks again and has the last word:
// ids against content, the pause).

/** The protocol's 17 skills (wayfarer_protocol::Skill, wire names), in the game's panel order. */
export const SKILLS = ['attack', 'strength', 'defense', 'constitution', 'ranged', 'magic', 'prayer',
  'woodcutting', 'fishing', 'mining', 'firemaking', 'cooking', 'smithing', 'crafting', 'fletching',
  'agility', 'runecrafting'];

/** Inventory slots. */
export const INVENTORY_SLOTS = 28;
/** Decisions shown, newest first (the server keeps 100). */
export const DECISIONS_SHOWN = 12;
/** Points of the position trail drawn on the map. */
export const TRAIL_POINTS = 24;
/** Longest owner message and goal description (MAX_TEXT_CHARS). */
export const MAX_TEXT = 200;

/**
 * @typedef {{name: string, label: string, type: 'skill'|'int'|'text'|'area'|'npc'|'item',
 *   required: boolean, min?: number, max?: number, maxLength?: number}} GoalField
 * @typedef {{kind: string, label: string, fields: GoalField[]}} GoalKind
 */

/** The goal kinds of CONTRACT.md section 7 and their targets, as the form asks for them. @type {GoalKind[]} */
export const GOAL_KINDS = [
  { kind: 'skill', label: 'Train a skill', fields: [
    { name: 'skill', label: 'Skill', type: 'skill', required: true },
    { name: 'level', label: 'Level', type: 'int', required: true, min: 1, max: 99 }] },
  { kind: 'gather', label: 'Gather items', fields: [
    { name: 'itemId', label: 'Item id', type: 'item', required: true, maxLength: 64 },
    { name: 'quantity', label: 'Quantity', type: 'int', required: true, min: 1, max: 1_000_000 }] },
  { kind: 'combat', label: 'Fight', fields: [
    { name: 'npcId', label: 'NPC id', type: 'npc', required: false, maxLength: 64 },
    { name: 'areaId', label: 'Area', type: 'area', required: false }] },
  { kind: 'cook', label: 'Cook', fields: [
    { name: 'itemId', label: 'Item id', type: 'item', required: false, maxLength: 64 }] },
  { kind: 'earn', label: 'Earn coins', fields: [
    { name: 'coins', label: 'Coins', type: 'int', required: true, min: 1, max: 2_147_483_647 }] },
  { kind: 'follow', label: 'Follow a player', fields: [
    { name: 'playerName', label: 'Player name', type: 'text', required: true, maxLength: 12 }] },
  { kind: 'explore', label: 'Explore', fields: [
    { name: 'areaId', label: 'Area', type: 'area', required: false }] },
  { kind: 'bank', label: 'Bank the inventory', fields: [] },
  { kind: 'idle', label: 'Stay idle', fields: [] },
];

/**
 * Checks the form's values for a goal and builds the request body `{kind, target, description?}`.
 * Empty optional fields are left out. The first problem found is returned with its field.
 * @param {string} kind
 * @param {Record<string, string>} values the form's raw strings by field name
 * @param {string} [description]
 * @returns {{ok: boolean, body?: {kind: string, target: Record<string, string|number>, description?: string}, field?: string, error?: string}}
 */
export function goalRequest(kind, values, description = '') {
  const def = GOAL_KINDS.find((k) => k.kind === kind);
  if (!def) return { ok: false, field: 'kind', error: `Unknown goal kind “${kind}”` };
  /** @type {Record<string, string|number>} */
  const target = {};
  for (const f of def.fields) {
    const raw = String(values[f.name] ?? '').trim();
    if (!raw) {
      if (f.required) return { ok: false, field: f.name, error: `${f.label} is required` };
      continue;
    }
    if (f.type === 'int') {
      if (!/^\d+$/.test(raw)) return { ok: false, field: f.name, error: `${f.label} must be a whole number` };
      const n = Number(raw);
      if (n < (f.min ?? 0) || n > (f.max ?? Number.MAX_SAFE_INTEGER)) {
        return { ok: false, field: f.name, error: `${f.label} must be ${f.min?.toLocaleString('en')}–${f.max?.toLocaleString('en')}` };
      }
      target[f.name] = n;
    } else if (f.type === 'skill') {
      if (!SKILLS.includes(raw)) return { ok: false, field: f.name, error: `No skill “${raw}”` };
      target[f.name] = raw;
    } else {
      if (f.maxLength && raw.length > f.maxLength) return { ok: false, field: f.name, error: `${f.label}: at most ${f.maxLength} characters` };
      if (f.name === 'playerName' && !/^[A-Za-z0-9]+( [A-Za-z0-9]+)*$/.test(raw)) {
        return { ok: false, field: f.name, error: 'Player name: letters, digits and single spaces' };
      }
      target[f.name] = raw;
    }
  }
  const text = description.trim();
  if (text.length > MAX_TEXT) return { ok: false, field: 'description', error: `Description: at most ${MAX_TEXT} characters` };
  return { ok: true, body: text ? { kind, target, description: text } : { kind, target } };
}

/** Checks an owner message (1–200 characters after trimming, like chat). @param {string} text */
export function messageError(text) {
  const t = text.trim();
  if (!t) return 'Write a message first';
  if (t.length > MAX_TEXT) return `At most ${MAX_TEXT} characters (${t.length})`;
  return '';
}

/**
 * @typedef {{slot: number, itemId: string, name: string, quantity: number}} Slot
 * @typedef {{skill: string, level: number, xp: number}} SkillRow
 * @typedef {{id: string, kind: string, description: string, target: any, progress: number|null, setAt: string, setBy: string}} GoalView
 * @typedef {{name: string, combatLevel: number, health: number, maxHealth: number, coins: number, online: boolean,
 *   tile: {x: number, z: number}, skills: SkillRow[], totalLevel: number, inventory: (Slot|null)[], used: number}} CharacterView
 * @typedef {{id: string, characterId: string, name: string, connected: boolean, paused: boolean,
 *   state: 'running'|'paused'|'offline', goal: GoalView|null, reportedAt: string|null, tokensSpent: number|null,
 *   model: ModelView|null,
 *   lastActions: {action: string, outcome: string, code?: string}[], createdAt: string, character: CharacterView|null}} AgentView
 * @typedef {{calls: number, decisions: number, fallbacks: {why: string, count: number}[], fallbackTotal: number,
 *   inputTokens: number, outputTokens: number, cachedTokens: number,
 *   p50LatencyMs: number|null, p95LatencyMs: number|null, tokensPerDecision: number|null}} ModelView
 */

/**
 * The language model's report of an agent's status (`status.model`): its calls, the decisions it
 * made, the steps it did not serve and why (most first: the fallback played them, the planner in
 * live play, a wait in a scored run), latency percentiles, tokens in (of which read from the
 * provider's cache) and out, and tokens per decision; `null` for an agent that never called a model.
 * @param {any} m
 * @returns {ModelView|null}
 */
export function modelView(m) {
  if (!m || typeof m !== 'object') return null;
  const num = (v) => (typeof v === 'number' ? v : null);
  const fallbacks = Object.entries(m.fallbacks ?? {})
    .filter(([, n]) => typeof n === 'number' && n > 0)
    .map(([why, count]) => ({ why, count }))
    .sort((a, b) => b.count - a.count || a.why.localeCompare(b.why));
  return {
    calls: num(m.calls) ?? 0,
    decisions: num(m.decisions) ?? 0,
    fallbacks,
    fallbackTotal: fallbacks.reduce((n, f) => n + f.count, 0),
    inputTokens: num(m.inputTokens) ?? 0,
    outputTokens: num(m.outputTokens) ?? 0,
    cachedTokens: num(m.cachedTokens) ?? 0,
    p50LatencyMs: num(m.p50LatencyMs),
    p95LatencyMs: num(m.p95LatencyMs),
    tokensPerDecision: num(m.tokensPerDecision),
  };
}

/** The model's line on the dashboard. @param {ModelView} m */
export function modelSummary(m) {
  const why = m.fallbacks.map((f) => `${f.why.replace(/_/g, ' ')} ${f.count}`).join(', ');
  return [
    `Model: ${m.decisions.toLocaleString()} decisions of ${m.calls.toLocaleString()} calls`,
    `fell back ${m.fallbackTotal.toLocaleString()}${why ? ` (${why})` : ''}`,
    m.p50LatencyMs !== null ? `latency p50 ${m.p50LatencyMs} ms / p95 ${m.p95LatencyMs ?? '—'} ms` : null,
    m.inputTokens + m.outputTokens > 0
      ? `tokens ${m.inputTokens.toLocaleString()} in (${m.cachedTokens.toLocaleString()} cached) / ${m.outputTokens.toLocaleString()} out`
      : null,
    m.tokensPerDecision !== null ? `${m.tokensPerDecision.toLocaleString()} tokens per decision` : null,
  ].filter(Boolean).join(' · ');
}

/** The tile a world position stands on (tiles are 1 unit, centres at .5). @param {{x: number, z: number}} p */
export function tileOf(p) {
  return { x: Math.floor(p.x), z: Math.floor(p.z) };
}

/**
 * A character of `GET /api/character` as the dashboard shows it.
 * @param {any} c the Player shape
 * @returns {CharacterView}
 */
export function characterView(c) {
  const skills = SKILLS.filter((s) => c.skills?.[s]).map((s) => ({ skill: s, level: c.skills[s].level, xp: c.skills[s].xp }));
  /** @type {(Slot|null)[]} */
  const inventory = Array.from({ length: INVENTORY_SLOTS }, () => null);
  for (const s of c.inventory ?? []) {
    if (s.slot >= 0 && s.slot < INVENTORY_SLOTS) inventory[s.slot] = { slot: s.slot, itemId: s.itemId, name: s.name, quantity: s.quantity };
  }
  return {
    name: c.name,
    combatLevel: c.combatLevel,
    health: c.health,
    maxHealth: c.maxHealth,
    coins: c.coins ?? 0,
    online: !!c.online,
    tile: c.tile ? { x: c.tile.x, z: c.tile.z } : tileOf(c.position ?? { x: 0, z: 0 }),
    skills,
    totalLevel: skills.reduce((n, s) => n + s.level, 0),
    inventory,
    used: inventory.filter(Boolean).length,
  };
}

/**
 * The agents of `GET /api/agent`, each joined with its character of `GET /api/character`
 * (skills, inventory, health), in the order the server lists them.
 * @param {{agents: any[]}} list
 * @param {{characters: any[]}|null} characters
 * @returns {AgentView[]}
 */
export function agentsView(list, characters) {
  const byId = new Map((characters?.characters ?? []).map((c) => [c.id, c]));
  return (list?.agents ?? []).map((a) => {
    const c = byId.get(a.characterId);
    const goal = a.goal
      ? { id: a.goal.id, kind: a.goal.kind, description: a.goal.description, target: a.goal.target ?? null,
          progress: typeof a.goal.progress === 'number' ? a.goal.progress : null, setAt: a.goal.setAt, setBy: a.goal.setBy }
      : null;
    return {
      id: a.agentId,
      characterId: a.characterId,
      name: c?.name ?? a.name,
      connected: !!a.connected,
      paused: !!a.paused,
      state: a.paused ? 'paused' : a.connected ? 'running' : 'offline',
      goal,
      reportedAt: a.status?.reportedAt ?? null,
      tokensSpent: a.status?.tokensSpent ?? null,
      model: modelView(a.status?.model),
      lastActions: (a.status?.lastActions ?? []).map((x) => ({ action: x.action, outcome: x.outcome, code: x.code })),
      createdAt: a.createdAt,
      character: c ? characterView(c) : null,
    };
  });
}

/** What the state pill says. @param {AgentView} a */
export function stateLabel(a) {
  if (a.paused) return a.connected ? 'Paused' : 'Paused · offline';
  return a.connected ? 'Running' : 'Offline';
}

/**
 * `GET /api/characters/<id>/position` as the position panel shows it.
 * @param {{characterId: string, tile: {x: number, z: number}, position: {x: number, z: number}, online: boolean}} p
 */
export function positionView(p) {
  const tile = p.tile ? { x: p.tile.x, z: p.tile.z } : tileOf(p.position);
  return { characterId: p.characterId, tile, online: !!p.online };
}

/**
 * Adds a tile to the trail drawn on the map (the same tile twice in a row counts once; the oldest
 * points fall off past `max`).
 * @param {{x: number, z: number}[]} trail @param {{x: number, z: number}} tile @param {number} [max]
 */
export function pushTrail(trail, tile, max = TRAIL_POINTS) {
  const last = trail[trail.length - 1];
  if (last && last.x === tile.x && last.z === tile.z) return trail;
  const next = [...trail, { x: tile.x, z: tile.z }];
  return next.length > max ? next.slice(next.length - max) : next;
}

/**
 * `GET /api/agent/<id>/decisions` (oldest first) as the panel shows it: newest first, at most
 * `limit`.
 * @param {{decisions: any[]}} answer @param {number} [limit]
 * @returns {{action: string, reason: string, goal: string, brain: string, outcome: string, receivedAt: number}[]}
 */
export function decisionsView(answer, limit = DECISIONS_SHOWN) {
  const all = answer?.decisions ?? [];
  return all.slice(Math.max(0, all.length - limit)).reverse().map((d) => ({
    action: d.action,
    reason: d.reason ?? '',
    goal: d.goal ?? '',
    brain: d.brain ?? '',
    outcome: d.outcome ?? 'pending',
    receivedAt: d.receivedAt ?? 0,
  }));
}

/** `GET /api/agents/<id>/quick-actions`. @param {{actions: any[]}} answer @returns {{id: string, label: string, command: string}[]} */
export function quickActionsView(answer) {
  return (answer?.actions ?? []).map((a) => ({ id: a.id, label: a.label, command: a.command }));
}

/** "5 s ago", "3 min ago", "2 h ago". @param {number} thenMs @param {number} nowMs */
export function ago(thenMs, nowMs) {
  if (!thenMs) return '';
  const s = Math.max(0, Math.round((nowMs - thenMs) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}
