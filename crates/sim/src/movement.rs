//! Player movement: `player:move` turns into a path (see `pathfinding`), and each tick a walking
//! player advances [`WALK_TILES_PER_TICK`] steps along it, a running one [`RUN_TILES_PER_TICK`].

use wayfarer_protocol::ws::{codes, TilePos, MAX_MOVE_TILES};

use crate::events::Event;
use crate::map::chebyshev;
use crate::pathfinding::Plan;
use crate::world::World;

/// Steps a walking player takes per tick.
pub const WALK_TILES_PER_TICK: usize = 2;
/// Steps a running player takes per tick.
pub const RUN_TILES_PER_TICK: usize = 4;

/// A player's current walk.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    /// Remaining steps, the next one last (so taking a step is a `pop`).
    path: Vec<TilePos>,
    /// Where the player asked to go (kept to re-plan when the map changed under the path).
    target: Option<TilePos>,
    run: bool,
    /// A move accepted this tick, planned at the start of the movement phase: however many moves a
    /// client sends in one tick, only the last one costs a path search.
    requested: Option<(TilePos, bool)>,
}

impl Walk {
    /// Stops walking.
    pub fn clear(&mut self) {
        self.path.clear();
        self.target = None;
        self.requested = None;
    }

    /// Asks for a walk to `target`, planned at the start of the next movement phase.
    pub fn request(&mut self, target: TilePos, run: bool) {
        self.requested = Some((target, run));
    }

    /// Whether the player is walking (or about to).
    pub fn is_moving(&self) -> bool {
        !self.path.is_empty() || self.requested.is_some()
    }

    /// The remaining steps, next first.
    pub fn remaining(&self) -> Vec<TilePos> {
        self.path.iter().rev().copied().collect()
    }
}

impl World {
    /// `player:move`: accepts a walk to `target` (planned at the start of the movement phase),
    /// replacing any current walk; a target beyond the move limit is rejected.
    pub(crate) fn start_walk(
        &mut self,
        id: &str,
        target: TilePos,
        run: bool,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        // The packed mark, not the body: a crowd sends hundreds of moves a tick.
        let Some(from) = self
            .entities
            .mark(self.players[index].handle)
            .map(|m| m.tile)
        else {
            return;
        };
        let distance = chebyshev(from, target);
        if distance > MAX_MOVE_TILES as u32 {
            events.push(Event::Rejected {
                to: id.to_owned(),
                code: codes::MOVE_TOO_FAR,
                message: format!(
                    "the target is {distance} tiles away; a move may go at most {MAX_MOVE_TILES}"
                ),
                reference,
            });
            return;
        }
        // A click on the ground cancels whatever the player was doing to an entity.
        let player = &mut self.players[index];
        player.intent = None;
        player.walk.requested = Some((target, run));
    }

    /// Plans this tick's requested walks, then moves every walking player along its path; each
    /// player's run energy drains for a tick of running and regains otherwise (`stamina`).
    pub(crate) fn advance_players(&mut self, events: &mut Vec<Event>) {
        self.run_energy_changed.clear();
        self.plan_walks();
        for index in 0..self.players.len() {
            let (ran, tiles) = self.advance_player(index);
            self.walked(index, tiles, events);
            let player = &mut self.players[index];
            if ran {
                // A change to what the player carries this tick, not reported yet, is flagged.
                let changed = player.dirty.inventory || player.dirty.equipment;
                let content = &self.content;
                let (inventory, equipment) = (&player.inventory, &player.equipment);
                player.run_energy.run_a_tick(changed, || {
                    crate::stamina::carried_weight_kg(content, inventory, equipment)
                });
            } else if !player.run_energy.is_full() {
                player
                    .run_energy
                    .regenerate(crate::stamina::agility(&player.skills));
            } else {
                // Rested and not running: nothing to do or report (most players, most ticks).
                continue;
            }
            if player.run_energy.take_change().is_some() {
                self.run_energy_changed.push(index);
            }
        }
    }

    /// Plans the walks asked for since the last movement phase, all at once (on the tick's
    /// threads when there are many: a crowd asks for hundreds a tick). A player's start is its
    /// tile now, which nothing before its own step in this phase changes, and a search reads only
    /// the map: the paths are those one search after another would find.
    fn plan_walks(&mut self) {
        let mut plans = std::mem::take(&mut self.walk_plans);
        for (index, player) in self.players.iter_mut().enumerate() {
            let Some((goal, run)) = player.walk.requested else {
                continue;
            };
            // A player without a body keeps its request (and is not moved, as before).
            let Some(start) = self.entities.mark(player.handle).map(|m| m.tile) else {
                continue;
            };
            let walk = &mut player.walk;
            walk.requested = None;
            walk.run = run;
            plans.push(Plan {
                player: index,
                start,
                goal,
                path: std::mem::take(&mut walk.path),
            });
        }
        let threads = self.view_workers.threads();
        self.pathfinders
            .plan_all(&self.layout.map, &mut plans, threads);
        for plan in plans.drain(..) {
            let walk = &mut self.players[plan.player].walk;
            walk.target = (!plan.path.is_empty()).then_some(plan.goal);
            walk.path = plan.path;
        }
        self.walk_plans = plans;
    }

    /// Moves player `index` along its path for this tick; whether it ran (took more steps than a
    /// walk allows, which is what costs energy: a run of two steps is a walk), and how many steps
    /// it took (Agility's distance XP).
    fn advance_player(&mut self, index: usize) -> (bool, u32) {
        let player = &self.players[index];
        if !player.walk.is_moving() {
            // Most players, most ticks: nothing to plan or take, and no entity to look at.
            return (false, 0);
        }
        // The packed mark, not the body: one cache line of a dense table for each walker.
        let Some(start) = self.entities.mark(player.handle).map(|m| m.tile) else {
            return (false, 0);
        };
        let can_run = player.run_energy.can_run();
        let walk = &mut self.players[index].walk;
        if walk.path.is_empty() {
            return (false, 0);
        }
        let mut at = start;
        let mut replanned = false;
        // Out of energy, a run goes on as a walk until energy returns.
        let steps = if walk.run && can_run {
            RUN_TILES_PER_TICK
        } else {
            WALK_TILES_PER_TICK
        };
        let mut taken = 0;
        while taken < steps {
            let Some(&next) = walk.path.last() else {
                break;
            };
            if self.layout.map.can_walk(at, next) {
                if let Some(side) = self.layout.map.door_crossed(at, next) {
                    self.doors_crossed.push((at, side));
                }
                at = next;
                walk.path.pop();
                taken += 1;
                continue;
            }
            // The map changed under the path (a content reload): plan again once from here.
            match walk.target {
                Some(target) if !replanned => {
                    replanned = true;
                    self.pathfinders
                        .one()
                        .find(&self.layout.map, at, target, &mut walk.path);
                }
                _ => {
                    walk.path.clear();
                    break;
                }
            }
        }
        if walk.path.is_empty() {
            walk.target = None;
        }
        if at != start {
            self.place_player(index, at);
        }
        for (tile, side) in std::mem::take(&mut self.doors_crossed) {
            self.door_passed(tile, side);
        }
        (taken > WALK_TILES_PER_TICK, taken as u32)
    }
}
