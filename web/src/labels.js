// Where a name goes so that it overlaps no name already placed: at its wanted spot, else stacked
// upwards a line at a time (a crowd on one tile reads as a list). Pure, unit-tested.

/** How many lines a name may climb before it is left out (shown on hover instead). */
export const MAX_STACK = 6;

/**
 * Places a label of width `w` and height `h` centred on `x` with its baseline at `y`, moving it
 * up a line at a time past every placed label it would overlap; records and returns where it
 * went, or null when it found no room within MAX_STACK lines.
 * @param {{x: number, y: number, w: number, h: number}[]} placed labels placed so far (left, baseline, size)
 * @param {number} x @param {number} y @param {number} w @param {number} h
 * @returns {{x: number, y: number, w: number, h: number}|null}
 */
export function placeLabel(placed, x, y, w, h) {
  const left = x - w / 2;
  for (let i = 0; i <= MAX_STACK; i++) {
    const top = y - i * h;
    const hit = placed.some((p) => left < p.x + p.w && p.x < left + w && top - h < p.y && p.y - p.h < top);
    if (!hit) {
      const spot = { x: left, y: top, w, h };
      placed.push(spot);
      return spot;
    }
  }
  return null;
}
