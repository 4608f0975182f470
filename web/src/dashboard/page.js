// The agent dashboard (`/dashboard`): the signed-in account's agents, one chosen at a time, with
// its goal, pause, position on a small map, skills, inventory, recent decisions, quick actions,
// and the controls of docs/agent-control.md (stop, resume, set goal, send a message, register).
//
// Polling (specification section 8), one scheduler per cadence, not one per panel:
// - every 10 s: `GET /api/agent` (goals, pauses, last reports) and `GET /api/character` (skills,
//   inventory and health of every character, in one call), then the chosen agent's decisions and
//   quick actions;
// - the position panel: the chosen agent's `GET /api/characters/<id>/position` every 5 s while
//   the page is visible, 10 s while hidden.
// A failed call is retried after 1 s, 2 s and 4 s (poll.js); the panel says so meanwhile.

import { h, fill, titleCase } from '../dom.js';
import { ApiError, fetchOnce } from '../api.js';
import { loadContent, items as itemDefs, npcs as npcDefs } from '../content.js';
import { Terrain } from '../terrain.js';
import { itemIcon } from '../ui/panels.js';
import { AgentMap } from './map.js';
import { Poller, withRetry, PANEL_INTERVAL_MS, CALL_TIMEOUT_MS, positionInterval } from './poll.js';
import {
  GOAL_KINDS, SKILLS, agentsView, stateLabel, positionView, pushTrail, decisionsView, quickActionsView,
  goalRequest, messageError, ago, MAX_TEXT, modelSummary,
} from './view.js';

/** @typedef {import('./view.js').AgentView} AgentView */

/** Loads the dashboard's stylesheet (beside this module, so under the same version) and waits for it. */
function loadStyle() {
  const href = new URL('./dashboard.css', import.meta.url).href;
  if (document.querySelector(`link[href="${href}"]`)) return Promise.resolve();
  return new Promise((resolve) => {
    const link = h('link', { rel: 'stylesheet', href });
    link.addEventListener('load', () => resolve(null));
    link.addEventListener('error', () => resolve(null));
    document.head.append(link);
  });
}

const time = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
/** `fill` without the absent parts. @param {Element} el @param {...(Node|string|null|undefined|false)} kids */
const put = (el, ...kids) => fill(el, .../** @type {(Node|string)[]} */ (kids.filter((k) => k !== null && k !== undefined && k !== false)));
/**
 * Re-renders a list of buttons keeping the keyboard focus on the same entry (the 10-second
 * refresh must not throw a keyboard user out of the list).
 * @param {HTMLElement} el @param {string} key the data attribute naming an entry @param {() => void} render
 */
function keepingFocus(el, key, render) {
  const active = /** @type {HTMLElement|null} */ (document.activeElement);
  const had = active && el.contains(active) ? active.dataset[key] : undefined;
  render();
  if (had !== undefined) [.../** @type {NodeListOf<HTMLElement>} */ (el.querySelectorAll('button'))].find((b) => b.dataset[key] === had)?.focus();
}
const messageOf = (e) => (e instanceof ApiError ? e.message
  : e?.name === 'TimeoutError' ? `no answer in ${CALL_TIMEOUT_MS / 1000} s` : 'the server could not be reached');

/**
 * Mounts the dashboard into `root`.
 * @param {HTMLElement} root
 * @param {import('../api.js').Auth} auth
 * @param {{signedOut: (notice?: string) => void}} hooks called when the session ends (sign out, 401)
 */
export async function mountDashboard(root, auth, hooks) {
  const terrain = new Terrain();
  await Promise.all([loadStyle(), terrain.load(), loadContent()]);
  const dash = new Dashboard(root, auth, terrain, hooks);
  dash.start();
  /** For the browser tests and a curious console. */
  /** @type {any} */ (window).__wayfarerDashboard = dash;
  return dash;
}

class Dashboard {
  /**
   * @param {HTMLElement} root @param {import('../api.js').Auth} auth
   * @param {Terrain} terrain @param {{signedOut: (notice?: string) => void}} hooks
   */
  constructor(root, auth, terrain, hooks) {
    this.root = root;
    this.auth = auth;
    this.terrain = terrain;
    this.hooks = hooks;
    /** @type {AgentView[]|null} */
    this.agents = null;
    /** @type {any[]} the account's characters (for registering) */
    this.characters = [];
    /** @type {string|null} */
    this.selected = new URLSearchParams(location.search).get('agent');
    /** @type {{tile: {x: number, z: number}, online: boolean, at: number}|null} */
    this.position = null;
    /** Position answers applied for the chosen agent (the browser test waits on it). */
    this.positionUpdates = 0;
    /** @type {{x: number, z: number}[]} */
    this.trail = [];
    this.ended = false;
    this.panels = new Poller(() => this.refreshPanels(), () => PANEL_INTERVAL_MS);
    this.positions = new Poller(() => this.refreshPosition(), positionInterval, { hidden: document.hidden });
    this.build();
  }

  start() {
    document.addEventListener('visibilitychange', this.onVisibility);
    window.addEventListener('keydown', this.onKey);
    window.addEventListener('resize', this.onResize);
    this.panels.start();
    this.positions.start();
  }

  stop() {
    this.ended = true;
    this.panels.stop();
    this.positions.stop();
    document.removeEventListener('visibilitychange', this.onVisibility);
    window.removeEventListener('keydown', this.onKey);
    window.removeEventListener('resize', this.onResize);
  }

  onVisibility = () => {
    this.positions.setHidden(document.hidden);
    this.renderCadence();
  };

  onResize = () => this.map.draw();

  /** S stop, R resume, G the goal form, M the message box, 1–9 choose an agent. @param {KeyboardEvent} ev */
  onKey = (ev) => {
    const t = /** @type {HTMLElement} */ (ev.target);
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName)) return;
    const key = ev.key.toLowerCase();
    if (key === 's' && !this.stopButton.disabled) this.stopButton.click();
    else if (key === 'r' && !this.resumeButton.disabled) this.resumeButton.click();
    else if (key === 'g') this.goalKind.focus();
    else if (key === 'm') this.messageInput.focus();
    else if (/^[1-9]$/.test(key) && this.agents?.[Number(key) - 1]) this.choose(this.agents[Number(key) - 1].id);
    else return;
    ev.preventDefault();
  };

  // ---- calls ------------------------------------------------------------------------------

  /**
   * One REST call with the retries of section 8; `note` shows "retrying…" in a panel meanwhile.
   * A 401 ends the session (sign-in again).
   * @param {string} path @param {{method?: string, body?: any}} [opts]
   * @param {{note?: (text: string) => void, isCurrent?: () => boolean}} [how]
   */
  async call(path, opts = {}, how = {}) {
    try {
      return await withRetry(() => this.auth.call(path, { ...opts, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) }), {
        isCurrent: () => !this.ended && (how.isCurrent?.() ?? true),
        onRetry: (attempt, ms, e) => how.note?.(`${messageOf(e)}; retry ${attempt + 1} of 3 in ${ms / 1000} s…`),
      });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) this.end('Your session has ended: sign in again.');
      throw e;
    }
  }

  /** Sends a command now (no retries: a person pressed the button and sees the answer). @param {string} path @param {any} body */
  send(path, body) {
    return this.auth.call(path, { method: 'POST', body }).catch((e) => {
      if (e instanceof ApiError && e.status === 401) this.end('Your session has ended: sign in again.');
      throw e;
    });
  }

  /** @param {string} [notice] */
  end(notice) {
    if (this.ended) return;
    this.stop();
    this.hooks.signedOut(notice);
  }

  /** The 10-second round: the list and the characters, then the chosen agent's panels. */
  async refreshPanels() {
    const listNote = (text) => this.note(this.listNote, text);
    const first = this.agents === null;
    const [list, characters] = await Promise.allSettled([
      this.call('/api/agent', {}, { note: listNote }),
      this.call('/api/character', {}, { note: listNote }),
    ]);
    if (this.ended) return;
    if (list.status === 'fulfilled') {
      if (characters.status === 'fulfilled') this.characters = characters.value.characters ?? [];
      const keep = characters.status === 'fulfilled' ? characters.value : { characters: this.characters };
      this.agents = agentsView(list.value, keep);
      this.note(this.listNote, characters.status === 'rejected' ? `Skills and inventory not refreshed: ${messageOf(characters.reason)}` : '');
      this.listUpdated = Date.now();
      if (!this.agents.some((a) => a.id === this.selected)) this.choose(this.agents[0]?.id ?? null, false);
      else if (first) this.positions.runNow();
    } else {
      this.note(this.listNote, `Not refreshed: ${messageOf(list.reason)} (next try in ${PANEL_INTERVAL_MS / 1000} s)`);
    }
    this.renderList();
    this.renderAgent();
    this.renderRegister();
    const id = this.selected;
    if (!id) return;
    const current = () => this.selected === id;
    await Promise.allSettled([
      this.call(`/api/agent/${encodeURIComponent(id)}/decisions`, {}, { isCurrent: current, note: (t) => this.note(this.decisionsNote, t) })
        .then((d) => { if (current()) { this.renderDecisions(decisionsView(d)); this.note(this.decisionsNote, ''); } },
          (e) => { if (current()) this.note(this.decisionsNote, `Not refreshed: ${messageOf(e)}`); }),
      this.call(`/api/agents/${encodeURIComponent(id)}/quick-actions`, {}, { isCurrent: current, note: (t) => this.note(this.quickNote, t) })
        .then((q) => { if (current()) { this.renderQuick(quickActionsView(q)); this.note(this.quickNote, ''); } },
          (e) => { if (current()) this.note(this.quickNote, `Not refreshed: ${messageOf(e)}`); }),
    ]);
  }

  /** The position round (5 s visible, 10 s hidden). */
  async refreshPosition() {
    const agent = this.current();
    if (!agent) return;
    const id = agent.id;
    const current = () => this.selected === id;
    try {
      const p = positionView(await this.call(`/api/characters/${encodeURIComponent(agent.characterId)}/position`, {},
        { isCurrent: current, note: (t) => this.note(this.positionNote, t) }));
      if (!current()) return;
      this.position = { tile: p.tile, online: p.online, at: Date.now() };
      this.trail = pushTrail(this.trail, p.tile);
      this.positionUpdates++;
      this.note(this.positionNote, '');
      this.renderPosition();
    } catch (e) {
      if (current()) this.note(this.positionNote, `Not refreshed: ${messageOf(e)}`);
    }
  }

  /** @returns {AgentView|null} */
  current() {
    return this.agents?.find((a) => a.id === this.selected) ?? null;
  }

  /**
   * Chooses the agent the panels show.
   * @param {string|null} id @param {boolean} [poll] fetch its 10-second panels at once
   */
  choose(id, poll = true) {
    const changed = id !== this.selected;
    this.selected = id;
    if (changed) {
      this.position = null;
      this.trail = [];
      this.positionUpdates = 0;
      fill(this.decisionsList);
      fill(this.quickList);
      this.feedback('');
    }
    const url = new URL(location.href);
    if (id) url.searchParams.set('agent', id);
    else url.searchParams.delete('agent');
    history.replaceState(null, '', url);
    this.renderList();
    this.renderAgent();
    if (changed || !this.position) this.positions.runNow();
    if (changed && poll) this.panels.runNow();
  }

  // ---- the page ---------------------------------------------------------------------------

  build() {
    const account = this.auth.session?.accountId ?? '';
    this.listEl = h('div.agent-list');
    this.listNote = h('p.note', { role: 'status' });
    this.registerBox = h('div.register');
    const top = h('header.dash-top', null,
      h('a.brand', { href: '/' }, 'Wayfarer'),
      h('span.dash-title', null, 'Agents'),
      h('span.spacer'),
      h('span.account', { title: `Account ${account}` }, account ? `Account ${account.slice(0, 8)}…` : ''),
      h('a.small.play', { href: '/' }, 'Play the game'),
      h('button.small', { onclick: () => { this.stop(); this.auth.signOut(); this.hooks.signedOut(); } }, 'Sign out'));
    const side = h('nav.dash-side', { 'aria-label': 'Your agents' },
      h('h2', null, 'Your agents'), this.listEl, this.listNote, this.registerBox);

    // The chosen agent: head with the controls, then the panels.
    this.nameEl = h('h1.agent-name');
    this.pill = h('span.pill', { role: 'status', 'aria-live': 'polite' });
    this.metaEl = h('p.meta');
    this.stopButton = /** @type {HTMLButtonElement} */ (h('button.btn.stop', { onclick: () => this.pause(true), title: 'Stop: cancel its walk and hold its goal (S)', 'aria-keyshortcuts': 'S' }, 'Stop'));
    this.resumeButton = /** @type {HTMLButtonElement} */ (h('button.btn.resume', { onclick: () => this.pause(false), title: 'Resume its goal (R)', 'aria-keyshortcuts': 'R' }, 'Resume'));
    this.feedbackEl = h('p.feedback', { role: 'status', 'aria-live': 'polite' });
    const head = h('header.agent-head', null,
      h('div.agent-title', null, this.nameEl, this.pill),
      h('div.controls', null, this.stopButton, this.resumeButton),
      this.metaEl, this.feedbackEl);

    // Position
    this.mapCanvas = /** @type {HTMLCanvasElement} */ (h('canvas.agent-map', { role: 'img', 'aria-label': 'Map around the agent' }));
    this.map = new AgentMap(this.mapCanvas, this.terrain);
    this.coordsEl = h('span.coords');
    this.cadenceEl = h('span.cadence');
    this.positionNote = h('p.note', { role: 'status' });
    this.positionPanel = h('section.dpanel.position', { 'aria-labelledby': 'h-position' },
      h('h2#h-position', null, 'Position'), this.mapCanvas,
      h('div.under-map', null, this.coordsEl, this.cadenceEl), this.positionNote);

    // Goal
    this.goalEl = h('div.goal-now');
    this.goalPanel = h('section.dpanel.goal', { 'aria-labelledby': 'h-goal' },
      h('h2#h-goal', null, 'Goal'), this.goalEl, this.goalForm());

    // Commands: quick actions and a message
    this.quickList = h('div.quick-list');
    this.quickNote = h('p.note', { role: 'status' });
    this.messageInput = /** @type {HTMLInputElement} */ (h('input', { name: 'message', placeholder: 'e.g. chopTree res-12, or a note', maxlength: MAX_TEXT, autocomplete: 'off', 'aria-label': 'Message to the agent' }));
    this.messageError = h('p.error', { role: 'alert' });
    const messageForm = h('form.message', { onsubmit: (ev) => { ev.preventDefault(); this.sendMessage(); } },
      this.messageInput, h('button.btn', { type: 'submit' }, 'Send'));
    const commands = h('section.dpanel.commands', { 'aria-labelledby': 'h-commands' },
      h('h2#h-commands', null, 'Quick actions'), this.quickList, this.quickNote,
      h('h3', null, 'Message'), messageForm, this.messageError);

    // Decisions, skills, inventory
    this.decisionsList = h('ol.decisions');
    this.decisionsNote = h('p.note', { role: 'status' });
    const decisions = h('section.dpanel.decisions-panel', { 'aria-labelledby': 'h-decisions' },
      h('h2#h-decisions', null, 'Recent decisions'), this.decisionsList, this.decisionsNote);
    this.skillsEl = h('div.dskills');
    const skills = h('section.dpanel.skills-panel', { 'aria-labelledby': 'h-skills' }, h('h2#h-skills', null, 'Skills'), this.skillsEl);
    this.invEl = h('div.dinv');
    this.invMeta = h('p.meta');
    const inventory = h('section.dpanel.inventory-panel', { 'aria-labelledby': 'h-inventory' },
      h('h2#h-inventory', null, 'Inventory'), this.invEl, this.invMeta);

    this.emptyEl = h('div.empty');
    this.detail = h('div.agent-detail', { hidden: true }, head,
      h('div.dgrid', null, this.positionPanel, this.goalPanel, decisions, commands, skills, inventory));
    this.mainEl = h('main.dash-main', null, this.emptyEl, this.detail);
    fill(this.root, h('div.dash', null, top, h('div.dash-body', null, side, this.mainEl)));
    this.renderCadence();
  }

  /** The set-goal form: a kind, its fields (built from GOAL_KINDS), a description. */
  goalForm() {
    this.goalKind = /** @type {HTMLSelectElement} */ (h('select', { name: 'kind', 'aria-label': 'Goal kind' },
      ...GOAL_KINDS.map((k) => h('option', { value: k.kind }, k.label))));
    this.goalFields = h('div.goal-fields');
    this.goalDescription = /** @type {HTMLInputElement} */ (h('input', { name: 'description', placeholder: 'Description (optional)', maxlength: MAX_TEXT, autocomplete: 'off', 'aria-label': 'Description' }));
    this.goalError = h('p.error', { role: 'alert' });
    const areas = this.terrain.summary?.areas ?? [];
    const datalists = h('div', { hidden: true },
      h('datalist#dl-items', null, ...[...itemDefs.values()].map((d) => h('option', { value: d.id }, d.name))),
      h('datalist#dl-npcs', null, ...[...npcDefs.values()].map((d) => h('option', { value: d.id }, d.name))));
    const renderFields = () => {
      const def = GOAL_KINDS.find((k) => k.kind === this.goalKind.value);
      fill(this.goalFields, ...def.fields.map((f) => {
        const id = `goal-${f.name}`;
        let input;
        if (f.type === 'skill') {
          input = h('select', { id, name: f.name }, ...SKILLS.map((s) => h('option', { value: s }, titleCase(s))));
        } else if (f.type === 'area') {
          input = h('select', { id, name: f.name }, h('option', { value: '' }, f.required ? 'Choose…' : 'Any'),
            ...areas.map((a) => h('option', { value: a.id }, a.name)));
        } else if (f.type === 'int') {
          input = h('input', { id, name: f.name, type: 'number', inputmode: 'numeric', min: f.min, max: f.max, step: 1, required: f.required, placeholder: `${f.min}–${f.max?.toLocaleString('en')}` });
        } else {
          input = h('input', { id, name: f.name, maxlength: f.maxLength, required: f.required, autocomplete: 'off',
            list: f.type === 'item' ? 'dl-items' : f.type === 'npc' ? 'dl-npcs' : undefined, placeholder: f.required ? '' : 'optional' });
        }
        return h('label.field', { for: id }, h('span', null, f.label), input);
      }));
      fill(this.goalError);
    };
    this.goalKind.addEventListener('change', renderFields);
    renderFields();
    const submit = async (ev) => {
      ev.preventDefault();
      const agent = this.current();
      if (!agent) return;
      const form = /** @type {HTMLFormElement} */ (ev.target);
      /** @type {Record<string, string>} */
      const values = {};
      for (const el of form.querySelectorAll('.goal-fields [name]')) values[el.getAttribute('name')] = /** @type {HTMLInputElement} */ (el).value;
      const checked = goalRequest(this.goalKind.value, values, this.goalDescription.value);
      if (!checked.ok) {
        fill(this.goalError, checked.error);
        /** @type {HTMLElement|null} */ (form.querySelector(`[name="${checked.field}"]`))?.focus();
        return;
      }
      fill(this.goalError);
      const button = /** @type {HTMLButtonElement} */ (form.querySelector('button[type=submit]'));
      button.disabled = true;
      try {
        const r = await this.send(`/api/agents/${encodeURIComponent(agent.id)}/goal`, checked.body);
        this.feedback(`Goal set: ${r.goal.description}`);
        this.goalDescription.value = '';
        this.panels.runNow();
      } catch (e) {
        // The server's refusal as it gave it (409 while stopped, 400 for an id content lacks).
        fill(this.goalError, e instanceof ApiError ? `The server refused: ${e.message}` : messageOf(e));
      } finally {
        button.disabled = false;
      }
    };
    return h('form.goal-form', { onsubmit: submit, novalidate: true, 'aria-label': 'Set a goal' },
      h('h3', null, 'Set a goal'),
      h('label.field', null, h('span', null, 'Kind'), this.goalKind),
      this.goalFields,
      h('label.field.wide', null, h('span', null, 'Description'), this.goalDescription),
      h('button.btn.primary-btn', { type: 'submit' }, 'Set goal'),
      this.goalError, datalists);
  }

  // ---- actions ----------------------------------------------------------------------------

  /** @param {boolean} stop */
  async pause(stop) {
    const agent = this.current();
    if (!agent) return;
    const button = stop ? this.stopButton : this.resumeButton;
    button.disabled = true;
    try {
      const r = await this.send(`/api/agents/${encodeURIComponent(agent.id)}/goal/${stop ? 'stop' : 'resume'}`, {});
      agent.paused = !!r.paused;
      agent.state = agent.paused ? 'paused' : agent.connected ? 'running' : 'offline';
      this.feedback(agent.paused ? 'Stopped: its walk is cancelled and its goal held.' : 'Resumed.');
      fill(this.goalError);
      const hadFocus = document.activeElement === button;
      this.renderList();
      this.renderAgent();
      // The pressed button is disabled now: the keyboard goes on to the other one.
      if (hadFocus) (stop ? this.resumeButton : this.stopButton).focus();
      this.panels.runNow();
      this.positions.runNow();
    } catch (e) {
      this.feedback(`Could not ${stop ? 'stop' : 'resume'}: ${messageOf(e)}`, true);
      this.renderAgent();
    }
  }

  /** @param {string} [text] the text to send (a quick action's command), else the message box */
  async sendMessage(text) {
    const agent = this.current();
    if (!agent) return;
    const body = (text ?? this.messageInput.value).trim();
    const problem = messageError(body);
    if (problem) {
      fill(this.messageError, problem);
      if (text === undefined) this.messageInput.focus();
      return;
    }
    fill(this.messageError);
    try {
      await this.send(`/api/agents/${encodeURIComponent(agent.id)}/message`, { text: body });
      if (text === undefined) this.messageInput.value = '';
      this.feedback(`Sent to ${agent.name}: ${body}`);
    } catch (e) {
      fill(this.messageError, e instanceof ApiError ? `The server refused: ${e.message}` : messageOf(e));
    }
  }

  /** @param {string} text @param {boolean} [bad] */
  feedback(text, bad = false) {
    fill(this.feedbackEl, text);
    this.feedbackEl.classList.toggle('bad', bad);
  }

  /** @param {HTMLElement} el @param {string} text */
  note(el, text) {
    fill(el, text ? h('span', null, '⚠ ', text) : '');
  }

  // ---- rendering --------------------------------------------------------------------------

  renderList() {
    if (!this.agents) return fill(this.listEl, h('p.muted', null, 'Loading…'));
    keepingFocus(this.listEl, 'agent', () => fill(this.listEl, ...this.agents.map((a, i) => h('button.agent-item', {
      'data-agent': a.id, 'data-state': a.state, 'aria-current': a.id === this.selected ? 'true' : undefined,
      title: `${a.name} (${i + 1})`, onclick: () => this.choose(a.id),
    },
    h('span.item-top', null, h('b', null, a.name), h('span.pill.small-pill', { 'data-state': a.state }, stateLabel(a))),
    h('small', null, a.goal?.description ?? 'No goal: it chooses its own')))));
  }

  renderAgent() {
    const a = this.current();
    this.detail.hidden = !a;
    this.emptyEl.hidden = !!a;
    if (!a) {
      fill(this.emptyEl, this.agents === null ? h('p.muted', null, 'Loading your agents…') : this.emptyHelp());
      return;
    }
    fill(this.nameEl, a.name);
    this.pill.dataset.state = a.state;
    fill(this.pill, stateLabel(a));
    this.stopButton.disabled = a.paused;
    this.resumeButton.disabled = !a.paused;
    const c = a.character;
    fill(this.metaEl, ...[
      c ? `Combat ${c.combatLevel}` : null,
      c ? `HP ${c.health}/${c.maxHealth}` : null,
      a.reportedAt ? `last report ${ago(Date.parse(a.reportedAt), Date.now())}` : 'no report yet',
      a.tokensSpent !== null ? `${a.tokensSpent.toLocaleString()} model tokens` : null,
      this.listUpdated ? `updated ${time(this.listUpdated)}` : null,
    ].filter(Boolean).flatMap((t, i) => (i ? [h('span.sep', null, '·'), t] : [t])),
    // The model's line (decisions, the planner's take-overs and why, latency, tokens) when it has one.
    ...(a.model ? [h('span.model-report', { 'data-fallbacks': a.model.fallbackTotal }, modelSummary(a.model))] : []));
    this.renderGoal(a);
    this.renderSkills(a);
    this.renderInventory(a);
    this.renderPosition();
  }

  /** @param {AgentView} a */
  renderGoal(a) {
    const g = a.goal;
    if (!g) {
      fill(this.goalEl, h('p.muted', null, 'No goal set: the agent chooses its own.'));
      return;
    }
    const pct = g.progress === null ? null : Math.round(g.progress * 100);
    put(this.goalEl,
      h('p.goal-desc', { 'data-kind': g.kind }, g.description),
      pct === null ? null : h('div.progress', { role: 'progressbar', 'aria-valuenow': pct, 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-label': 'Goal progress' },
        h('i', { style: { width: `${pct}%` } }), h('span', null, `${pct}%`)),
      h('p.meta', null, `${titleCase(g.kind)} · set by ${g.setBy === 'owner' ? 'you' : 'the agent'} ${g.setAt ? ago(Date.parse(g.setAt), Date.now()) : ''}`),
      a.paused ? h('p.hint', null, 'Stopped: resume it before setting a new goal.') : null);
  }

  /** @param {AgentView} a */
  renderSkills(a) {
    const c = a.character;
    if (!c) return fill(this.skillsEl, h('p.muted', null, '—'));
    put(this.skillsEl,
      h('div.dskill-grid', null, ...c.skills.map((s) => h('div.dskill', { 'data-skill': s.skill, title: `${titleCase(s.skill)}: ${s.xp.toLocaleString()} xp` },
        h('span', null, titleCase(s.skill)), h('b', null, String(s.level))))),
      h('p.meta', null, `Total level ${c.totalLevel}`));
  }

  /** @param {AgentView} a */
  renderInventory(a) {
    const c = a.character;
    if (!c) return fill(this.invEl);
    fill(this.invEl, ...c.inventory.map((s, i) => h('div.slot', { 'data-slot': i, 'data-item': s?.itemId, 'aria-label': s ? `${s.name} x${s.quantity}` : `empty slot ${i + 1}` },
      s ? itemIcon(s.itemId, s.name, s.quantity) : null)));
    fill(this.invMeta, `${c.used}/28 slots · ${c.coins.toLocaleString()} coins`);
  }

  renderPosition() {
    const a = this.current();
    if (!a) return;
    const p = this.position;
    const panel = this.positionPanel;
    if (p) {
      panel.dataset.x = String(p.tile.x);
      panel.dataset.z = String(p.tile.z);
      panel.dataset.updates = String(this.positionUpdates);
      put(this.coordsEl, h('b', null, `${p.tile.x}, ${p.tile.z}`), p.online ? null : ' (offline: last saved)', h('small', null, ` at ${time(p.at)}`));
    } else {
      delete panel.dataset.x;
      delete panel.dataset.z;
      fill(this.coordsEl, 'Locating…');
    }
    const others = (this.agents ?? []).filter((o) => o.id !== a.id && o.character).map((o) => ({ name: o.name, tile: o.character.tile }));
    this.map.show({ centre: p?.tile ?? a.character?.tile ?? null, name: a.name, trail: this.trail, others, online: p?.online ?? a.connected });
  }

  renderCadence() {
    fill(this.cadenceEl, `every ${this.positions.period() / 1000} s${this.positions.hidden ? ' (page hidden)' : ''}`);
  }

  /** @param {ReturnType<typeof decisionsView>} list */
  renderDecisions(list) {
    if (!list.length) return fill(this.decisionsList, h('li.muted', null, 'No decisions reported yet.'));
    const now = Date.now();
    put(this.decisionsList, ...list.map((d) => h('li', { 'data-outcome': d.outcome },
      h('div.d-top', null, h('code', null, d.action), d.brain ? h('span.badge', null, d.brain) : null,
        h('span.outcome', null, d.outcome), h('time', null, ago(d.receivedAt, now))),
      d.reason ? h('div.d-reason', null, d.reason) : null)));
  }

  /** @param {ReturnType<typeof quickActionsView>} list */
  renderQuick(list) {
    keepingFocus(this.quickList, 'command', () => fill(this.quickList,
      ...list.map((q) => h('button.btn.quick', { 'data-command': q.command, title: q.command, onclick: () => this.sendMessage(q.command) }, q.label))));
  }

  /** What to do when the account has no agent yet. */
  emptyHelp() {
    return h('div.help', null,
      h('h1', null, 'No agents yet'),
      h('p', null, 'An agent plays one of your characters by itself. Register one on the left, then start it with the command shown; it appears here when it registers.'),
      h('p.muted', null, 'Agents can also be registered with POST /api/agent/register (docs/agent-control.md).'));
  }

  /** The register box: one of the account's characters that has no agent yet, or a new one. */
  renderRegister() {
    if (this.registerBox.dataset.open === 'result') return;
    const taken = new Set((this.agents ?? []).map((a) => a.characterId));
    const free = this.characters.filter((c) => !taken.has(c.id));
    const key = free.map((c) => c.id).join(',') + `|${this.characters.length}`;
    if (this.registerBox.dataset.key === key) return;
    this.registerBox.dataset.key = key;
    const choice = /** @type {HTMLSelectElement} */ (h('select', { name: 'character', 'aria-label': 'Character for the agent' },
      ...free.map((c) => h('option', { value: c.id }, c.name)),
      this.characters.length < 3 ? h('option', { value: '' }, 'A new character…') : null));
    const name = /** @type {HTMLInputElement} */ (h('input', { name: 'newName', placeholder: 'New character name', maxlength: 12, autocomplete: 'off', 'aria-label': 'New character name' }));
    const error = h('p.error', { role: 'alert' });
    const sync = () => { name.hidden = choice.value !== ''; };
    choice.addEventListener('change', sync);
    const wasOpen = this.registerBox.querySelector('details')?.open;
    const box = (...kids) => fill(this.registerBox, h('details.add-agent', { open: wasOpen ?? !this.agents?.length },
      h('summary', null, 'Add an agent'), ...kids));
    if (!choice.options.length) {
      box(h('p.muted', null, 'Every character of this account has an agent (an account has at most 3 characters).'));
      return;
    }
    sync();
    const submit = async (ev) => {
      ev.preventDefault();
      const body = choice.value ? { characterId: choice.value } : { name: name.value.trim() };
      if (!choice.value && !/^[A-Za-z0-9]+( [A-Za-z0-9]+)*$/.test(body.name ?? '')) {
        fill(error, 'A name of 1–12 letters, digits and single spaces');
        name.focus();
        return;
      }
      try {
        const r = await this.send('/api/agent/register', body);
        this.showToken(r);
        this.panels.runNow();
      } catch (e) {
        fill(error, e instanceof ApiError ? `The server refused: ${e.message}` : messageOf(e));
      }
    };
    box(h('form.register-form', { onsubmit: submit }, choice, name, h('button.btn', { type: 'submit' }, 'Register'), error));
  }

  /** After registering: the token, once, and the command that starts the agent. @param {any} r */
  showToken(r) {
    this.registerBox.dataset.open = 'result';
    const command = `wayfarer agent --server ${location.origin} --token ${r.token} --brain planner`;
    const pre = h('pre.command', { tabindex: 0 }, command);
    fill(this.registerBox, h('div.token', null,
      h('h3', null, 'Agent registered'),
      h('p', null, 'Start it with (the token is shown once; registering again issues a new one):'), pre,
      h('div.row', null,
        h('button.btn', { onclick: () => navigator.clipboard?.writeText(command).then(() => this.feedback('Command copied.')) }, 'Copy'),
        h('button.btn', { onclick: () => { delete this.registerBox.dataset.open; delete this.registerBox.dataset.key; this.renderRegister(); } }, 'Done'))));
  }
}
