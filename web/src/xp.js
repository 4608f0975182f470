// The classic XP table (the server's `wayfarer_sim::skills::XP_TABLE`): the XP at which a level is
// reached, xp(L) = floor(¼ · Σ_{n=1}^{L-1} floor(n + 300 · 2^(n/7))).

export const MAX_LEVEL = 99;

/** @type {number[]} */
const TABLE = [0];
{
  let points = 0;
  for (let n = 1; n < MAX_LEVEL; n++) {
    points += Math.floor(n + 300 * 2 ** (n / 7));
    TABLE.push(Math.floor(points / 4));
  }
}

/** XP at which `level` is reached (1 → 0; above 99, the level-99 figure). @param {number} level */
export function xpForLevel(level) {
  return TABLE[Math.min(Math.max(level, 1), MAX_LEVEL) - 1];
}

/**
 * Progress from the current level to the next: the XP still needed and the fraction done.
 * @param {number} xp @param {number} level
 * @returns {{next: number|null, toGo: number, fraction: number}}
 */
export function levelProgress(xp, level) {
  if (level >= MAX_LEVEL) return { next: null, toGo: 0, fraction: 1 };
  const from = xpForLevel(level), to = xpForLevel(level + 1);
  return { next: to, toGo: Math.max(0, to - xp), fraction: Math.min(1, Math.max(0, (xp - from) / (to - from))) };
}
