//! A player's death: everything held and worn falls at the death tile, tagged with the death's id,
//! and the player is back at the spawn with full health in the same tick. Outside PvP areas the
//! pile is the dead player's alone for [`GRAVESTONE_TICKS`] (a gravestone), then anyone's for
//! [`GROUND_LIFETIME_TICKS`] before it vanishes; in a PvP area it falls for the killer (a player)
//! for [`GROUND_PRIVATE_TICKS`], or for anyone at once when no player killed. The server persists
//! each death's pile from [`Event::PlayerDied`], [`Event::DeathItemTaken`] and
//! [`Event::DeathItemExpired`], and puts piles back after a restart with
//! [`crate::Command::RestoreDeathPile`].

use wayfarer_protocol::ws::TilePos;

use crate::events::Event;
use crate::flows::FlowKind;
use crate::ground::{GROUND_LIFETIME_TICKS, GROUND_PRIVATE_TICKS};
use crate::inventory::Stack;
use crate::world::World;

/// Ticks a death pile outside PvP areas stays its owner's alone (15 minutes, the genre's
/// gravestone: OSRS Wiki, *Gravestone*).
pub const GRAVESTONE_TICKS: u64 = 1_500;

impl World {
    /// Player `index` reached 0 health; `killer` is the player who dealt the blow, if one did.
    pub(crate) fn player_died(
        &mut self,
        index: usize,
        killer: Option<usize>,
        events: &mut Vec<Event>,
    ) {
        // A duel's fall is a lost fight, not a death (and a duel being written is untouchable).
        if self.duel_player_fell(index, events) {
            return;
        }
        // A trade being written cannot be interrupted: its items are spoken for.
        if self.trade_committing(&self.players[index].id) {
            return self.set_player_health(index, 1);
        }
        let dead = self.players[index].id.clone();
        self.trade_player_died(&dead, events);
        let now = self.now();
        let handle = self.players[index].handle;
        let Some(tile) = self.tile_of(handle) else {
            return;
        };
        let pvp = self.is_pvp(tile);
        let id = self.players[index].id.clone();
        let killer_id = killer.map(|k| self.players[k].id.clone());
        let death_id = format!("{id}-{now}");
        let player = &mut self.players[index];
        let mut items = player.inventory.take_all();
        items.extend(player.equipment.take_all());
        let (owner, private_ticks, lifetime_ticks) = if pvp {
            match &killer_id {
                Some(k) => (
                    Some(k.as_str()),
                    GROUND_PRIVATE_TICKS,
                    GROUND_LIFETIME_TICKS,
                ),
                None => (None, 0, GROUND_LIFETIME_TICKS),
            }
        } else {
            (
                Some(id.as_str()),
                GRAVESTONE_TICKS,
                GRAVESTONE_TICKS + GROUND_LIFETIME_TICKS,
            )
        };
        for stack in &items {
            self.flow(
                FlowKind::Moved,
                "lostOnDeath",
                &stack.item_id,
                stack.quantity,
            );
            self.spawn_tagged_ground_items(
                tile,
                stack.clone(),
                owner,
                private_ticks,
                lifetime_ticks,
                Some(&death_id),
            );
        }
        events.push(Event::PlayerDied {
            id: id.clone(),
            death_id,
            tile,
            items,
            pvp,
        });
        // Back at the spawn, whole, doing nothing; whoever fought the player forgets them.
        let player = &mut self.players[index];
        player.walk.clear();
        player.intent = None;
        player.attack_ready_at = 0;
        player.eat_ready_at = 0;
        player.dirty.inventory = true;
        player.dirty.equipment = true;
        player.dirty.stats = true;
        let (_, max) = self.player_health(index);
        self.set_player_health(index, max);
        self.reset_prayer(index);
        self.close_dialogue(index, crate::dialogue::CloseReason::Died, events);
        let spawn = self.layout.spawn;
        self.place_player(index, spawn);
        self.forget_player(handle);
        for other in &mut self.players {
            if other.intent.as_ref().is_some_and(|i| i.target == handle) {
                other.intent = None;
            }
        }
        self.narrate(index, crate::game_messages::died(), events);
        if let Some(k) = killer {
            let text = crate::game_messages::defeated(self.player_called(index));
            self.narrate(k, text, events);
        }
    }

    /// [`crate::Command::RestoreDeathPile`]: the items of a still-locked death back on the ground.
    /// Items content no longer knows cannot be shown; they are reported expired at once, so the
    /// server's record of the pile stays exact.
    pub(crate) fn restore_death_pile(
        &mut self,
        death_id: &str,
        owner: &str,
        tile: TilePos,
        items: Vec<Stack>,
        private_ticks: u64,
        events: &mut Vec<Event>,
    ) {
        let tile = self.walkable_near(tile);
        let private_ticks = private_ticks.min(GRAVESTONE_TICKS);
        for stack in items {
            if stack.quantity == 0 {
                continue;
            }
            if !self.content.items.contains_key(stack.item_id.as_str()) {
                events.push(Event::DeathItemExpired {
                    death_id: death_id.to_owned(),
                    stack,
                });
                continue;
            }
            self.spawn_tagged_ground_items(
                tile,
                stack,
                Some(owner),
                private_ticks,
                private_ticks + GROUND_LIFETIME_TICKS,
                Some(death_id),
            );
        }
    }
}
