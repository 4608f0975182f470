//! NPCs in a fight, run in the NPC phase of every tick: a dead NPC waits for its respawn; one
//! walking home after a leash keeps walking; one with a target chases it (naive steps, as
//! wandering) and, whenever its attack speed allows, swings in melee, or shoots or casts from its
//! `combatRange` when the target is in sight; an idle aggressive one looks
//! for a player within its aggro range. An NPC pulled farther than its leash range from home drops
//! the fight, heals and walks home (as does one whose target went out of sight); wandering resumes
//! once it is there.

use wayfarer_content::Npc;
use wayfarer_protocol::ws::TilePos;

use crate::combat::formulas::{
    npc_attack_roll, npc_max_hit, npc_ranged_attack_roll, npc_ranged_max_hit, roll_attack,
    AttackType, NPC_MELEE_ATTACK_TYPE,
};
use crate::combat::magic::{
    npc_magic_attack_roll, npc_magic_max_hit, player_magic_defence_roll, CASTING_RANGE_TILES,
};
use crate::entities::Handle;
use crate::events::Event;
use crate::grid::Class;
use crate::map::chebyshev;
use crate::npcs::{naive_step, Origin};
use crate::view::VIEW_RADIUS_TILES;
use crate::world::World;

/// NPCs fighting in melee hit from an adjacent tile.
pub const NPC_MELEE_REACH_TILES: u32 = 1;

/// The farthest an NPC shoots or casts from, in tiles, whatever its `combatRange` (a player's
/// casting range: nothing fights from beyond what a player could answer from).
pub const NPC_MAX_REACH_TILES: u32 = CASTING_RANGE_TILES;

/// How NPC `npc` attacks (CONTRACT.md section 14): a caster casts, an NPC whose `combatRange` is
/// above 1 shoots, any other swings.
pub fn npc_attack_style(npc: &Npc) -> NpcAttackStyle {
    let range = npc.combat.combat_range;
    if npc.combat.casts {
        NpcAttackStyle::Magic
    } else if range.is_finite() && range >= 2.0 {
        NpcAttackStyle::Ranged
    } else {
        NpcAttackStyle::Melee
    }
}

/// How an NPC attacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NpcAttackStyle {
    /// From an adjacent tile.
    Melee,
    /// From its `combatRange`, an arrow in flight (`combat:hit` `projectile: "arrow"`).
    Ranged,
    /// From its `combatRange`, its spell in flight (`projectile`: the spell, or `"magic"`).
    Magic,
}

/// The `projectile` of a ranged NPC's hit.
pub const NPC_ARROW: &str = "arrow";

/// The `projectile` of a caster's hit whose spell the content lacks.
pub const NPC_MAGIC: &str = "magic";

/// How far NPC `npc` hits from: its `combatRange` (whole tiles, 1 to [`NPC_MAX_REACH_TILES`])
/// when it shoots or casts, else an adjacent tile.
pub fn npc_reach_tiles(npc: &Npc) -> u32 {
    let range = npc.combat.combat_range;
    if npc_attack_style(npc) == NpcAttackStyle::Melee || !range.is_finite() {
        return NPC_MELEE_REACH_TILES;
    }
    (range.floor().clamp(1.0, f64::from(NPC_MAX_REACH_TILES))) as u32
}

/// An aggressive NPC ignores players whose combat level is more than this many times its own
/// (OSRS Wiki, *Aggressiveness*: "combat level more than double the monster's").
pub const AGGRESSION_LEVEL_FACTOR: u32 = 2;

/// Whether an aggressive NPC of `npc_level` attacks a player of `player_combat_level` on sight.
pub fn aggressive_towards(npc_level: u32, player_combat_level: u32) -> bool {
    player_combat_level <= npc_level.saturating_mul(AGGRESSION_LEVEL_FACTOR)
}

/// What an NPC is doing about fighting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NpcFight {
    /// The player it fights.
    pub target: Option<Handle>,
    /// The tick before which it may not swing again.
    pub attack_ready_at: u64,
    /// Walking home after a leash or a lost target.
    pub returning: bool,
    /// Dead until this tick.
    pub respawn_at: Option<u64>,
}

impl NpcFight {
    /// Whether fighting (or dying, or going home) keeps the NPC from wandering.
    pub fn busy(&self) -> bool {
        self.target.is_some() || self.returning || self.respawn_at.is_some()
    }
}

impl World {
    /// The content id of NPC `n`.
    pub(crate) fn npc_type(&self, n: usize) -> &str {
        match &self.npcs[n].origin {
            Origin::Fixed(p) => &p.npc_id,
            Origin::Mob(p) => &p.npc_id,
        }
    }

    /// The content definition of NPC `n` (gone only if a reload removed it).
    pub(crate) fn npc_def(&self, n: usize) -> Option<&Npc> {
        self.content.npcs.get(self.npc_type(n))
    }

    /// NPC `n`'s current and maximum health.
    pub(crate) fn npc_health(&self, n: usize) -> (i64, i64) {
        self.entities.get(self.npcs[n].handle).map_or((0, 0), |b| {
            let max = b.wire.max_health.unwrap_or(0);
            (b.wire.health.unwrap_or(max), max)
        })
    }

    /// Sets NPC `n`'s health (clamped to `0..=max`), shown to everyone in view.
    pub(crate) fn set_npc_health(&mut self, n: usize, health: i64) {
        let now = self.now();
        let handle = self.npcs[n].handle;
        let Some(body) = self.entities.get_mut(handle) else {
            return;
        };
        let health = health.clamp(0, body.wire.max_health.unwrap_or(0));
        if body.wire.health == Some(health) {
            return;
        }
        body.wire_mut().health = Some(health);
        let tile = body.tile();
        self.entities
            .record_change(handle, now, |c| c.health = Some(health));
        self.grid.touch(tile, now);
    }

    /// Player `attacker` attacked NPC `n`: it fights back when it retaliates and is not already
    /// fighting someone (or walking home).
    pub(crate) fn provoke(&mut self, n: usize, attacker: Handle) {
        let retaliates = self.npc_def(n).is_some_and(|d| d.combat.retaliates);
        let fight = &mut self.npcs[n].fight;
        if retaliates && fight.target.is_none() && !fight.returning && fight.respawn_at.is_none() {
            fight.target = Some(attacker);
            self.npcs[n].destination = None;
        }
    }

    /// Every NPC that fights the player with `handle` forgets it and walks home (the player died,
    /// fled out of reach or left).
    pub(crate) fn forget_player(&mut self, handle: Handle) {
        for npc in &mut self.npcs {
            if npc.fight.target == Some(handle) {
                npc.fight.target = None;
                npc.fight.returning = true;
            }
        }
    }

    /// The NPC phase's fighting: respawns, walks home, chases, swings and aggression.
    pub(crate) fn advance_npc_fights(&mut self, events: &mut Vec<Event>) {
        let now = self.now();
        for n in 0..self.npcs.len() {
            if let Some(at) = self.npcs[n].fight.respawn_at {
                if now >= at {
                    self.respawn_npc(n);
                }
                continue;
            }
            let Some(tile) = self.tile_of(self.npcs[n].handle) else {
                continue;
            };
            if self.npcs[n].fight.returning {
                self.walk_home(n, tile);
                continue;
            }
            match self.npcs[n].fight.target {
                Some(target) => self.chase(n, tile, target, events),
                None => self.look_for_trouble(n, tile, events),
            }
        }
    }

    /// Steps NPC `n` from `from` towards `to` (at most its speed), returning where it ends.
    fn step_npc(&mut self, n: usize, from: TilePos, to: TilePos, stop_within: u32) -> TilePos {
        let now = self.now();
        let mut at = from;
        for _ in 0..self.npcs[n].tiles_per_tick {
            if chebyshev(at, to) <= stop_within {
                break;
            }
            match naive_step(&self.layout.map, at, to) {
                Some(next) => at = next,
                None => break,
            }
        }
        if at != from {
            let handle = self.npcs[n].handle;
            self.entities.set_tile(handle, at, now);
            self.grid.relocate(handle, from, at, Class::Npc, now);
        }
        at
    }

    /// One tick of walking home; home reached (or no way on) ends the return, and wandering
    /// resumes.
    fn walk_home(&mut self, n: usize, tile: TilePos) {
        let home = self.npcs[n].home;
        let at = self.step_npc(n, tile, home, 0);
        if at == home {
            self.npcs[n].fight.returning = false;
        } else if at == tile {
            // Blocked on the way (a reload moved walls): give up returning where it stands.
            self.npcs[n].fight.returning = false;
            self.npcs[n].home = tile;
        }
    }

    /// Drops the fight, heals and heads home.
    fn leash(&mut self, n: usize) {
        let (_, max) = self.npc_health(n);
        self.set_npc_health(n, max);
        let fight = &mut self.npcs[n].fight;
        fight.target = None;
        fight.returning = true;
        self.npcs[n].destination = None;
    }

    /// The leash distance of NPC `n` in whole tiles.
    fn leash_tiles(&self, n: usize) -> u32 {
        self.npc_def(n).map_or(0, |d| {
            let r = d.combat.leash_range;
            if r.is_finite() && r > 0.0 {
                r.min(f64::from(u32::MAX)) as u32
            } else {
                0
            }
        })
    }

    /// Follows and hits the target.
    fn chase(&mut self, n: usize, tile: TilePos, target: Handle, events: &mut Vec<Event>) {
        let victim = self.player_of(target);
        let (Some(p), Some(goal)) = (victim, self.tile_of(target)) else {
            // The player left: nothing to fight.
            self.npcs[n].fight.target = None;
            self.npcs[n].fight.returning = true;
            return;
        };
        let leash = self.leash_tiles(n);
        if chebyshev(tile, goal) > VIEW_RADIUS_TILES as u32 {
            // Out of sight (teleported, or beyond a wall it cannot step past): give up.
            return self.leash(n);
        }
        let reach = self
            .npc_def(n)
            .map_or(NPC_MELEE_REACH_TILES, npc_reach_tiles);
        let at = self.step_npc(n, tile, goal, reach);
        if chebyshev(at, self.npcs[n].home) > leash {
            return self.leash(n);
        }
        let now = self.now();
        // A melee NPC next to its target across a wall cannot hit it (`TileMap::touches`).
        let walled = reach <= 1 && !self.layout.map.touches(at, goal);
        if chebyshev(at, goal) > reach || walled || now < self.npcs[n].fight.attack_ready_at {
            return;
        }
        if reach > NPC_MELEE_REACH_TILES && !self.line_of_sight(at, goal) {
            return;
        }
        let Some(npc) = self.npc_def(n).cloned() else {
            return;
        };
        self.npcs[n].fight.attack_ready_at = now + u64::from(npc.combat.attack_speed_ticks.max(1));
        let combatant = self.loadout(p).combatant;
        let (attack, defence, max_hit, projectile) = match npc_attack_style(&npc) {
            NpcAttackStyle::Magic => {
                // A caster's spell is content's; its runes are its own business.
                let spell = npc
                    .combat
                    .spell
                    .as_ref()
                    .and_then(|s| self.content.spells.get(s));
                (
                    npc_magic_attack_roll(&npc.stats),
                    player_magic_defence_roll(self.magic_level(p), &combatant),
                    npc_magic_max_hit(&npc.stats, spell),
                    Some(spell.map_or(NPC_MAGIC, |s| s.id.as_str()).to_owned()),
                )
            }
            NpcAttackStyle::Ranged => (
                npc_ranged_attack_roll(&npc.stats),
                combatant.defence_roll(AttackType::Ranged),
                npc_ranged_max_hit(&npc.stats),
                Some(NPC_ARROW.to_owned()),
            ),
            NpcAttackStyle::Melee => (
                npc_attack_roll(&npc.stats),
                combatant.defence_roll(NPC_MELEE_ATTACK_TYPE),
                npc_max_hit(&npc.stats),
                None,
            ),
        };
        let (health, max) = self.player_health(p);
        let rolled = roll_attack(&mut self.rng, attack, defence, max_hit);
        let damage = rolled.min(u32::try_from(health.max(0)).unwrap_or(u32::MAX));
        let left = health - i64::from(damage);
        self.set_player_health(p, left);
        self.attacked(p, self.npcs[n].handle, events);
        let attacker = self
            .entities
            .get(self.npcs[n].handle)
            .map(|b| b.wire.id.clone())
            .unwrap_or_default();
        let hit = crate::combat::Shown {
            damage,
            health: left,
            max_health: max,
            projectile,
        };
        self.show_hit(&attacker, target, hit, events);
        if left <= 0 {
            self.player_died(p, crate::combat::Killer::Npc(n), events);
        }
    }

    /// An idle aggressive NPC picks the nearest player within its aggro range whose combat level
    /// it does not shy away from (ties: the lowest entity handle, for determinism).
    fn look_for_trouble(&mut self, n: usize, tile: TilePos, events: &mut Vec<Event>) {
        let Some(npc) = self.npc_def(n) else {
            return;
        };
        if !npc.combat.aggressive || !npc.combat.attackable {
            return;
        }
        let range = npc.combat.aggro_range;
        if !(range.is_finite() && range >= 1.0) {
            return;
        }
        let range = range.min(f64::from(VIEW_RADIUS_TILES)) as i32;
        let level = npc.stats.level;
        let mut best: Option<(u32, Handle)> = None;
        self.grid.players_within(tile, range, |handle, _| {
            let (Some(p), Some(body)) = (self.player_of(handle), self.entities.get(handle)) else {
                return;
            };
            // Nothing is aggressive to a player standing in a safe area (CONTRACT §10).
            if self.zones.is_safe(self.zone_of_player(p)) {
                return;
            }
            let combat_level = u32::from(self.players[p].skills.combat_level());
            if !aggressive_towards(level, combat_level) {
                return;
            }
            let candidate = (chebyshev(tile, body.tile()), handle);
            if best.is_none_or(|b| candidate < b) {
                best = Some(candidate);
            }
        });
        if let Some((_, handle)) = best {
            self.npcs[n].fight.target = Some(handle);
            self.npcs[n].destination = None;
            if let Some(p) = self.player_of(handle) {
                let text = crate::game_messages::attacked_by(self.npc_called(n));
                self.narrate(p, text, events);
            }
        }
    }

    /// Brings dead NPC `n` back at its home tile with full health and a fresh entity id.
    fn respawn_npc(&mut self, n: usize) {
        let (npc_id, name, health) = match &self.npcs[n].origin {
            Origin::Fixed(p) => (p.npc_id.clone(), p.name.clone(), p.health),
            Origin::Mob(p) => (p.npc_id.clone(), p.name.clone(), p.health),
        };
        let tile = self.walkable_near(self.npcs[n].home);
        let handle = self.insert_npc(&npc_id, &name, health, tile);
        let npc = &mut self.npcs[n];
        npc.handle = handle;
        npc.home = tile;
        npc.destination = None;
        npc.fight = NpcFight::default();
    }
}
