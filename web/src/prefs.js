// The player's choices kept across reloads in localStorage (the chat tab, the make quantity).
// Storage can be unavailable (private modes, storage switched off): a choice is then only kept
// for the page.

/** @param {string} key @returns {string|null} */
export function getPref(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** @param {string} key @param {string} value */
export function setPref(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch { /* kept for the page only */ }
}
