//! Spreading over nodes: the agents of one process share their claims on gathering nodes (one
//! table per [`crate::Host`]), and a node another player stands next to counts as taken. Twelve
//! agents on four trees cost each about three times the time per log (issue 32).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use wayfarer_protocol::ws::EntityKind;

use crate::actions::Ctx;
use crate::model::{chebyshev, Seen};

/// Server ticks a claim holds unless renewed (a chop or a catch renews it with each decision).
pub const CLAIM_TICKS: u64 = 40;

/// How far a place must be to be out of view (its nodes not among those seen here).
pub const OUT_OF_VIEW_TILES: u32 = 16;

/// The claims of the agents of one host: node id → (claimant, until server tick).
#[derive(Debug, Clone, Default)]
pub struct Claims {
    table: Arc<Mutex<HashMap<String, (u64, u64)>>>,
    /// Each claimant's home (a skill's area it gathers in, `home_key`) until a server tick.
    homes: Arc<Mutex<Homes>>,
    next: Arc<AtomicU64>,
}

impl Claims {
    /// A number for a new claimant.
    pub fn claimant(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Whether another claimant holds `node` at server tick `now`.
    pub fn held_by_other(&self, node: &str, me: u64, now: u64) -> bool {
        let table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        table
            .get(node)
            .is_some_and(|(who, until)| *who != me && now < *until)
    }

    /// Claims `node` for `me` until `now + CLAIM_TICKS`, dropping what expired (and `me`'s other
    /// claim: one node per agent).
    pub fn claim(&self, node: &str, me: u64, now: u64) {
        self.claim_for(node, me, now, CLAIM_TICKS);
    }

    /// Claims `key` (a node id, or a place's [`place_key`]) for `me` for `ticks`, as `claim`.
    pub fn claim_for(&self, key: &str, me: u64, now: u64, ticks: u64) {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        table.retain(|_, (who, until)| *who != me && now < *until);
        table.insert(key.to_owned(), (me, now + ticks));
    }
}

/// The homes of a host's agents, and how many live at each (counted once a tick: a thousand
/// embedded agents ask for it at every gathering decision).
#[derive(Debug, Default)]
struct Homes {
    of: HashMap<u64, (String, u64)>,
    /// Residents by home at tick `counted_at`, kept up to date by `settle` within the tick.
    counts: HashMap<String, usize>,
    counted_at: Option<u64>,
}

impl Homes {
    fn count(&mut self, now: u64) {
        if self.counted_at == Some(now) {
            return;
        }
        self.of.retain(|_, (_, until)| now < *until);
        self.counts.clear();
        for (home, _) in self.of.values() {
            *self.counts.entry(home.clone()).or_default() += 1;
        }
        self.counted_at = Some(now);
    }
}

impl Claims {
    /// Makes `home` `me`'s home until `now + HOME_CLAIM_TICKS` (one home per claimant).
    pub fn settle(&self, home: &str, me: u64, now: u64) {
        let mut homes = self.homes.lock().unwrap_or_else(|e| e.into_inner());
        homes.count(now);
        let before = homes
            .of
            .insert(me, (home.to_owned(), now + HOME_CLAIM_TICKS));
        if let Some((old, _)) = before {
            if let Some(n) = homes.counts.get_mut(&old) {
                *n = n.saturating_sub(1);
            }
        }
        *homes.counts.entry(home.to_owned()).or_default() += 1;
    }

    /// How many claimants other than `me` live at `home` at server tick `now`.
    pub fn residents(&self, home: &str, me: u64, now: u64) -> usize {
        let mut homes = self.homes.lock().unwrap_or_else(|e| e.into_inner());
        homes.count(now);
        let all = homes.counts.get(home).copied().unwrap_or(0);
        let mine = homes.of.get(&me).is_some_and(|(h, _)| h == home);
        all - usize::from(mine)
    }
}

/// Server ticks a home holds unless renewed (every gathering decision renews it).
pub const HOME_CLAIM_TICKS: u64 = 150;

/// The key of a skill's home in an area.
pub fn home_key(skill: wayfarer_protocol::Skill, area: &str) -> String {
    format!("home:{skill}:{area}")
}

/// Ticks an agent expects to work a node once there: what a walk is weighed against.
pub const WORK_TICKS: f64 = 60.0;

/// XP a tick a node of `type_id` gives at `level`: the success roll at this level, and the yields
/// this level allows by their chance and XP, over the node's cycle.
pub fn xp_per_tick(ctx: Ctx<'_>, type_id: &str, level: i64) -> f64 {
    let Some(node) = ctx.knowledge.nodes.get(type_id) else {
        return 0.0;
    };
    // The success roll: the same curve for every node of a skill, halved at each 15 levels of
    // requirement (an oak at Woodcutting 15 succeeds half as often as a tree: its 37.5 XP a log
    // is 19 a roll against the tree's 25 × 1.3).
    let chance = wayfarer_content::skilling::gather_chance(
        node.level,
        1,
        u32::try_from(level.clamp(1, 99)).unwrap_or(1),
    );
    let per_cycle: f64 = node
        .yields
        .iter()
        .filter(|y| i64::from(y.level) <= level)
        .map(|y| y.chance.clamp(0.0, 1.0) * y.xp * f64::from(y.quantity.max(1)))
        .sum();
    chance * per_cycle / f64::from(node.cycle_ticks.max(1))
}

/// The worth of going to `node` `distance` tiles away: its XP a tick over the time there and the
/// walk (a tile a tick), so a better node is worth a longer walk, up to a point.
pub fn worth(ctx: Ctx<'_>, node: &Seen, distance: u32, level: i64) -> f64 {
    let rate = node.type_id().map_or(0.0, |t| xp_per_tick(ctx, t, level));
    rate * WORK_TICKS / (WORK_TICKS + f64::from(distance))
}

/// Ticks a claim on a place walked to holds: the walk across the map and the first chop.
pub const PLACE_CLAIM_TICKS: u64 = 150;

/// The claim key of a known place (a node out of view) at tile (x, z).
pub fn place_key(x: i32, z: i32) -> String {
    format!("place:{x},{z}")
}

/// Whether another player stands next to `node` (gathering it, most likely).
pub fn crowded(ctx: Ctx<'_>, node: &Seen) -> bool {
    crowd(ctx, node) > 0
}

/// How many other players stand next to `node`.
pub fn crowd(ctx: Ctx<'_>, node: &Seen) -> usize {
    ctx.model
        .entities
        .values()
        .filter(|e| e.kind() == EntityKind::Player && chebyshev(e.x, e.z, node.x, node.z) <= 1)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_keeps_others_off_a_node_until_it_expires_and_one_agent_holds_one_node() {
        let claims = Claims::default();
        let (a, b) = (claims.claimant(), claims.claimant());
        assert_ne!(a, b);
        claims.claim("res-1", a, 100);
        assert!(claims.held_by_other("res-1", b, 100));
        assert!(claims.held_by_other("res-1", b, 100 + CLAIM_TICKS - 1));
        assert!(!claims.held_by_other("res-1", b, 100 + CLAIM_TICKS));
        // Its own claim does not keep the claimant off.
        assert!(!claims.held_by_other("res-1", a, 100));
        // Claiming another node lets the first go.
        claims.claim("res-2", a, 110);
        assert!(!claims.held_by_other("res-1", b, 110));
        assert!(claims.held_by_other("res-2", b, 110));
        // A clone shares the table (one host's agents).
        let shared = claims.clone();
        assert!(shared.held_by_other("res-2", b, 110));
        assert!(!Claims::default().held_by_other("res-2", b, 110));
    }

    #[test]
    fn homes_count_their_other_residents_until_each_expires() {
        let claims = Claims::default();
        let (a, b, c) = (claims.claimant(), claims.claimant(), claims.claimant());
        claims.settle("home:woodcutting:town", a, 10);
        claims.settle("home:woodcutting:town", b, 10);
        assert_eq!(claims.residents("home:woodcutting:town", a, 10), 1);
        assert_eq!(claims.residents("home:woodcutting:town", c, 10), 2);
        // Moving home within the tick is counted at once.
        claims.settle("home:woodcutting:far", b, 10);
        assert_eq!(claims.residents("home:woodcutting:town", c, 10), 1);
        assert_eq!(claims.residents("home:woodcutting:far", c, 10), 1);
        // Renewed, a home holds; not renewed, it lapses at the last tick.
        claims.settle("home:woodcutting:town", a, 20);
        let lapse = 10 + HOME_CLAIM_TICKS;
        assert_eq!(claims.residents("home:woodcutting:far", c, lapse - 1), 1);
        assert_eq!(claims.residents("home:woodcutting:far", c, lapse), 0);
        assert_eq!(claims.residents("home:woodcutting:town", c, lapse), 1);
    }
}
