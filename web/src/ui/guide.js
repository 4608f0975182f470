// What a newcomer is shown (issue 53, item 6): the quest tracker at the top left of the world (the
// step under way, its progress, and the arrow the renderer draws to its target), the reward scroll
// of a completed quest, and the help window (H) listing the controls.

import { h, fill } from '../dom.js';
import { trackedStep, stepTarget, rewardRows, HELP } from '../guide.js';
import { items } from '../content.js';
import { itemPicture } from './panels.js';

/**
 * The tracker: re-read when quests or the world change (at most a few times a second); it sets
 * `renderer.guide`, the tile the arrow points at.
 * @param {import('../game.js').Game} game @param {import('../render.js').Renderer} renderer
 * @param {import('../terrain.js').Terrain} terrain
 */
export function questTracker(game, renderer, terrain) {
  const title = h('div.tracker-title');
  const text = h('div.tracker-step');
  const el = h('div.tracker', { role: 'status', 'aria-label': 'Quest tracker', hidden: true }, title, text);
  let last = 0;
  const update = () => {
    const self = game.world.entities.get(game.selfId) ?? null;
    const step = trackedStep(game.quests.quests, game.questDefs, game.trackedQuest, [...game.world.entities.values()], self);
    renderer.guide = step ? stepTarget(step, game.world.entities.values(), self, terrain.summary) : null;
    el.hidden = !step;
    if (!step) return;
    el.dataset.quest = step.questId ?? '';
    fill(title, step.title);
    fill(text, step.text, step.count ? h('span.tracker-count', null, ` (${step.progress ?? 0}/${step.count})`) : '');
  };
  game.on('quests', update);
  // The world changes every tick; the target is looked for again at most every half second.
  game.on('world', () => {
    const now = performance.now();
    if (now - last < 500) return;
    last = now;
    update();
  });
  return el;
}

/** The reward scroll: a completed quest's name and what it gave; Close, Escape or Enter closes it.
 * @param {import('../game.js').Game} game */
export function rewardScroll(game) {
  const body = h('div.scroll-body');
  const close = () => { game.reward = null; game.emit('reward'); };
  const el = h('div.window.reward-scroll', { role: 'dialog', 'aria-label': 'Quest complete', hidden: true });
  const name = (id) => items.get(id)?.name ?? id.replace(/_/g, ' ');
  game.on('reward', () => {
    const r = game.reward;
    el.hidden = !r;
    if (!r) return;
    el.dataset.quest = r.questId;
    fill(body, ...rewardRows(r.rewards, name).map((row) => h(`li.reward.r-${row.kind}`, null,
      row.kind === 'item' ? itemPicture(row.itemId) : null, row.text)));
    fill(el, h('h2', null, 'Quest complete!'), h('p.scroll-quest', null, `You have completed ${r.name}.`),
      h('p.scroll-sub', null, 'You are awarded:'), h('ul.rewards', null, body),
      h('div.row', null, h('button.primary.close-scroll', { onclick: close }, 'Close')));
  });
  window.addEventListener('keydown', (ev) => {
    if (!game.reward || /** @type {HTMLElement} */ (ev.target).tagName === 'INPUT') return;
    if (ev.key === 'Escape' || ev.key === 'Enter') { close(); ev.preventDefault(); ev.stopPropagation(); }
  }, true);
  return el;
}

/** The help window (H, or the ? button): every control. @returns {{el: HTMLElement, toggle: () => void}} */
export function helpWindow() {
  const el = h('div.window.help#help', { role: 'dialog', 'aria-label': 'Help', hidden: true });
  const toggle = () => { el.hidden = !el.hidden; };
  fill(el, h('header', null, h('h2', null, 'How to play'), h('button.small.close-help', { onclick: toggle, title: 'Close (H or Escape)' }, '×')),
    h('dl.help-keys', null, ...HELP.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)])));
  return { el, toggle };
}
