// What a newcomer is shown to do next (issue 53, item 6): the quest tracker's step and where it
// points, the Game tab's quest lines, the reward scroll's rows. Pure functions over the quest list
// (`quest:list`, `quest:update`), the quest definitions (`/manifests/quests.json`) and the world,
// unit-tested.

/**
 * @typedef {{questId: string, name?: string, status: string, stageId?: string|null, progress?: number, count?: number}} QuestState
 * @typedef {{id: string, type: string, description?: string, npcId?: string, target?: string, count?: number}} StageDef
 * @typedef {{id?: string, name?: string, startNpc?: string, stages?: StageDef[], rewards?: any}} QuestDef
 * @typedef {{questId: string|null, title: string, text: string, progress?: number, count?: number, stage: StageDef|null, npcId?: string}} Step
 */

/** A quest's name: its definition's, the list's, else its id in words. @param {string} id
 * @param {QuestDef|undefined} def @param {string} [listed] */
export function questName(id, def, listed) {
  return def?.name ?? listed ?? id.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
}

/**
 * The step the tracker shows: the stage under way of the quest last advanced (`trackedId` when it
 * is still in progress, else the first in progress); with none, "talk to" the nearest NPC in view
 * offering a quest (its `quest` marker `available`), as the welcome line says; else null.
 * @param {QuestState[]} quests @param {Record<string, QuestDef>} defs @param {string|null} trackedId
 * @param {{kind: string, name?: string, typeId?: string, x: number, z: number, quest?: string}[]} npcsInView
 * @param {{x: number, z: number}|null} self
 * @returns {Step|null}
 */
export function trackedStep(quests, defs, trackedId, npcsInView, self) {
  const going = quests.filter((q) => q.status === 'in_progress' || q.status === 'ready_to_complete');
  const q = going.find((x) => x.questId === trackedId) ?? going[0];
  if (q) {
    const def = defs[q.questId];
    const stages = def?.stages ?? [];
    const stage = stages.find((s) => s.id === q.stageId) ?? (q.status === 'ready_to_complete' ? stages[stages.length - 1] : null) ?? null;
    const text = stage?.description ?? (q.status === 'ready_to_complete' ? 'Hand the quest in' : 'Carry on');
    return { questId: q.questId, title: questName(q.questId, def, q.name), text, progress: q.progress, count: q.count || undefined, stage };
  }
  const offering = npcsInView.filter((e) => e.kind === 'npc' && e.quest === 'available');
  if (!offering.length) return null;
  const near = self
    ? offering.sort((a, b) => Math.max(Math.abs(a.x - self.x), Math.abs(a.z - self.z)) - Math.max(Math.abs(b.x - self.x), Math.abs(b.z - self.z)))[0]
    : offering[0];
  return { questId: null, title: 'Your first task', text: `Talk to ${near.name ?? 'them'} (the ! above a head)`, stage: null, npcId: near.typeId };
}

/** The kind of thing that gives an item when gathered (a resource's `resourceType` or id word).
 * @param {string} itemId */
function gatherSource(itemId) {
  if (/^raw_/.test(itemId)) return { type: /fish|shrimp|trout|salmon|lobster|sardine|herring|anchov|tuna|swordfish|shark|pike/.test(itemId) ? 'fishing' : 'npc', word: itemId.slice(4) };
  if (/_ore$|^coal$|essence/.test(itemId)) return { type: 'rock', word: itemId.replace(/_ore$/, '') };
  if (/logs$/.test(itemId)) return { type: 'tree', word: itemId === 'logs' ? '' : itemId.replace(/_logs$/, '') };
  return null;
}

/** The station an `interact` stage's item is made at. @param {string} itemId */
export function stationFor(itemId) {
  if (/_bar$/.test(itemId)) return 'furnace';
  if (/^(bronze|iron|steel|mithril|adamant|rune)_/.test(itemId)) return 'anvil';
  if (itemId === 'fire') return null;
  return 'range';
}

/**
 * Where the tracker's step points: the entity or place it is about, nearest the player. A talk
 * or kill stage: an NPC of that kind; gather: a resource that gives the item (a fishing spot, the
 * ore's rock, the wood's tree); interact: the station that makes it (furnace, anvil, range); travel:
 * the middle of the area. Null when nothing fitting is in view or known.
 * @param {Step|null} step
 * @param {Iterable<{kind: string, typeId?: string, resourceType?: string, name?: string, depleted?: boolean, x: number, z: number}>} entities
 * @param {{x: number, z: number}|null} self
 * @param {{areas?: {id: string, min: {x:number,z:number}, max: {x:number,z:number}}[], pois?: {kind: string, tile: {x:number,z:number}}[]}|null} map
 * @returns {{x: number, z: number}|null}
 */
export function stepTarget(step, entities, self, map) {
  if (!step) return null;
  const s = step.stage;
  /** @type {(e: any) => boolean} */
  let fits = () => false;
  /** @type {string|null} */
  let poi = null;
  if (!s) {
    if (!step.npcId) return null;
    fits = (e) => e.kind === 'npc' && e.typeId === step.npcId;
  } else if (s.type === 'dialogue' || s.type === 'kill') {
    const npc = s.npcId ?? s.target;
    fits = (e) => e.kind === 'npc' && e.typeId === npc;
  } else if (s.type === 'gather' && s.target) {
    const src = gatherSource(s.target);
    if (!src) return null;
    const word = src.word;
    if (src.type === 'fishing') { fits = (e) => e.kind === 'resource' && (e.resourceType === 'fishing' || e.resourceType === 'fishing_spot'); poi = 'fishing'; }
    else if (src.type === 'rock') fits = (e) => e.kind === 'resource' && !e.depleted && /ore|rock/.test(`${e.resourceType} ${e.typeId}`) && `${e.typeId ?? ''} ${e.name ?? ''}`.toLowerCase().includes(word);
    else if (src.type === 'tree') fits = (e) => e.kind === 'resource' && e.resourceType === 'tree' && !e.depleted && (word ? (e.typeId ?? '').includes(word) : /^(tree|normal_tree|tree_normal)$/.test(e.typeId ?? '') || !/oak|willow|maple|yew|magic|teak|mahogany/.test(e.typeId ?? ''));
  } else if (s.type === 'interact' && s.target) {
    const station = stationFor(s.target);
    if (!station) return null;
    fits = (e) => e.kind === 'resource' && (e.resourceType === station || (station === 'range' && e.resourceType === 'fire'));
    poi = station;
  } else if (s.type === 'travel' && s.target) {
    const a = map?.areas?.find((x) => x.id === s.target);
    return a ? { x: Math.round((a.min.x + a.max.x) / 2), z: Math.round((a.min.z + a.max.z) / 2) } : null;
  }
  const from = self ?? { x: 0, z: 0 };
  const d = (p) => Math.max(Math.abs(p.x - from.x), Math.abs(p.z - from.z));
  let best = null;
  for (const e of entities) if (fits(e) && (!best || d(e) < d(best))) best = e;
  if (best) return { x: best.x, z: best.z };
  if (poi) {
    const p = (map?.pois ?? []).filter((x) => x.kind === poi).sort((a, b) => d(a.tile) - d(b.tile))[0];
    if (p) return { x: p.tile.x, z: p.tile.z };
  }
  return null;
}

/**
 * The Game tab's line for a quest's change, or null when nothing worth a line changed (progress
 * within a stage is shown by the tracker): "Quest updated: <quest>: <the stage now under way>",
 * at the start (after the server's "You have started a new quest") and at each new stage.
 * @param {QuestState|undefined} before @param {QuestState} after @param {QuestDef|undefined} def
 */
export function questLine(before, after, def) {
  const name = questName(after.questId, def, after.name ?? before?.name);
  if (after.status === 'completed') return null;
  const started = !before || before.status === 'not_started' || before.status === 'completed';
  const stage = def?.stages?.find((s) => s.id === after.stageId);
  // The server says "You have started a new quest: …"; this line names the first thing to do.
  if (after.status === 'in_progress' && started) return stage?.description ? `Quest updated: ${name}: ${stage.description}.` : null;
  if (after.status === 'ready_to_complete' && before?.status !== 'ready_to_complete') {
    const last = def?.stages?.[def.stages.length - 1];
    return `Quest updated: ${name}: ${last?.description ?? 'ready to hand in'}.`;
  }
  if (before && after.stageId && before.stageId !== after.stageId) return `Quest updated: ${name}: ${stage?.description ?? after.stageId}.`;
  return null;
}

/**
 * The reward scroll's rows of `quest:complete`: quest points, then items, then XP by skill.
 * @param {{questPoints: number, items: {itemId: string, quantity: number}[], xp: Record<string, number>}} rewards
 * @param {(id: string) => string} itemName
 */
export function rewardRows(rewards, itemName) {
  const rows = [];
  if (rewards?.questPoints) rows.push({ kind: 'qp', text: `${rewards.questPoints} Quest Point${rewards.questPoints === 1 ? '' : 's'}` });
  for (const i of rewards?.items ?? []) rows.push({ kind: 'item', itemId: i.itemId, text: i.quantity > 1 ? `${i.quantity.toLocaleString('en')} × ${itemName(i.itemId)}` : itemName(i.itemId) });
  for (const [skill, xp] of Object.entries(rewards?.xp ?? {})) rows.push({ kind: 'xp', skill, text: `${Math.round(xp).toLocaleString('en')} ${skill[0].toUpperCase()}${skill.slice(1)} XP` });
  return rows;
}

/** The controls listed in the help window (H). */
export const HELP = [
  ['Left click', 'walk, or the first action on what is under the cursor (chop, talk, attack, take)'],
  ['Right click / long press', 'every action on what is there, and Walk here, Examine'],
  ['Follow the arrow', 'the quest tracker (top right) says what to do next and points to it'],
  ['! over a head', 'someone with a quest for you; ? a quest to hand in (grey: under way)'],
  ['Enter', 'chat: plain text is said aloud, /g text to everyone, @name text in private'],
  ['I E K Q P F C B O', 'inventory, worn, skills, quests, prayer, friends, combat, magic, settings'],
  ['M', 'the world map'],
  ['H', 'this help'],
  ['R', 'run on or off'],
  ['X', 'stop what you are doing'],
  ['+ / − / wheel', 'zoom'],
  ['1–9', 'a dialogue answer or a make option'],
  ['Escape', 'close menus and windows'],
];
