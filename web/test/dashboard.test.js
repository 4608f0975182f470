// The dashboard's polling schedule, its retries and its view state (src/dashboard/poll.js and
// view.js), on a fake clock: no timers really wait.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../src/api.js';
import {
  Poller, withRetry, sleepOn, isRetryable, positionInterval,
  PANEL_INTERVAL_MS, POSITION_VISIBLE_MS, POSITION_HIDDEN_MS, RETRY_DELAYS_MS,
} from '../src/dashboard/poll.js';
import {
  agentsView, characterView, positionView, decisionsView, quickActionsView, pushTrail, goalRequest,
  messageError, stateLabel, ago, GOAL_KINDS, SKILLS, modelView, modelSummary,
} from '../src/dashboard/view.js';

/** Every pending promise callback runs before a macrotask: this lets chains of awaits settle. */
const settle = () => new Promise((r) => setImmediate(r));

/** A clock whose time moves only by `advance`, firing the timers due on the way, in order. */
function fakeClock() {
  let now = 0;
  let seq = 0;
  /** @type {{at: number, seq: number, fn: () => void}[]} */
  let timers = [];
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const t = { at: now + Math.max(0, ms), seq: ++seq, fn };
      timers.push(t);
      return t;
    },
    clearTimeout(t) {
      timers = timers.filter((x) => x !== t);
    },
    pending: () => timers.length,
    async advance(ms) {
      const end = now + ms;
      await settle();
      for (;;) {
        timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
        const next = timers[0];
        if (!next || next.at > end) break;
        timers.shift();
        now = next.at;
        next.fn();
        await settle();
      }
      now = end;
      await settle();
    },
  };
}

test('the periods are those of specification section 8', () => {
  assert.equal(PANEL_INTERVAL_MS, 10_000);
  assert.equal(positionInterval(false), POSITION_VISIBLE_MS);
  assert.equal(positionInterval(true), POSITION_HIDDEN_MS);
  assert.equal(POSITION_VISIBLE_MS, 5_000);
  assert.equal(POSITION_HIDDEN_MS, 10_000);
  assert.deepEqual([...RETRY_DELAYS_MS], [1_000, 2_000, 4_000]);
});

test('the position poller runs every 5 s while visible and every 10 s while hidden', async () => {
  const clock = fakeClock();
  const runs = [];
  const p = new Poller(async () => { runs.push(clock.now()); }, positionInterval, { clock });
  p.start();
  await clock.advance(15_000);
  assert.deepEqual(runs, [0, 5_000, 10_000, 15_000]);
  p.setHidden(true);
  await clock.advance(30_000);
  assert.deepEqual(runs.slice(4), [25_000, 35_000, 45_000]);
  p.stop();
  await clock.advance(60_000);
  assert.equal(runs.length, 7, 'no run after stop');
  assert.equal(clock.pending(), 0);
});

test('hiding the page pushes the next position call out; showing it again catches up at once', async () => {
  const clock = fakeClock();
  const runs = [];
  const p = new Poller(async () => { runs.push(clock.now()); }, positionInterval, { clock });
  p.start();
  await clock.advance(2_000);
  p.setHidden(true); // last run at 0: next at 10 s, not 5 s
  await clock.advance(6_000);
  assert.deepEqual(runs, [0], 'no run at 5 s while hidden');
  await clock.advance(4_000);
  assert.deepEqual(runs, [0, 10_000]);
  await clock.advance(5_000); // 17 s: hidden, next due at 20 s
  p.setHidden(false); // 7 s since the last run: more than 5 s, so now
  await clock.advance(0);
  assert.deepEqual(runs, [0, 10_000, 17_000]);
  await clock.advance(5_000);
  assert.deepEqual(runs, [0, 10_000, 17_000, 22_000]);
  p.stop();
});

test('runs never overlap: a slow run is followed at once, a run asked for meanwhile comes right after', async () => {
  const clock = fakeClock();
  const starts = [];
  let inFlight = 0, most = 0;
  const p = new Poller(async () => {
    starts.push(clock.now());
    inFlight++;
    most = Math.max(most, inFlight);
    await sleepOn(clock, 12_000); // longer than the 10 s period
    inFlight--;
  }, () => PANEL_INTERVAL_MS, { clock });
  p.start();
  await clock.advance(1_000);
  p.runNow(); // during the first run: queued, not parallel
  await clock.advance(30_000);
  assert.equal(most, 1);
  assert.deepEqual(starts, [0, 12_000, 24_000]);
  p.stop();
});

test('a failed call is retried after 1 s, 2 s and 4 s, then given up until the next round', async () => {
  const clock = fakeClock();
  const calls = [];
  const rounds = [];
  const retries = [];
  const p = new Poller(async () => {
    rounds.push(clock.now());
    await withRetry(async () => {
      calls.push(clock.now());
      throw new ApiError(503, 'unavailable', 'busy');
    }, { sleep: (ms) => sleepOn(clock, ms), onRetry: (n, ms) => retries.push([n, ms]) }).catch(() => {});
  }, () => PANEL_INTERVAL_MS, { clock });
  p.start();
  await clock.advance(19_999);
  assert.deepEqual(calls, [0, 1_000, 3_000, 7_000, 10_000, 11_000, 13_000, 17_000]);
  assert.deepEqual(rounds, [0, 10_000], 'the next round keeps its 10 s period');
  assert.deepEqual(retries.slice(0, 3), [[0, 1_000], [1, 2_000], [2, 4_000]]);
  p.stop();
});

test('retries stop at the first success and return its answer', async () => {
  const clock = fakeClock();
  const calls = [];
  const result = withRetry(async () => {
    calls.push(clock.now());
    if (calls.length < 3) throw new TypeError('Failed to fetch');
    return { ok: 1 };
  }, { sleep: (ms) => sleepOn(clock, ms) });
  await clock.advance(10_000);
  assert.deepEqual(await result, { ok: 1 });
  assert.deepEqual(calls, [0, 1_000, 3_000]);
});

test('refusals are not retried; network failures, 5xx and 429 are', async () => {
  assert.equal(isRetryable(new ApiError(404, 'not_found', 'x')), false);
  assert.equal(isRetryable(new ApiError(409, 'conflict', 'x')), false);
  assert.equal(isRetryable(new ApiError(401, 'unauthorized', 'x')), false);
  assert.equal(isRetryable(new ApiError(403, 'forbidden', 'x')), false);
  assert.equal(isRetryable(new ApiError(500, 'internal', 'x')), true);
  assert.equal(isRetryable(new ApiError(429, 'rate_limited', 'x')), true);
  assert.equal(isRetryable(new TypeError('Failed to fetch')), true);
  assert.equal(isRetryable(new DOMException('no answer', 'TimeoutError')), true, 'a call that timed out');
  assert.equal(isRetryable(new DOMException('superseded', 'AbortError')), false, 'a call the page abandoned');
  let calls = 0;
  await assert.rejects(withRetry(async () => { calls++; throw new ApiError(403, 'forbidden', 'not yours'); }, { sleep: async () => {} }),
    (e) => e instanceof ApiError && e.status === 403);
  assert.equal(calls, 1);
});

test('a retry abandoned because the page moved on is an AbortError, not another call', async () => {
  let calls = 0, current = true;
  const sleeps = [];
  await assert.rejects(withRetry(async () => { calls++; throw new TypeError('Failed to fetch'); }, {
    sleep: async (ms) => { sleeps.push(ms); current = false; },
    isCurrent: () => current,
  }), (e) => e.name === 'AbortError');
  assert.equal(calls, 1);
  assert.deepEqual(sleeps, [1_000]);
});

// ---- view state from route answers (shapes of docs/agent-control.md and GET /api/character) ----

const goal = { id: 'g1', kind: 'explore', description: 'Explore the world', target: {}, progress: 0.25, setAt: '2026-11-24T18:00:00Z', setBy: 'owner' };
const agentList = {
  agents: [
    { agentId: 'a1', characterId: 'c1', name: 'Ada', connected: true, goal, paused: false,
      status: { progress: 0.25, paused: false, lastActions: [{ action: 'explore', outcome: 'accepted' }], tokensSpent: 0, reportedAt: '2026-11-24T18:01:00Z' },
      createdAt: '2026-11-24T17:00:00Z' },
    { agentId: 'a2', characterId: 'c2', name: 'Bo', connected: false, goal: null, paused: true, status: null, createdAt: '2026-11-24T17:30:00Z' },
    { agentId: 'a3', characterId: 'c9', name: 'Gone', connected: false, goal: null, paused: false, status: null, createdAt: '2026-11-24T17:40:00Z' },
  ],
};
const characterList = {
  activeCharacterId: 'c0',
  characters: [
    { id: 'c1', accountId: 'acc', name: 'Ada Renamed', combatLevel: 3, health: 9, maxHealth: 10, coins: 25,
      position: { x: 101.5, y: 0, z: 57.5 }, online: true,
      skills: { woodcutting: { level: 5, xp: 400 }, attack: { level: 2, xp: 90 }, constitution: { level: 10, xp: 1154 } },
      inventory: [{ slot: 0, itemId: 'bronze_axe', name: 'Bronze Axe', quantity: 1 }, { slot: 27, itemId: 'coins', name: 'Coins', quantity: 25 }, { slot: 31, itemId: 'bad', name: 'Bad', quantity: 1 }],
      equipment: {} },
    { id: 'c2', accountId: 'acc', name: 'Bo', combatLevel: 3, health: 10, maxHealth: 10, coins: 0,
      position: { x: -3.2, y: 0, z: 7.9 }, online: false, skills: {}, inventory: [], equipment: {} },
  ],
};

test('the agent list joins each agent with its character: state, goal, skills, inventory, tile', () => {
  const view = agentsView(agentList, characterList);
  assert.deepEqual(view.map((a) => [a.id, a.state, stateLabel(a)]), [
    ['a1', 'running', 'Running'], ['a2', 'paused', 'Paused · offline'], ['a3', 'offline', 'Offline']]);
  const [ada, bo, gone] = view;
  assert.equal(ada.name, 'Ada Renamed', "the character's current name");
  assert.deepEqual(ada.goal, { id: 'g1', kind: 'explore', description: 'Explore the world', target: {}, progress: 0.25, setAt: goal.setAt, setBy: 'owner' });
  assert.equal(ada.reportedAt, '2026-11-24T18:01:00Z');
  assert.deepEqual(ada.lastActions, [{ action: 'explore', outcome: 'accepted', code: undefined }]);
  const c = ada.character;
  assert.deepEqual(c.skills.map((s) => s.skill), ['attack', 'constitution', 'woodcutting'], 'in the game panel order');
  assert.equal(c.totalLevel, 17);
  assert.equal(c.inventory.length, 28);
  assert.equal(c.inventory[0].name, 'Bronze Axe');
  assert.equal(c.inventory[27].quantity, 25);
  assert.equal(c.inventory[5], null);
  assert.equal(c.used, 2, 'a slot past 28 is not shown');
  assert.deepEqual(c.tile, { x: 101, z: 57 });
  assert.deepEqual(bo.character.tile, { x: -4, z: 7 }, 'floor, also below zero');
  assert.equal(bo.goal, null);
  assert.equal(bo.tokensSpent, null);
  assert.equal(bo.model, null, 'no model report: no model line');
  assert.equal(ada.model, null);
  assert.equal(gone.character, null, 'no character answer: the panels show none');
  assert.equal(gone.name, 'Gone');
  assert.deepEqual(agentsView({ agents: [] }, null), []);
});

test("the model's report: decisions, fallbacks by why, latency and tokens (cached among them)", () => {
  const m = modelView({ calls: 12, decisions: 9, fallbacks: { timeout: 1, budget_exhausted: 2, refused: 0 },
    inputTokens: 14000, outputTokens: 300, cachedTokens: 9000, meanLatencyMs: 850, p50LatencyMs: 700, p95LatencyMs: 2100, tokensPerDecision: 1192 });
  assert.deepEqual(m.fallbacks, [{ why: 'budget_exhausted', count: 2 }, { why: 'timeout', count: 1 }], 'most first, none of zero');
  assert.equal(m.fallbackTotal, 3);
  assert.equal(modelSummary(m),
    'Model: 9 decisions of 12 calls · fell back 3 (budget exhausted 2, timeout 1) · latency p50 700 ms / p95 2100 ms · '
    + 'tokens 14,000 in (9,000 cached) / 300 out · 1,192 tokens per decision');
  assert.equal(m.cachedTokens, 9000);
  const fresh = modelView({ calls: 0, decisions: 0, fallbacks: { circuit_open: 4 } });
  assert.equal(modelSummary(fresh), 'Model: 0 decisions of 0 calls · fell back 4 (circuit open 4)');
  assert.equal(modelView(null), null);
  const [withModel] = agentsView({ agents: [{ ...agentList.agents[0], status: { ...agentList.agents[0].status, model: { calls: 1, decisions: 1 } } }] }, null);
  assert.equal(withModel.model.calls, 1);
});

test('a character answer with a tile uses it', () => {
  assert.deepEqual(characterView({ ...characterList.characters[1], tile: { x: 4, z: 5 } }).tile, { x: 4, z: 5 });
});

test('position, trail, decisions and quick actions from their answers', () => {
  assert.deepEqual(positionView({ characterId: 'c1', position: { x: 10.5, y: 0, z: 20.5 }, tile: { x: 10, z: 20 }, online: true }),
    { characterId: 'c1', tile: { x: 10, z: 20 }, online: true });
  let trail = [];
  trail = pushTrail(trail, { x: 1, z: 1 });
  trail = pushTrail(trail, { x: 1, z: 1 });
  trail = pushTrail(trail, { x: 2, z: 1 });
  assert.deepEqual(trail, [{ x: 1, z: 1 }, { x: 2, z: 1 }]);
  for (let i = 0; i < 10; i++) trail = pushTrail(trail, { x: 10 + i, z: 0 }, 4);
  assert.deepEqual(trail.map((t) => t.x), [16, 17, 18, 19]);

  const decisions = { agentId: 'a1', decisions: Array.from({ length: 15 }, (_, i) => ({ action: `a${i}`, reason: `r${i}`, brain: 'planner', receivedAt: 1000 + i })) };
  decisions.decisions[14].outcome = 'accepted';
  const shown = decisionsView(decisions, 3);
  assert.deepEqual(shown.map((d) => d.action), ['a14', 'a13', 'a12'], 'newest first');
  assert.deepEqual(shown[0], { action: 'a14', reason: 'r14', goal: '', brain: 'planner', outcome: 'accepted', receivedAt: 1014 });
  assert.equal(shown[1].outcome, 'pending');
  assert.deepEqual(decisionsView({ decisions: [] }), []);

  assert.deepEqual(quickActionsView({ actions: [{ id: 'idle', label: 'Stay idle', command: 'idle' }] }), [{ id: 'idle', label: 'Stay idle', command: 'idle' }]);
  assert.equal(ago(0, 5000), '');
  assert.equal(ago(1000, 6000), '5 s ago');
  assert.equal(ago(0 + 1, 1 + 3 * 60_000), '3 min ago');
});

test('the goal form offers every kind of CONTRACT.md section 7', () => {
  assert.deepEqual(GOAL_KINDS.map((k) => k.kind).sort(), ['bank', 'combat', 'cook', 'earn', 'explore', 'follow', 'gather', 'idle', 'skill']);
  assert.equal(SKILLS.length, 17);
});

test('goals are checked before they are sent, and built as the route reads them', () => {
  assert.deepEqual(goalRequest('skill', { skill: 'woodcutting', level: '10' }),
    { ok: true, body: { kind: 'skill', target: { skill: 'woodcutting', level: 10 } } });
  assert.deepEqual(goalRequest('explore', { areaId: '' }, '  look around '),
    { ok: true, body: { kind: 'explore', target: {}, description: 'look around' } });
  assert.deepEqual(goalRequest('bank', {}), { ok: true, body: { kind: 'bank', target: {} } });
  assert.deepEqual(goalRequest('gather', { itemId: ' logs ', quantity: '20' }),
    { ok: true, body: { kind: 'gather', target: { itemId: 'logs', quantity: 20 } } });
  assert.deepEqual(goalRequest('follow', { playerName: 'Ada Lee' }).body, { kind: 'follow', target: { playerName: 'Ada Lee' } });

  const refused = (r) => [r.ok, r.field];
  assert.deepEqual(refused(goalRequest('skill', { skill: 'woodcutting', level: '0' })), [false, 'level']);
  assert.deepEqual(refused(goalRequest('skill', { skill: 'woodcutting', level: '100' })), [false, 'level']);
  assert.deepEqual(refused(goalRequest('skill', { skill: 'woodcutting', level: '2.5' })), [false, 'level']);
  assert.deepEqual(refused(goalRequest('skill', { skill: 'dancing', level: '5' })), [false, 'skill']);
  assert.deepEqual(refused(goalRequest('gather', { quantity: '5' })), [false, 'itemId']);
  assert.deepEqual(refused(goalRequest('gather', { itemId: 'logs', quantity: '1000001' })), [false, 'quantity']);
  assert.deepEqual(refused(goalRequest('earn', { coins: '-5' })), [false, 'coins']);
  assert.deepEqual(refused(goalRequest('follow', { playerName: 'a  b' })), [false, 'playerName']);
  assert.deepEqual(refused(goalRequest('follow', { playerName: 'Thirteen chrs' })), [false, 'playerName']);
  assert.deepEqual(refused(goalRequest('dance', {})), [false, 'kind']);
  assert.deepEqual(refused(goalRequest('idle', {}, 'x'.repeat(201))), [false, 'description']);
  assert.match(goalRequest('skill', { skill: 'woodcutting', level: '0' }).error, /Level must be 1–99/);

  assert.equal(messageError('  '), 'Write a message first');
  assert.match(messageError('x'.repeat(201)), /At most 200/);
  assert.equal(messageError(' chopTree res-1 '), '');
});
