// The game socket: one WebSocket to /ws that reconnects by itself with backoff, and whose state
// ('connecting' | 'open' | 'reconnecting' | 'closed') the page shows. Messages are dispatched by
// type to a handler table (see messages.js). Shared with the dashboard-to-come.

import { backoffDelay } from './backoff.js';

/** Close codes after which reconnecting would be wrong (replaced, kicked, banned). */
const FINAL_CLOSE_CODES = new Set([4000, 4001, 4003]);

/**
 * @typedef {'connecting'|'open'|'reconnecting'|'closed'} SocketState
 * @typedef {{type: string, data: any, ref?: string}} Frame
 */

export class GameSocket {
  /**
   * @param {() => Promise<string>} url builds the URL with a fresh token for each attempt
   * @param {(frame: Frame) => void} onMessage
   * @param {(state: SocketState, detail: string) => void} onState
   */
  constructor(url, onMessage, onState) {
    this.url = url;
    this.onMessage = onMessage;
    this.onState = onState;
    /** @type {WebSocket|null} */
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.timer = null;
    /** @type {SocketState} */
    this.state = 'closed';
  }

  /** @param {SocketState} state @param {string} [detail] */
  setState(state, detail = '') {
    this.state = state;
    this.onState(state, detail);
  }

  async connect() {
    this.stopped = false;
    this.setState(this.attempt === 0 ? 'connecting' : 'reconnecting', this.attempt ? `attempt ${this.attempt + 1}` : '');
    let url;
    try {
      url = await this.url();
    } catch (e) {
      this.retry(String(e));
      return;
    }
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.setState('open');
    };
    ws.onmessage = (ev) => {
      let frame;
      try {
        frame = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      this.onMessage(frame);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return this.setState('closed', 'signed out');
      if (FINAL_CLOSE_CODES.has(ev.code)) {
        this.stopped = true;
        const why = { 4000: 'Signed in elsewhere', 4001: 'Kicked by an admin', 4003: 'Account banned' };
        return this.setState('closed', /** @type {any} */ (why)[ev.code] + (ev.reason ? `: ${ev.reason}` : ''));
      }
      this.retry(ev.code === 1001 ? 'server restarting' : `closed (${ev.code})`);
    };
  }

  /** @param {string} why */
  retry(why) {
    const delay = backoffDelay(this.attempt++);
    this.setState('reconnecting', `${why}; retrying in ${(delay / 1000).toFixed(1)} s`);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Sends one message; false when the socket is not open (the caller's UI stays as it was). 
   * @param {string} type @param {object} [data] @returns {boolean} */
  send(type, data = {}) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify({ type, data }));
    return true;
  }

  /** Drops the connection as a network fault would (tests and the "reconnect" button). */
  drop() {
    this.ws?.close(4999, 'client dropped');
  }

  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close(1000, 'bye');
  }
}
