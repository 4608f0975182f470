// The game session: holds the state the panels show, dispatches server messages through one
// handler table keyed by type, and turns clicks into intents the server validates (the client
// never decides an outcome: it says "walk to", "act on entity with option").

import { GameSocket } from './socket.js';
import { emptyWorld, applyWorldUpdate } from './state.js';
import { noTrade, tradeReducer, requested } from './trade.js';
import { makeAction } from './making.js';
import { castAction, autocastAction } from './magic.js';
import { noDuel, duelReducer, challenged } from './duel.js';

/** The duel's server messages (CONTRACT.md section 11). */
const DUEL_TYPES = ['duelIncoming', 'duel:rules', 'duel:start', 'duel:result', 'duel:cancelled', 'duelError'];
import { getPref, setPref } from './prefs.js';
import { items as contentItems } from './content.js';
import { asSentence, deathSummary, zoneNotice } from './notices.js';
import { questLine, questName } from './guide.js';
import { fetchOnce } from './api.js';

/** Actions whose doing is drawn as work (the player swings their tool until it stops). */
const WORK_ACTIONS = new Set(['gather', 'make', 'cook', 'light_fire']);
const RUN_KEY = 'wayfarer.run';
const STYLE_KEY = 'wayfarer.combatStyle';

/** @typedef {{slot: number, itemId: string, name: string, quantity: number}} InvSlot */

export class Game {
  /**
   * @param {import('./api.js').Auth} auth
   * @param {{id: string, name: string}} character
   * @param {number} tickMs
   */
  constructor(auth, character, tickMs) {
    this.auth = auth;
    this.character = character;
    this.tickMs = tickMs;
    this.selfId = character.id;
    this.world = emptyWorld();
    /** @type {any} */
    this.player = null;
    /** @type {InvSlot[]} */
    this.inventory = [];
    this.coins = 0;
    /** @type {Record<string, {itemId: string, quantity: number}>} */
    this.equipment = {};
    /** @type {Record<string, {level: number, xp: number}>} */
    this.skills = {};
    /** @type {{itemId: string, quantity: number}[]|null} null while closed */
    this.bank = null;
    /** @type {any} */
    this.shop = null;
    /** @type {any} */
    this.dialogue = null;
    /** @type {import('./making.js').MakeOptions|null} the make dialog's offer, null while closed */
    this.make = null;
    /** @type {{quests: any[], questPoints: number}} */
    this.quests = { quests: [], questPoints: 0 };
    /** The quest definitions (`/manifests/quests.json`), for the tracker and the quest lines. @type {Record<string, any>} */
    this.questDefs = {};
    fetchOnce('/manifests/quests.json').then((d) => { this.questDefs = d ?? {}; this.emit('quests'); }).catch(() => {});
    /** @type {string|null} the quest last advanced: the one the tracker follows */
    this.trackedQuest = null;
    /** @type {{questId: string, name: string, rewards: any}|null} the reward scroll's quest, null while closed */
    this.reward = null;
    /** @type {{points: number, maxPoints: number, active: string[]}} */
    this.prayer = { points: 0, maxPoints: 0, active: [] };
    /** @type {{friends: any[], incoming: any[], outgoing: any[], ignored: any[]}} */
    this.friends = { friends: [], incoming: [], outgoing: [], ignored: [] };
    this.trade = noTrade();
    this.duel = noDuel();
    /** Whether walks are sent as runs (kept across reloads), and the run energy the server tells (0–100). */
    this.run = getPref(RUN_KEY) === 'true';
    this.energy = 100;
    /** The combat style last chosen here, accurate until one is (a new character's style on the
     * server). The server keeps it but does not tell it back, so it is sent on every connection:
     * what the combat tab shows is then what the server uses. */
    this.combatStyle = getPref(STYLE_KEY) ?? 'accurate';
    /** Whether an attack on the idle player is answered: the server keeps it and tells it in `player:sync`. */
    this.autoRetaliate = true;
    /** When (performance.now()) the home teleport may be cast again (CONTRACT §14). */
    this.homeReadyAt = 0;
    /** The arena ladder as this player stands on it (`null`: not on it). @type {{queued?: boolean, rating?: number, fightId?: string} | null} */
    this.arena = null;
    /** @type {{areaId: string, name: string, safe: boolean, pvp: boolean}|null} the zone last entered */
    this.zone = null;
    /** @type {(x: number, z: number) => string|null} the name of the area at a tile (the HUD gives the map's areas) */
    this.areaName = () => null;
    /** @type {ReturnType<typeof deathSummary>|null} the death screen's contents, null while closed */
    this.death = null;
    /** @type {{channel: string, fromName: string, text: string, fromId: string}[]} */
    this.chat = [];
    /** @type {Map<string, Set<(detail?: any) => void>>} */
    this.listeners = new Map();
    this.socketState = 'connecting';
    this.socketDetail = '';
    this.firstWorldAt = 0;
    /** @type {{spellId: string, name: string}|null} a spell chosen in the spellbook, waiting for a target */
    this.pendingCast = null;
    /** @type {string|null} the spell the attacks use, as last set here (the server does not tell it back) */
    this.autocast = null;
    /** @type {{slot: number, name: string}|null} an item chosen with "Use", waiting for a target */
    this.pendingUse = null;
    /** @type {string|null} a bank booth walked to, opened once in reach */
    this.pendingBank = null;
    /** @type {{npcId: string, answer: string}|null} "Trade" chosen on a shopkeeper: the answer of
     * their dialogue that opens the store, given for the player when the dialogue opens */
    this.pendingStore = null;
    this.socket = new GameSocket(
      async () => {
        const proto = location.protocol === 'https:' ? 'wss' : 'ws';
        return `${proto}://${location.host}/ws?token=${encodeURIComponent(this.auth.token)}&characterId=${encodeURIComponent(character.id)}`;
      },
      (frame) => this.dispatch(frame),
      (state, detail) => {
        this.socketState = state;
        this.socketDetail = detail;
        if (state === 'open') {
          this.world = emptyWorld();
          // The style chosen here is the one shown: say it again on every connection.
          this.socket.send('player:action', { action: 'combat_style', style: this.combatStyle });
        }
        this.emit('socket');
      },
    );
  }

  start() {
    this.socket.connect();
  }

  /** @param {string} name @param {(detail?: any) => void} fn */
  on(name, fn) {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(fn);
  }

  /** @param {string} name @param {any} [detail] */
  emit(name, detail) {
    for (const fn of this.listeners.get(name) ?? []) fn(detail);
  }

  /** @param {string} type @param {object} [data] */
  send(type, data = {}) {
    if (!this.socket.send(type, data)) this.system('Not connected: the message was not sent.');
  }

  /** @param {string} text */
  system(text) {
    this.addChat({ channel: 'system', fromName: '', fromId: '', text });
  }

  /** @param {{channel: string, fromName: string, text: string, fromId: string}} m */
  addChat(m) {
    this.chat.push(m);
    if (this.chat.length > 200) this.chat.splice(0, this.chat.length - 200);
    this.emit('chat', m);
  }

  /** @param {{type: string, data: any}} frame */
  dispatch(frame) {
    const handler = HANDLERS[frame.type];
    if (handler) handler(this, frame.data ?? {});
  }

  // Intents: the server paths, checks reach and refuses what is not possible.
  /** @param {number} x @param {number} z */
  // Walking away or doing something else leaves the make dialog's offer behind, as in the classic games.
  walk(x, z) {
    this.closeMake();
    this.emit('work', null);
    this.send('player:move', this.run ? { x, z, run: true } : { x, z });
  }
  /** @param {string} action @param {{targetId?: string, [k: string]: any}} [fields] */
  act(action, fields = {}) {
    this.closeMake();
    this.cancelUse();
    this.emit('work', WORK_ACTIONS.has(action) ? { kind: action, targetId: fields.targetId } : null);
    this.send('player:action', { action, ...fields });
  }

  /** Run on or off (kept across reloads); the next walk runs while there is energy. @param {boolean} on */
  setRun(on) {
    this.run = on;
    setPref(RUN_KEY, String(on));
    this.emit('run');
  }

  /** Chooses a combat style (the server checks it suits the weapon). @param {string} style */
  setCombatStyle(style) {
    this.combatStyle = style;
    setPref(STYLE_KEY, style);
    this.send('player:action', { action: 'combat_style', style });
    this.emit('combatStyle');
  }

  /** Auto-retaliate on or off (the server keeps it with the character). @param {boolean} on */
  setAutoRetaliate(on) {
    this.autoRetaliate = on;
    this.send('player:action', { action: 'auto_retaliate', enabled: on });
    this.emit('autoRetaliate');
  }

  /** Stops walking and whatever the player is doing. */
  stop() {
    this.closeMake();
    this.cancelUse();
    this.emit('work', null);
    this.send('player:action', { action: 'stop' });
  }

  closeDeath() {
    this.death = null;
    this.emit('death');
  }

  /**
   * Makes a recipe of the make dialog's offer `quantity` times (or `"all"`) and closes it.
   * @param {string} recipeId @param {number|'all'} quantity
   */
  chooseMake(recipeId, quantity) {
    const offer = this.make;
    if (!offer) return;
    this.closeMake();
    this.cancelUse();
    this.emit('work', { kind: 'make', targetId: offer.context.targetId });
    this.send('player:action', makeAction(offer, recipeId, quantity));
  }

  closeMake() {
    if (!this.make) return;
    this.make = null;
    this.emit('make');
  }

  /** @param {import('./state.js').Entity} e */
  requestTrade(e) {
    this.trade = requested(this.trade, e.id, e.name ?? e.id);
    this.send('tradeRequest', { targetPlayerId: e.id });
    this.emit('trade');
  }

  /** Challenges another player to a duel. @param {import('./state.js').Entity} e */
  challenge(e) {
    this.duel = challenged(this.duel, e.id, e.name ?? e.id);
    if (this.duel.message) this.system(this.duel.message);
    this.send('duel:challenge', { targetPlayerId: e.id });
    this.emit('duel');
  }

  /** A bank booth: walk next to it (the server checks reach), then open the bank. 
   * @param {import('./state.js').Entity} e */
  openBankAt(e) {
    const self = this.world.entities.get(this.selfId);
    const near = self && Math.max(Math.abs(self.x - e.x), Math.abs(self.z - e.z)) <= 2;
    if (near) return this.send('bank:open');
    this.walk(e.x, e.z + 1);
    this.pendingBank = e.id;
  }

  /** A spell chosen: the next creature or player clicked is its target. @param {{spellId: string, name: string}} spell */
  beginCast(spell) {
    this.pendingUse = null;
    this.pendingCast = spell;
    this.emit('use');
  }

  /** Casts the chosen spell on an entity. @param {import('./state.js').Entity} e */
  castOn(e) {
    const cast = this.pendingCast;
    if (!cast) return;
    this.pendingCast = null;
    this.emit('use');
    this.send('player:action', castAction(cast.spellId, e.id));
  }

  /** Sets the spell the attacks use, or none. @param {string|null} spellId */
  setAutocast(spellId) {
    this.autocast = spellId;
    this.send('player:action', autocastAction(spellId));
    this.emit('autocast');
  }

  /** "Use" an inventory item: the next target chosen (item or entity) receives it. 
   * @param {{slot: number, name: string}} slot */
  beginUse(slot) {
    this.pendingCast = null;
    this.pendingUse = { slot: slot.slot, name: slot.name };
    this.emit('use');
  }

  cancelUse() {
    if (!this.pendingUse && !this.pendingCast) return;
    this.pendingUse = null;
    this.pendingCast = null;
    this.emit('use');
  }

  /** @param {import('./state.js').Entity} e */
  useOnEntity(e) {
    const use = this.pendingUse;
    if (!use) return;
    this.pendingUse = null;
    this.emit('use');
    this.send('inventory:use', { slot: use.slot, targetId: e.id });
  }

  /** @param {number} targetSlot */
  useOnSlot(targetSlot) {
    const use = this.pendingUse;
    if (!use) return;
    this.pendingUse = null;
    this.emit('use');
    if (use.slot !== targetSlot) this.send('inventory:use', { slot: use.slot, targetSlot });
  }
}

/** @type {Record<string, (g: Game, d: any) => void>} */
const HANDLERS = {
  'player:sync': (g, d) => {
    g.player = d;
    g.inventory = d.inventory ?? [];
    g.coins = d.coins ?? 0;
    g.equipment = d.equipment ?? {};
    g.skills = d.skills ?? {};
    if (typeof d.stamina === 'number') g.energy = d.stamina;
    if (typeof d.autoRetaliate === 'boolean') g.autoRetaliate = d.autoRetaliate;
    if (typeof d.homeTeleportCooldown === 'number') g.homeReadyAt = performance.now() + d.homeTeleportCooldown * 1000;
    g.emit('homeTeleport');
    g.emit('inventory');
    g.emit('equipment');
    g.emit('skills');
    g.emit('player');
    g.emit('run');
    g.emit('autoRetaliate');
  },
  'world:update': (g, d) => {
    applyWorldUpdate(g.world, d, performance.now());
    if (typeof d.stamina === 'number' && d.stamina !== g.energy) {
      g.energy = d.stamina;
      g.emit('run');
    }
    if (!g.firstWorldAt) {
      g.firstWorldAt = performance.now();
      g.emit('firstWorld');
    }
    const self = g.world.entities.get(g.selfId);
    if (self && g.player) {
      g.player.health = self.health ?? g.player.health;
      g.player.maxHealth = self.maxHealth ?? g.player.maxHealth;
    }
    if (g.pendingBank && self) {
      const booth = g.world.entities.get(g.pendingBank);
      if (!booth) g.pendingBank = null;
      else if (Math.max(Math.abs(self.x - booth.x), Math.abs(self.z - booth.z)) <= 2) {
        g.pendingBank = null;
        g.send('bank:open');
      }
    }
    g.emit('world');
  },
  'chat:message': (g, d) => g.addChat(d),
  'inventory:update': (g, d) => {
    g.inventory = d.inventory;
    g.coins = d.coins;
    g.emit('inventory');
  },
  'equipment:update': (g, d) => {
    g.equipment = d.equipment;
    g.emit('equipment');
  },
  'skill:xp': (g, d) => {
    g.skills[d.skill] = { level: d.level, xp: d.xp };
    g.emit('skills');
    g.emit('xp', d);
    if (d.leveledUp) g.system(`Congratulations, you just advanced a ${d.skill} level. You are now level ${d.level}.`);
  },
  'combat:hit': (g, d) => {
    const e = g.world.entities.get(d.targetId);
    if (e) {
      e.health = d.targetHealth;
      e.maxHealth = d.targetMaxHealth;
    }
    g.emit('hit', d);
  },
  error: (g, d) => g.system(asSentence(d.message ?? d.code)),
  // CONTRACT §14: an emote of a player in view (the figure's name says who), and the home teleport.
  'player:emote': (g, d) => {
    const who = g.world.entities.get(d.playerId)?.name ?? 'Someone';
    g.system(`${who}: *${d.emote}*`);
    g.emit('emote', d);
  },
  'player:homeTeleport': (g, d) => {
    g.homeReadyAt = performance.now() + (d.cooldownSeconds ?? 0) * 1000;
    if (d.status === 'casting') g.system('You begin teleporting home…');
    else if (d.status === 'interrupted') g.system('Your teleport home was interrupted.');
    else if (d.status === 'arrived') g.system('You arrive home.');
    g.emit('homeTeleport');
  },
  // CONTRACT §15: the arena ladder, told in the chat box until the arena page (issue 55) draws it;
  // the fight itself comes as the duel's messages.
  'arena:queued': (g, d) => {
    g.arena = { queued: true, rating: d.rating };
    g.system(`You are on the arena ladder (rating ${Math.round(d.rating)}, ${ordinal(d.position)} in the queue).`);
  },
  'arena:match': (g, d) => {
    g.arena = { ...g.arena, fightId: d.fightId };
    const secs = Math.max(0, Math.round((d.startsAt - Date.now()) / 1000));
    g.system(`Arena match: ${d.opponentName} (rating ${Math.round(d.opponentRating)}), the fight starts in ${secs} s.`);
  },
  'arena:cancelled': (g, d) => g.system(`The arena fight was cancelled (${String(d.reason).replace(/_/g, ' ')}).`),
  'arena:left': (g) => {
    g.arena = null;
    g.system('You left the arena ladder.');
  },
  'arena:result': (g, d) => {
    const mine = d.ratings?.[g.selfId];
    const won = d.winnerId === g.selfId;
    g.arena = null;
    const change = mine ? ` Rating ${Math.round(mine.before)} → ${Math.round(mine.after)}.` : '';
    g.system(`${won ? 'You won' : 'You lost'} the arena fight.${change}`);
  },
  'friend:list': (g, d) => {
    g.friends = d;
    g.emit('friends');
  },
  'friend:incoming': (g, d) => {
    g.system(`${d.fromName} wants to be your friend.`);
    g.send('friend:list');
  },
  'friend:status': (g, d) => {
    const f = g.friends.friends.find((x) => x.id === d.id);
    if (f) f.online = d.online;
    g.system(`${d.name} has logged ${d.online ? 'in' : 'out'}.`);
    g.emit('friends');
  },
  'bank:update': (g, d) => {
    g.bank = d.items;
    g.emit('bank');
  },
  'shop:open': (g, d) => {
    g.shop = d;
    g.emit('shop');
    // The store was opened from a dialogue ("Show me your wares"), which the server has ended: its
    // last line would only cover the shop window.
    if (g.dialogue) {
      g.dialogue = null;
      g.emit('dialogue');
    }
  },
  'shop:update': (g, d) => {
    g.shop = d;
    g.emit('shop');
  },
  'shop:close': (g) => {
    g.shop = null;
    g.emit('shop');
  },
  'prayer:update': (g, d) => {
    g.prayer = d;
    g.emit('prayer');
  },
  'dialogue:open': (g, d) => {
    // A closing line with nothing to answer while a shop is open (the store's "Take your time.",
    // after which the server ends the conversation) would only cover the shop.
    if (g.shop && !d.responses?.length) return;
    // "Trade" on a shopkeeper: answer for the player with the line that opens the store.
    const store = g.pendingStore;
    if (store && store.npcId === d.npcId) {
      g.pendingStore = null;
      const r = (d.responses ?? []).find((x) => x.text === store.answer);
      if (r) {
        g.send('dialogue:respond', { npcId: d.npcId, index: r.index });
        return;
      }
    }
    g.dialogue = d;
    g.emit('dialogue');
  },
  'dialogue:close': (g, d) => {
    // The final node's text stays readable until the player moves on, as in the classic games.
    if (d.reason !== 'end') g.dialogue = null;
    else if (g.dialogue) g.dialogue = { ...g.dialogue, ended: true };
    g.emit('dialogue');
  },
  // What can be made here (CONTRACT.md section 9): the make dialog shows it until a choice.
  'make:options': (g, d) => {
    g.make = d;
    g.emit('make');
  },
  // Zones and death (CONTRACT.md section 10).
  'zone:enter': (g, d) => {
    g.zone = d;
    const n = zoneNotice(d);
    if (n.warning) g.system(n.warning);
    g.emit('zone', n);
  },
  'player:death': (g, d) => {
    const killer = d.killerId ? g.world.entities.get(d.killerId) : undefined;
    g.death = deathSummary(d, (id) => nameOfItem(g, id), Date.now(), {
      // NPC ids are `npc-…`; a killer out of view is a player otherwise.
      killerIsPlayer: killer ? killer.kind === 'player' : !!d.killerId && !d.killerId.startsWith('npc-'),
      areaName: g.areaName,
    });
    g.emit('work', null);
    g.emit('death');
  },
  'quest:list': (g, d) => {
    g.quests = d;
    g.emit('quests');
  },
  'quest:update': (g, d) => {
    const q = g.quests.quests.find((x) => x.questId === d.questId);
    // Each new stage is a line in the Game tab ("Quest updated: …"); the tracker follows this quest.
    const line = questLine(q ? { ...q } : undefined, { ...q, ...d }, g.questDefs[d.questId]);
    if (line) g.addChat({ channel: 'game', fromName: '', fromId: '', text: line });
    if (d.status === 'in_progress' || d.status === 'ready_to_complete') g.trackedQuest = d.questId;
    if (q) Object.assign(q, d);
    else g.quests.quests.push(d);
    g.emit('quests');
  },
  'quest:complete': (g, d) => {
    g.quests.questPoints = d.questPoints;
    const q = g.quests.quests.find((x) => x.questId === d.questId);
    const name = questName(d.questId, g.questDefs[d.questId], q?.name);
    if (q) q.status = 'completed';
    if (g.trackedQuest === d.questId) g.trackedQuest = null;
    // The server's line says it ("Congratulations! You have completed …"); the scroll shows what it gave.
    g.reward = { questId: d.questId, name, rewards: d.rewards };
    g.emit('reward');
    g.emit('quests');
  },
};

// Duels (CONTRACT.md section 11): one reducer, as the trade's; the window shows its state.
for (const type of DUEL_TYPES) {
  HANDLERS[type] = (g, d) => {
    g.duel = duelReducer(g.duel, type, d, g.selfId);
    if (type === 'duelIncoming') g.system(`${d.fromPlayerName} wishes to duel with you.`);
    if (type === 'duel:start') g.emit('levelup', { text: 'Fight!' });
    if (g.duel.phase === 'done') {
      if (g.duel.message) g.system(g.duel.message);
      if (type === 'duel:result') g.emit('levelup', { text: g.duel.message });
    }
    g.emit('duel');
  };
}

for (const type of ['tradeIncoming', 'tradeStarted', 'tradeUpdated', 'tradeConfirmScreen', 'tradeCompleted', 'tradeCancelled', 'tradeError']) {
  HANDLERS[type] = (g, d) => {
    g.trade = tradeReducer(g.trade, type, d, g.selfId);
    if (type === 'tradeIncoming') g.system(`${d.fromPlayerName} wishes to trade with you.`);
    g.emit('trade');
  };
}

// The agent control plane (docs/agent-control.md) speaks only to sockets opened with an agent's
// token; a player's browser never hears it. Listed so the table stays complete against the protocol.
for (const type of ['agent:goal', 'agent:stop', 'agent:resume', 'agent:message']) {
  HANDLERS[type] = () => {};
}

/** An item's name as the player knows it (content, else the inventory, else the id in words). @param {Game} g @param {string} id */
function nameOfItem(g, id) {
  return contentItems.get(id)?.name ?? g.inventory.find((s) => s.itemId === id)?.name ?? id.replace(/_/g, ' ');
}

/** Server messages of CONTRACT.md sections 10 and 11 that other work adds to the protocol: handled
 * here already; the unit test accepts them before the checked-in schema lists them. */
export const ANNOUNCED_TYPES = ['zone:enter', 'player:death', ...DUEL_TYPES];

/** The message types this client handles (checked against docs/protocol.md by a unit test). */
/** 1st, 2nd, 3rd, 4th … */
function ordinal(n) {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

export const HANDLED_TYPES = Object.keys(HANDLERS);
