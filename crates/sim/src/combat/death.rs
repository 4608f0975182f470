//! A player's death: everything held and worn falls at the death tile, tagged with the death's id,
//! but for the [`KEPT_ON_DEATH`] most valuable items (back in the inventory, in PvP areas and
//! elsewhere alike: CONTRACT.md section 14), and the player is back at the spawn with full health
//! in the same tick. Outside PvP areas the
//! pile is the dead player's alone for [`GRAVESTONE_TICKS`] (a gravestone), then anyone's for
//! [`GROUND_LIFETIME_TICKS`] before it vanishes; in a PvP area it falls for the killer (a player)
//! for [`GROUND_PRIVATE_TICKS`], or for anyone at once when no player killed. The server persists
//! each death's pile from [`Event::PlayerDied`], [`Event::DeathItemTaken`] and
//! [`Event::DeathItemExpired`], and puts piles back after a restart with
//! [`crate::Command::RestoreDeathPile`].

use wayfarer_protocol::ws::TilePos;

use crate::events::Event;
use crate::flows::FlowKind;
use crate::ground::{Spill, GROUND_LIFETIME_TICKS, GROUND_PRIVATE_TICKS};
use crate::inventory::Stack;
use crate::world::World;

/// Ticks a death pile outside PvP areas stays its owner's alone (15 minutes, the genre's
/// gravestone: OSRS Wiki, *Gravestone*).
pub const GRAVESTONE_TICKS: u64 = 1_500;

/// Items a player keeps on dying, anywhere: the most valuable ones (OSRS Wiki, *Items Kept on
/// Death*: "the 3 most valuable items"; CONTRACT.md section 14 for deaths outside PvP).
pub const KEPT_ON_DEATH: u32 = 3;

/// Who dealt a fatal blow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Killer {
    /// `self.players[n]`.
    Player(usize),
    /// `self.npcs[n]`.
    Npc(usize),
    /// Nothing that fights (a fall from an obstacle).
    Nothing,
}

/// Splits `items` into (kept, lost): the `keep` most valuable single items by content value (a
/// stack counts item by item; ties go to the earlier stack, inventory before equipment), then the
/// rest, each stack split where the line falls.
pub(crate) fn keep_most_valuable(
    items: Vec<Stack>,
    keep: u32,
    value_of: impl Fn(&str) -> u64,
) -> (Vec<Stack>, Vec<Stack>) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    // Stable: equal values keep their order.
    order.sort_by_key(|&i| std::cmp::Reverse(value_of(&items[i].item_id)));
    let mut keep_of = vec![0u32; items.len()];
    let mut left = keep;
    for i in order {
        if left == 0 {
            break;
        }
        let n = items[i].quantity.min(left);
        keep_of[i] = n;
        left -= n;
    }
    let mut kept = Vec::new();
    let mut lost = Vec::new();
    for (stack, n) in items.into_iter().zip(keep_of) {
        if n > 0 {
            kept.push(Stack {
                item_id: stack.item_id.clone(),
                quantity: n,
            });
        }
        if stack.quantity > n {
            lost.push(Stack {
                item_id: stack.item_id,
                quantity: stack.quantity - n,
            });
        }
    }
    (kept, lost)
}

impl World {
    /// Player `index` reached 0 health from `killer`'s blow.
    pub(crate) fn player_died(&mut self, index: usize, killer: Killer, events: &mut Vec<Event>) {
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
        let killer_player = match killer {
            Killer::Player(k) => Some(k),
            _ => None,
        };
        let killer_id = killer_player.map(|k| self.players[k].id.clone());
        let killer_named = match killer {
            Killer::Player(k) => {
                Some((self.players[k].id.clone(), self.player_called(k).to_owned()))
            }
            Killer::Npc(n) => self
                .entities
                .get(self.npcs[n].handle)
                .map(|b| (b.wire.id.clone(), self.npc_called(n).to_owned())),
            Killer::Nothing => None,
        };
        let death_id = format!("{id}-{now}");
        let content = self.content.clone();
        let player = &mut self.players[index];
        let mut items = player.inventory.take_all();
        items.extend(player.equipment.take_all());
        let (kept, items) = keep_most_valuable(items, KEPT_ON_DEATH, |item| {
            content.item(item).map_or(0, |i| i.value)
        });
        for stack in &kept {
            // The inventory was just emptied: three items always fit.
            let stacking = content.item(&stack.item_id).map_or(
                crate::inventory::Stacking::Unstackable,
                crate::inventory::Stacking::of,
            );
            let _ = player
                .inventory
                .add(&stack.item_id, stack.quantity, stacking);
        }
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
            self.spawn_ground_items(
                tile,
                stack.clone(),
                owner,
                private_ticks,
                lifetime_ticks,
                Spill::Death(&death_id),
            );
        }
        let spawn = self.layout.spawn;
        let gravestone_ticks = (!pvp && !items.is_empty()).then_some(GRAVESTONE_TICKS);
        let kept_named: Vec<(String, u32)> = kept
            .iter()
            .map(|s| (s.item_id.clone(), s.quantity))
            .collect();
        events.push(Event::PlayerDied {
            id: id.clone(),
            death_id,
            tile,
            items,
            pvp,
            kept,
            killer: killer_named,
            respawn: spawn,
            gravestone_ticks,
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
        // Distance walked towards Agility XP is lost with the life (the reference game's rule).
        self.players[index].agility = Default::default();
        self.place_player(index, spawn);
        self.forget_player(handle);
        for other in &mut self.players {
            if other.intent.as_ref().is_some_and(|i| i.target == handle) {
                other.intent = None;
            }
        }
        self.narrate(index, crate::game_messages::died(), events);
        let named: Vec<String> = kept_named
            .iter()
            .map(|(id, n)| self.how_many(u64::from(*n), id))
            .collect();
        if let Some(text) = crate::game_messages::kept_on_death(&named) {
            self.narrate(index, text, events);
        }
        if let Some(k) = killer_player {
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
            self.spawn_ground_items(
                tile,
                stack,
                Some(owner),
                private_ticks,
                private_ticks + GROUND_LIFETIME_TICKS,
                Spill::Death(death_id),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(item_id: &str, quantity: u32) -> Stack {
        Stack {
            item_id: item_id.into(),
            quantity,
        }
    }

    #[test]
    fn the_three_most_valuable_single_items_are_kept_stacks_split_where_the_line_falls() {
        let value = |id: &str| match id {
            "rune_sword" => 20_000,
            "amulet" => 5_000,
            "arrows" => 40,
            "coins" => 1,
            _ => 10,
        };
        let items = vec![
            stack("coins", 500),
            stack("logs", 1),
            stack("arrows", 100),
            stack("amulet", 1),
            stack("rune_sword", 1),
        ];
        let (kept, lost) = keep_most_valuable(items, KEPT_ON_DEATH, value);
        assert_eq!(
            kept,
            vec![
                stack("arrows", 1),
                stack("amulet", 1),
                stack("rune_sword", 1)
            ]
        );
        assert_eq!(
            lost,
            vec![stack("coins", 500), stack("logs", 1), stack("arrows", 99)]
        );
        // Ties keep the earlier stack; a stack counts item by item.
        let (kept, lost) = keep_most_valuable(
            vec![stack("logs", 2), stack("ore", 5)],
            KEPT_ON_DEATH,
            value,
        );
        assert_eq!(kept, vec![stack("logs", 2), stack("ore", 1)]);
        assert_eq!(lost, vec![stack("ore", 4)]);
        // Outside PvP nothing is kept.
        let (kept, lost) = keep_most_valuable(vec![stack("logs", 2)], 0, value);
        assert!(kept.is_empty());
        assert_eq!(lost, vec![stack("logs", 2)]);
    }
}
