// The hover text: what a left click would do, as the classic games print it at the top left of
// the view ("Chop down Tree / 3 more options").

/**
 * The hover line for the options under the cursor (default first): its label, its target, and
 * how many more a right click offers; null for a bare tile (only "Walk here").
 * @param {{label: string, target?: string}[]} entries
 * @returns {{label: string, target: string, more: string}|null}
 */
export function hoverLine(entries) {
  const first = entries[0];
  if (!first || (entries.length === 1 && first.label === 'Walk here')) return null;
  const n = entries.length - 1;
  return { label: first.label, target: first.target ?? '', more: n ? ` / ${n} more option${n === 1 ? '' : 's'}` : '' };
}
