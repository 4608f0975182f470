// REST calls and the signed-in session: the token in localStorage, refreshed before it expires.
// Shared by the game page and the dashboard-to-come.

const TOKEN_KEY = 'wayfarer.session';
/** Refresh this long before `expiresAt` (tokens live 7 days; a day of margin covers sleeping tabs). */
export const REFRESH_MARGIN_MS = 24 * 3600 * 1000;

/** @typedef {{token: string, accountId: string, expiresAt: string}} Session */

export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** @returns {Session|null} */
export function loadSession() {
  try {
    const s = JSON.parse(localStorage.getItem(TOKEN_KEY) ?? 'null');
    if (s && typeof s.token === 'string' && Date.parse(s.expiresAt) > Date.now()) return s;
  } catch { /* a damaged entry is the same as none */ }
  return null;
}

/** @param {Session|null} s */
export function saveSession(s) {
  if (s) localStorage.setItem(TOKEN_KEY, JSON.stringify(s));
  else localStorage.removeItem(TOKEN_KEY);
}

/**
 * One request. Errors carry the server's `{error, message}`.
 * @param {string} path @param {{method?: string, body?: any, token?: string, signal?: AbortSignal}} [opts]
 */
export async function request(path, opts = {}) {
  /** @type {Record<string,string>} */
  const headers = { accept: 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(path, {
      method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'),
      headers,
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
      signal: opts.signal,
    });
    const text = await res.text();
    const json = text ? JSON.parse(text) : null;
    // A saturated server answers 503 `server_busy` with `Retry-After`: the call did nothing and
    // is made again once that has passed (docs/operations.md, "The database's connections").
    if (res.status === 503 && json?.error === 'server_busy' && attempt < BUSY_ATTEMPTS) {
      await sleep(busyWaitMs(res.headers.get('retry-after')), opts.signal);
      continue;
    }
    if (!res.ok) throw new ApiError(res.status, json?.error ?? 'error', json?.message ?? res.statusText);
    return json;
  }
}

/** How many times a call answered `server_busy` is made before its error is thrown. */
export const BUSY_ATTEMPTS = 10;

/**
 * The wait a `Retry-After` header asks for, in ms: its seconds, 1 s when absent or unreadable, at
 * most 10 s.
 * @param {string|null} header
 */
export function busyWaitMs(header) {
  const secs = Number(header);
  return Math.min(Number.isFinite(secs) && secs > 0 ? secs : 1, 10) * 1000;
}

/** @param {number} ms @param {AbortSignal} [signal] */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}

/** The signed-in account: its token, kept fresh. */
export class Auth {
  constructor() {
    this.session = loadSession();
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.timer = null;
    this.schedule();
  }

  get token() {
    return this.session?.token ?? '';
  }

  /** @param {Session} s */
  set(s) {
    this.session = s;
    saveSession(s);
    this.schedule();
  }

  signOut() {
    this.session = null;
    saveSession(null);
    if (this.timer) clearTimeout(this.timer);
  }

  /** @param {string} [name] */
  async guest(name) {
    this.set(await request('/api/auth/guest', { body: name ? { name } : {} }));
  }

  /** @param {string} idpToken the identity provider's token */
  async idp(idpToken) {
    this.set(await request('/api/auth/idp', { body: { token: idpToken } }));
  }

  /** Swaps the token for a fresh one; on failure keeps the old one until it expires. */
  async refresh() {
    if (!this.session) return;
    try {
      const r = await request('/api/auth/refresh', { method: 'POST', body: {}, token: this.session.token });
      this.set({ ...this.session, token: r.token, expiresAt: r.expiresAt });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return this.signOut();
      this.timer = setTimeout(() => this.refresh(), 60_000);
    }
  }

  /** Refreshes `REFRESH_MARGIN_MS` before expiry (at once when already inside the margin). */
  schedule() {
    if (this.timer) clearTimeout(this.timer);
    if (!this.session) return;
    const due = Date.parse(this.session.expiresAt) - REFRESH_MARGIN_MS - Date.now();
    // setTimeout overflows past ~24.8 days; tokens live 7, but a long-lived one must not fire at once.
    this.timer = setTimeout(() => this.refresh(), Math.min(Math.max(due, 0), 2 ** 31 - 1));
  }

  /** @param {string} path @param {{method?: string, body?: any, signal?: AbortSignal}} [opts] */
  call(path, opts = {}) {
    return request(path, { ...opts, token: this.token });
  }
}

/** @type {Map<string, Promise<any>>} */
const once = new Map();
/**
 * A public resource fetched once per page (skill unlocks, map, prayers): the promise is shared.
 * @param {string} path
 */
export function fetchOnce(path) {
  let p = once.get(path);
  if (!p) {
    p = request(path).catch((e) => {
      once.delete(path);
      throw e;
    });
    once.set(path, p);
  }
  return p;
}
