// A tiny element builder: the client has no framework, and panels rebuild their small DOM trees
// when their state changes.

/**
 * @param {string} tag e.g. 'div.panel#bank'
 * @param {Record<string, any>|null} [attrs] attributes; `on*` functions become listeners
 * @param {...(Node|string|number|null|undefined|false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const [name, ...rest] = tag.split(/(?=[.#])/);
  const el = document.createElement(name || 'div');
  for (const part of rest) {
    if (part.startsWith('.')) el.classList.add(part.slice(1));
    else if (part.startsWith('#')) el.id = part.slice(1);
  }
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    // Styles only through the CSSOM: a `style` attribute is inline style, which the server's
    // Content-Security-Policy (style-src 'self') refuses.
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k === 'style') throw new TypeError('h(): pass style as an object, not a string');
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** Replaces an element's children. @param {Element} el @param {...(Node|string)} children */
export function fill(el, ...children) {
  el.replaceChildren(...children);
}

/** Short numbers for stacks: 1.2K, 45M, as the classic games show them. @param {number} n */
export function shortNumber(n) {
  if (n >= 10_000_000) return `${Math.floor(n / 1_000_000)}M`;
  if (n >= 100_000) return `${Math.floor(n / 1000)}K`;
  return String(n);
}

/** A skill's name: its id in Title Case, but the server's `defense` is written Defence, as the
 * combat tab's styles name it ("Defensive: Defence"). @param {string} id */
export function skillName(id) {
  return id === 'defense' ? 'Defence' : titleCase(id);
}

/** Title Case of a snake_case id. @param {string} s */
export function titleCase(s) {
  return s.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
}
