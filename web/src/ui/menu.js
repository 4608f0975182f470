// The right-click menu, rebuilt from what is under the cursor; a left click runs its first entry
// (the classic games' rule). Entity options follow the protocol's actions.

import { h } from '../dom.js';
import { npcs, items } from '../content.js';
import { entitiesAt } from '../state.js';

/**
 * @typedef {{label: string, target?: string, run: () => void}} MenuEntry
 * @typedef {import('../state.js').Entity} Entity
 */

/**
 * The options of one entity, default first.
 * @param {import('../game.js').Game} game
 * @param {Entity} e
 * @param {(text: string) => void} examine
 * @returns {MenuEntry[]}
 */
export function entityOptions(game, e, examine) {
  const name = e.name ?? e.itemId ?? e.id;
  /** @type {MenuEntry[]} */
  const out = [];
  const act = (action) => () => game.act(action, { targetId: e.id });
  if (e.kind === 'player') {
    if (e.id === game.selfId) return [];
    out.push({ label: 'Trade with', target: name, run: () => game.requestTrade(e) });
    out.push({ label: 'Follow', target: name, run: act('follow') });
    out.push({ label: 'Attack', target: name, run: act('attack') });
    out.push({ label: 'Challenge', target: name, run: () => game.challenge(e) });
    out.push({ label: 'Add friend', target: name, run: () => game.send('friend:request', { name }) });
  } else if (e.kind === 'npc') {
    const def = npcs.get(e.typeId ?? '');
    const attackable = def ? def.combat?.attackable !== false : true;
    const talks = def ? !!def.dialogue || !!def.services?.types?.length : !attackable;
    if (talks) out.push({ label: 'Talk-to', target: name, run: act('interact') });
    // A shopkeeper also offers "Trade", which opens the store straight away: the client answers the
    // dialogue with the store's line (the one whose effect is `openStore`), as a player would.
    const answer = storeAnswer(def);
    if (answer && e.typeId) out.push({ label: 'Trade', target: name, run: () => { game.pendingStore = { npcId: /** @type {string} */ (e.typeId), answer }; act('interact')(); } });
    if (attackable) out.push({ label: 'Attack', target: name, run: act('attack') });
    if (!talks && !attackable) out.push({ label: 'Talk-to', target: name, run: act('interact') });
  } else if (e.kind === 'groundItem') {
    out.push({ label: 'Take', target: name, run: act('pickup') });
  } else if (e.kind === 'obstacle') {
    out.push({ label: obstacleVerb(e.resourceType), target: name, run: act('interact') });
  } else {
    const t = e.resourceType ?? '';
    if (t === 'tree') out.push({ label: 'Chop down', target: name, run: act('gather') });
    else if (t === 'fishing' || /fish/.test(e.typeId ?? '')) out.push({ label: 'Fish', target: name, run: act('gather') });
    else if (t === 'rock' || t === 'ore' || /ore|rock/.test(e.typeId ?? '')) out.push({ label: 'Mine', target: name, run: act('gather') });
    else if (t === 'bank') out.push({ label: 'Bank', target: name, run: () => game.openBankAt(e) });
    else if (t === 'altar') out.push({ label: 'Pray-at', target: name, run: act('interact') });
    else if (/_altar$/.test(t)) out.push({ label: 'Craft-rune', target: name, run: act('interact') });
    // A station used answers what can be made there (the make dialog).
    else if (t === 'fire' || t === 'range') out.push({ label: 'Cook-at', target: name, run: act('interact') });
    else out.push({ label: 'Use', target: name, run: act('interact') });
  }
  out.push({ label: 'Examine', target: name, run: () => examine(describe(e)) });
  return out;
}

/**
 * What crossing an agility obstacle is called, by its kind (`interact` crosses any of them).
 * @param {string|undefined} kind
 * @returns {string}
 */
export function obstacleVerb(kind) {
  return ({ log_balance: 'Walk-across', ledge: 'Climb', net: 'Climb-over', pipe: 'Squeeze-through' })[kind ?? ''] ?? 'Cross';
}

/**
 * The answer of an NPC's opening dialogue that opens its store, if it has one.
 * @param {any} def the NPC's definition
 * @returns {string|null}
 */
export function storeAnswer(def) {
  const d = def?.dialogue;
  if (!d?.nodes) return null;
  const entry = d.nodes.find((n) => n.id === d.entryNodeId) ?? d.nodes[0];
  return entry?.responses?.find((r) => /(^|&)openStore/.test(r.effect ?? ''))?.text ?? null;
}

/** The examine text of an entity. @param {Entity} e */
function describe(e) {
  if (e.kind === 'npc') return npcs.get(e.typeId ?? '')?.description ?? `It's ${e.name}.`;
  if (e.kind === 'groundItem') {
    const d = items.get(e.itemId ?? '');
    return `${d?.examine ?? d?.description ?? e.name ?? e.itemId} (x${e.quantity ?? 1})`;
  }
  if (e.kind === 'player') return `${e.name}, a fellow wayfarer.`;
  return e.depleted ? `${e.name ?? 'It'}: depleted for now.` : `${e.name ?? e.resourceType}.`;
}

/**
 * What is under a click on tile (x, z), nearest first: the entities on the tile (not oneself),
 * then trees whose canopy reaches over it (a tree is drawn a tile taller than its own tile). A
 * station, rock or fishing spot is only its own tile: a click beside one walks.
 * @param {import('../game.js').Game} game
 * @param {number} x @param {number} z
 * @returns {Entity[]}
 */
export function entitiesUnder(game, x, z) {
  // Doors and gates open when walked through (CONTRACT §13): a click on one walks there.
  const here = entitiesAt(game.world, x, z, 0).filter((e) => e.id !== game.selfId && e.resourceType !== 'door' && e.resourceType !== 'gate');
  const canopy = entitiesAt(game.world, x, z + 1, 0).filter((e) => e.kind === 'resource' && e.resourceType === 'tree' && !e.depleted);
  return [...here, ...canopy];
}

/**
 * Everything a click on tile (x, z) could mean, default first: the entities under it, then walking.
 * @param {import('../game.js').Game} game
 * @param {number} x @param {number} z
 * @returns {MenuEntry[]}
 */
export function optionsAt(game, x, z) {
  const examine = (t) => game.system(t);
  const pending = game.pendingUse;
  const cast = game.pendingCast;
  /** @type {MenuEntry[]} */
  const out = [];
  for (const e of entitiesUnder(game, x, z)) {
    if (cast) {
      // A spell goes on creatures and other players only.
      if ((e.kind === 'npc' || e.kind === 'player') && e.id !== game.selfId) out.push({ label: `Cast ${cast.name} ->`, target: e.name ?? e.id, run: () => game.castOn(e) });
      continue;
    }
    if (pending) {
      out.push({ label: `Use ${pending.name} ->`, target: e.name ?? e.itemId ?? e.id, run: () => game.useOnEntity(e) });
      continue;
    }
    out.push(...entityOptions(game, e, examine));
  }
  out.push({ label: 'Walk here', run: () => game.walk(x, z) });
  if (pending || cast) out.push({ label: 'Cancel', run: () => game.cancelUse() });
  return out;
}

/** The floating menu element (one per page). */
export class ContextMenu {
  constructor() {
    this.el = h('div.menu', { role: 'menu', hidden: true });
    document.body.append(this.el);
    window.addEventListener('pointerdown', (ev) => {
      if (!this.el.contains(/** @type {Node} */ (ev.target))) this.close();
    });
    window.addEventListener('keydown', (ev) => {
      if (this.el.hidden) return;
      if (ev.key === 'Escape') this.close();
      // Arrow keys move through the options (Enter or Space runs the focused one).
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
        const items = /** @type {HTMLElement[]} */ ([...this.el.querySelectorAll('.menu-item')]);
        const at = items.indexOf(/** @type {HTMLElement} */ (document.activeElement));
        const down = ev.key === 'ArrowDown';
        const next = at < 0 ? (down ? 0 : items.length - 1) : (at + (down ? 1 : items.length - 1)) % items.length;
        items[next]?.focus();
        ev.preventDefault();
      }
    });
  }

  /** @param {number} x @param {number} y @param {MenuEntry[]} entries @param {string} [title] */
  open(x, y, entries, title = 'Choose option') {
    this.el.replaceChildren(
      h('div.menu-title', null, title),
      ...entries.map((en, i) =>
        h('button.menu-item', { role: 'menuitem', 'data-index': i, onclick: () => { this.close(); en.run(); } },
          en.label, en.target ? h('span.menu-target', null, ` ${en.target}`) : null),
      ),
    );
    this.el.hidden = false;
    const r = this.el.getBoundingClientRect();
    this.el.style.left = `${Math.min(x, window.innerWidth - r.width - 4)}px`;
    this.el.style.top = `${Math.min(y, window.innerHeight - r.height - 4)}px`;
    /** @type {HTMLElement|null} */ (this.el.querySelector('button'))?.focus();
  }

  close() {
    this.el.hidden = true;
  }
}
