// Animation state: which pose a figure is drawn in at a moment. Walking alternates steps while an
// entity slides to its new tile; an attacker swings when its hit lands (`combat:hit`); the player
// swings while gathering or making (from the action sent until they move, act otherwise, or the
// work stops: nothing gained for a while); a figure whose health reaches 0 falls over. Pure
// over plain data and times, so the unit tests drive it with a fake clock.

/** How long one swing is drawn raised, ms. */
export const SWING_MS = 260;
/** How long a death takes to draw (falling, then fading), ms. */
export const DYING_MS = 1200;
/** With nothing gained for this many ticks, the work is over (the server has no "stopped" message). */
export const IDLE_TICKS = 8;

export class Motion {
  constructor() {
    /** @type {Map<string, number>} when each entity last swung (an attack landed) */
    this.swings = new Map();
    /** @type {Map<string, number>} when each entity's health reached 0 */
    this.deaths = new Map();
    /** @type {Map<string, any>} the entities that died, kept to finish falling after the server
     * removes them (an NPC leaves the world the tick it dies) */
    this.corpses = new Map();
    /** @type {{kind: string, targetId?: string, since: number, lastGain: number}|null} the player's own work */
    this.work = null;
  }

  /**
   * An attack landed: its attacker swings, its target falls if it died.
   * @param {{attackerId: string, targetId: string, targetHealth: number}} hit @param {number} now
   * @param {object} [target] the target's entity, kept to draw its fall after it leaves the world
   */
  hit(hit, now, target) {
    this.swings.set(hit.attackerId, now);
    if (hit.targetHealth <= 0) {
      this.deaths.set(hit.targetId, now);
      if (target) this.corpses.set(hit.targetId, target);
    }
  }

  /**
   * The dead still falling that are no longer in the world (`present` says which ids are), to be
   * drawn; those whose fall is over are forgotten.
   * @param {(id: string) => boolean} present @param {number} now
   * @returns {any[]}
   */
  fallen(present, now) {
    const out = [];
    for (const [id, e] of this.corpses) {
      const died = this.deaths.get(id);
      if (died === undefined || now - died >= DYING_MS) {
        this.corpses.delete(id);
        if (!present(id)) this.deaths.delete(id);
      } else if (!present(id)) out.push(e);
    }
    return out;
  }

  /** The player began work (gathering, making, cooking). @param {string} kind @param {string|undefined} targetId @param {number} now */
  begin(kind, targetId, now) {
    this.work = { kind, targetId, since: now, lastGain: now };
  }

  /** Something was gained (XP, an item): the work goes on. @param {number} now */
  gained(now) {
    if (this.work) this.work.lastGain = now;
  }

  /** The player walked or did something else. */
  stop() {
    this.work = null;
  }

  /** An entity left the view or came back to life: forget its death. @param {string} id */
  revive(id) {
    this.deaths.delete(id);
  }

  /**
   * The pose of an entity at `now`, and how far into dying it is (0–1, or null when alive).
   * @param {{id: string, x: number, z: number, px?: number, pz?: number, movedAt?: number, health?: number}} e
   * @param {boolean} self whether it is the player (whose own work shows)
   * @param {number} now @param {number} tickMs
   * @returns {{pose: 'stand'|'stepL'|'stepR'|'swing', dying: number|null}}
   */
  pose(e, self, now, tickMs) {
    const died = this.deaths.get(e.id);
    if (died !== undefined) {
      if ((e.health ?? 1) > 0 && now - died > DYING_MS) this.deaths.delete(e.id);
      else return { pose: 'stand', dying: Math.min(1, (now - died) / DYING_MS) };
    }
    const walking = (e.px !== undefined && (e.px !== e.x || e.pz !== e.z)) && now - (e.movedAt ?? 0) < tickMs;
    if (walking) return { pose: Math.floor(now / 150) % 2 ? 'stepL' : 'stepR', dying: null };
    const swung = this.swings.get(e.id);
    if (swung !== undefined && now - swung < SWING_MS) return { pose: 'swing', dying: null };
    const w = self ? this.work : null;
    if (w) {
      if (now - w.lastGain > IDLE_TICKS * tickMs) this.work = null;
      // Work swings once a tick, as the classic chop and hammer loops do.
      else if ((now - w.since) % tickMs < tickMs * 0.4) return { pose: 'swing', dying: null };
    }
    return { pose: 'stand', dying: null };
  }
}
