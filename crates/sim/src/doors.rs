//! Doors and gates (CONTRACT §13): resource entities on a tile's side. Closed, a door blocks like
//! a wall for NPCs and sight; a player's path goes through it, and the walker opens it as it
//! arrives. It closes again [`DOOR_CLOSE_TICKS`] after the last passage, each change shown to
//! everyone in view as a `changed` entry `{id, open}`. Doors are content: their state is not
//! persisted, so a restart finds every door closed (none stays open for more than 10 s anyway).

use wayfarer_protocol::ws::TilePos;

use crate::layout::Placed;
use crate::map::across;
use crate::world::World;

/// Ticks a door stays open after the last walker passed (10 s of 600 ms ticks, rounded up).
pub const DOOR_CLOSE_TICKS: u64 = 17;

impl World {
    /// The position in `self.resources` of the door on `tile`'s `side` (seen from either tile).
    fn door_position(&self, tile: TilePos, side: u8) -> Option<usize> {
        let (other, opposite) = across(tile, side);
        self.resources.iter().position(|r| {
            r.placement.what == Placed::Door
                && ((r.placement.tile == tile && r.placement.side == side)
                    || (r.placement.tile == other && r.placement.side == opposite))
        })
    }

    /// A walker stepped through the door on `tile`'s `side`: it opens (when closed) and closes
    /// [`DOOR_CLOSE_TICKS`] from now.
    pub(crate) fn door_passed(&mut self, tile: TilePos, side: u8) {
        let Some(position) = self.door_position(tile, side) else {
            return;
        };
        let closes_at = self.now() + DOOR_CLOSE_TICKS;
        let was_open = self.resources[position].life.closes_at.is_some();
        self.resources[position].life.closes_at = Some(closes_at);
        if !was_open {
            self.show_door(position, true);
        }
    }

    /// Closes the door at `position` when its time is up (the resource step of the actions phase).
    pub(crate) fn advance_door(&mut self, position: usize) {
        let due = self.resources[position]
            .life
            .closes_at
            .is_some_and(|at| at <= self.now());
        if due {
            self.resources[position].life.closes_at = None;
            self.show_door(position, false);
        }
    }

    /// Sets the door at `position` open or closed on the map and shows it to everyone in view.
    fn show_door(&mut self, position: usize, open: bool) {
        let now = self.now();
        let resource = &self.resources[position];
        let (handle, tile, side) = (
            resource.handle,
            resource.placement.tile,
            resource.placement.side,
        );
        self.layout.map.set_door_open(tile, side, open);
        if let Some(body) = self.entities.get_mut(handle) {
            body.wire_mut().open = Some(open);
        }
        self.entities
            .record_change(handle, now, |c| c.open = Some(open));
        self.grid.touch(tile, now);
    }

    /// After a content reload the new map has every door closed: the doors that stayed open
    /// are opened on it again.
    pub(crate) fn doors_reloaded(&mut self) {
        for r in &self.resources {
            if r.placement.what == Placed::Door && r.life.closes_at.is_some() {
                self.layout
                    .map
                    .set_door_open(r.placement.tile, r.placement.side, true);
            }
        }
    }

    /// Whether nothing but open ground lies between two tiles: no wall or closed door crosses
    /// the line between their centres (`TileMap::line_of_sight`). Ranged attacks and spells need
    /// it; so do NPCs that attack from afar.
    pub fn line_of_sight(&self, from: TilePos, to: TilePos) -> bool {
        self.layout.map.line_of_sight(from, to)
    }
}
