//! What players do with their items: drop, equip and unequip (with level requirements and the
//! two-handed rule), eat, bury, and `inventory:use` (an item alone, on another item, or on an
//! entity); admin `/give`; and the end-of-tick report of what changed in each player's inventory,
//! equipment and stats.
//!
//! Every change goes through the inventory's all-or-nothing transactions, so a refused action
//! changes nothing and no item is ever made or lost by one.

use wayfarer_content::{EquipSlot, Item, Skill};
use wayfarer_protocol::ws::codes;

use crate::actions::IntentKind;
use crate::equipment::{slot_name, storage_slot};
use crate::events::{Event, PlayerStats};
use crate::flows::FlowKind;
use crate::game_messages;
use crate::ground::{Spill, GROUND_LIFETIME_TICKS, GROUND_PRIVATE_TICKS};
use crate::inventory::{Stack, Stacking};
use crate::skills::Xp;
use crate::world::World;

/// The item used to light fires.
pub const TINDERBOX: &str = "tinderbox";

/// Ticks from one bite of food to the next (CONTRACT.md section 14, `eat_delay`; the genre's 1.8 s).
pub const EAT_DELAY_TICKS: u64 = 3;

impl World {
    /// How `item_id` stacks (an item content no longer has stacks, so it can always be held).
    pub(crate) fn stacking(&self, item_id: &str) -> Stacking {
        self.content
            .items
            .get(item_id)
            .map_or(Stacking::STACKABLE, Stacking::of)
    }

    /// The stack in a player's slot, or a rejection naming the empty slot.
    pub(crate) fn stack_in(
        &self,
        index: usize,
        slot: usize,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) -> Option<Stack> {
        let stack = self.players[index].inventory.get(slot).cloned();
        if stack.is_none() {
            Self::reject(
                &self.players[index].id,
                codes::INVALID_SLOT,
                format!("inventory slot {slot} is empty"),
                reference,
                events,
            );
        }
        stack
    }

    /// `drop`: the whole stack in `slot` goes on the ground under the player, theirs for a minute.
    pub(crate) fn drop_item(
        &mut self,
        index: usize,
        slot: usize,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(stack) = self.stack_in(index, slot, reference, events) else {
            return;
        };
        let Ok(taken) = self.players[index].inventory.remove(slot, stack.quantity) else {
            return;
        };
        self.flow(FlowKind::Moved, "dropped", &taken.item_id, taken.quantity);
        let player = &mut self.players[index];
        player.dirty.inventory = true;
        let owner = player.id.clone();
        let Some(tile) = self.entities.get(player.handle).map(|b| b.tile()) else {
            return;
        };
        self.spawn_ground_items(
            tile,
            taken,
            Some(&owner),
            GROUND_PRIVATE_TICKS,
            GROUND_LIFETIME_TICKS,
            Spill::Dropped,
        );
    }

    /// The first requirement of `item` the player does not meet, as a message.
    fn unmet_requirement(&self, index: usize, item: &Item) -> Option<String> {
        let skills = &self.players[index].skills;
        item.requirements.iter().find_map(|(skill, level)| {
            (u32::from(skills.level(*skill)) < *level).then(|| {
                format!(
                    "you need level {level} {} to use {}",
                    skill_title(*skill),
                    item.name
                )
            })
        })
    }

    /// `equip`: wears the item in `slot`, putting back into the inventory whatever it replaces (both
    /// hands' items for a two-handed weapon, the two-handed weapon for a shield).
    pub(crate) fn equip(
        &mut self,
        index: usize,
        slot: usize,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(stack) = self.stack_in(index, slot, reference, events) else {
            return;
        };
        let id = self.players[index].id.clone();
        let content = self.content.clone();
        let Some((item, wear)) = content
            .items
            .get(stack.item_id.as_str())
            .and_then(|item| item.equip_slot.map(|s| (item, s)))
        else {
            return Self::reject(
                &id,
                codes::CANNOT_DO,
                "you cannot wear that",
                reference,
                events,
            );
        };
        if let Some(message) = self.unmet_requirement(index, item) {
            return Self::reject(&id, codes::CANNOT_DO, message, reference, events);
        }
        let storage = storage_slot(wear);
        let player = &mut self.players[index];
        // What comes off: the slot's current item, unless it is more of the same ammunition.
        let mut off: Vec<EquipSlot> = Vec::new();
        let merge = player
            .equipment
            .get(storage)
            .is_some_and(|worn| worn.item_id == stack.item_id && item.stackable);
        if !merge && player.equipment.get(storage).is_some() {
            off.push(storage);
        }
        if wear == EquipSlot::TwoHanded && player.equipment.get(EquipSlot::Shield).is_some() {
            off.push(EquipSlot::Shield);
        }
        if wear == EquipSlot::Shield {
            let two_handed = player
                .equipment
                .item(&content, EquipSlot::Weapon)
                .is_some_and(|w| w.equip_slot == Some(EquipSlot::TwoHanded));
            if two_handed {
                off.push(EquipSlot::Weapon);
            }
        }
        let merged_quantity = if merge {
            let worn = player.equipment.get(storage).map_or(0, |w| w.quantity);
            match worn.checked_add(stack.quantity) {
                Some(q) if q <= Stacking::of(item).max_quantity() => q,
                _ => {
                    return Self::reject(
                        &id,
                        codes::CANNOT_DO,
                        "you cannot wear any more of those",
                        reference,
                        events,
                    )
                }
            }
        } else {
            stack.quantity
        };
        let removed: Vec<Stack> = off
            .iter()
            .filter_map(|s| player.equipment.get(*s).cloned())
            .collect();
        let stackings: Vec<Stacking> = removed
            .iter()
            .map(|s| {
                content
                    .items
                    .get(s.item_id.as_str())
                    .map_or(Stacking::STACKABLE, Stacking::of)
            })
            .collect();
        let swapped = player.inventory.apply(|tx| {
            tx.remove(slot, stack.quantity)?;
            for (worn, stacking) in removed.iter().zip(&stackings) {
                tx.add(&worn.item_id, worn.quantity, *stacking)?;
            }
            Ok(())
        });
        if swapped.is_err() {
            return Self::reject(
                &id,
                codes::CANNOT_DO,
                "you do not have enough inventory space",
                reference,
                events,
            );
        }
        for s in off {
            player.equipment.take(s);
        }
        player.equipment.put(
            storage,
            Stack {
                item_id: stack.item_id,
                quantity: merged_quantity,
            },
        );
        player.dirty.inventory = true;
        player.dirty.equipment = true;
        player.dirty.stats = true;
    }

    /// `unequip`: takes off what is worn in `slot`, if the inventory has room.
    pub(crate) fn unequip(
        &mut self,
        index: usize,
        slot: EquipSlot,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let id = self.players[index].id.clone();
        let Some(worn) = self.players[index].equipment.get(slot).cloned() else {
            return Self::reject(
                &id,
                codes::INVALID_SLOT,
                format!("nothing is worn in the {} slot", slot_name(slot)),
                reference,
                events,
            );
        };
        let stacking = self.stacking(&worn.item_id);
        let player = &mut self.players[index];
        if player
            .inventory
            .add(&worn.item_id, worn.quantity, stacking)
            .is_err()
        {
            return Self::reject(
                &id,
                codes::CANNOT_DO,
                "you do not have enough inventory space",
                reference,
                events,
            );
        }
        player.equipment.take(slot);
        player.dirty.inventory = true;
        player.dirty.equipment = true;
        player.dirty.stats = true;
    }

    /// `inventory:use`: an item alone (eat, bury, wield), on another item, or on an entity.
    pub(crate) fn use_item(
        &mut self,
        id: &str,
        slot: usize,
        target_slot: Option<usize>,
        target_id: Option<String>,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(index) = self.living_player(id, reference, events) else {
            return;
        };
        let Some(stack) = self.stack_in(index, slot, reference, events) else {
            return;
        };
        if let Some(target) = target_id {
            return self.begin(
                index,
                &target,
                IntentKind::UseOn { slot },
                reference,
                events,
            );
        }
        if let Some(other) = target_slot {
            if self.stack_in(index, other, reference, events).is_none() {
                return;
            }
            if other == slot {
                return Self::reject(
                    id,
                    codes::INVALID_SLOT,
                    "an item cannot be used on itself",
                    reference,
                    events,
                );
            }
            // Item on item: what the two make together is offered (a tinderbox on logs too).
            return self.offer_for_items(index, slot, other, reference, events);
        }
        let content = self.content.clone();
        let Some(item) = content.items.get(stack.item_id.as_str()) else {
            return Self::reject(
                id,
                codes::CANNOT_DO,
                "nothing interesting happens",
                reference,
                events,
            );
        };
        if item.use_effect.as_ref().is_some_and(|e| e.kind == XP_LAMP) {
            return Self::reject(
                id,
                codes::INVALID_MESSAGE,
                "rub the lamp on a skill: inventory:use with `skill`",
                reference,
                events,
            );
        }
        if let Some(heal) = item.heal_amount {
            return self.eat(index, slot, heal, reference, events);
        }
        if let Some(xp) = item.prayer_xp {
            let player = &mut self.players[index];
            if player.inventory.remove(slot, 1).is_ok() {
                player.dirty.inventory = true;
                self.flow_by(index, FlowKind::Left, "buried", &stack.item_id, 1u32);
                self.narrate(index, game_messages::buried(&item.name), events);
                self.grant_xp(index, Skill::Prayer, Xp::from_f64(xp), events);
            }
            return;
        }
        if item.equip_slot.is_some() {
            return self.equip(index, slot, reference, events);
        }
        Self::reject(
            id,
            codes::CANNOT_DO,
            "nothing interesting happens",
            reference,
            events,
        )
    }

    /// `inventory:use {slot, skill}`: an XP lamp's XP to the chosen skill.
    pub(crate) fn use_lamp(
        &mut self,
        id: &str,
        slot: usize,
        skill: Skill,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        let Some(stack) = self.stack_in(index, slot, reference, events) else {
            return;
        };
        let effect = self
            .content
            .items
            .get(stack.item_id.as_str())
            .and_then(|i| i.use_effect.clone())
            .filter(|e| e.kind == XP_LAMP);
        let Some(effect) = effect else {
            return Self::reject(
                id,
                codes::CANNOT_DO,
                "that is not an XP lamp",
                reference,
                events,
            );
        };
        self.rub_lamp(
            index,
            slot,
            effect.xp_amount,
            effect.consume_on_use,
            skill,
            events,
        );
    }

    /// Eats one of the food in `slot`: heals up to the maximum; one bite every
    /// [`EAT_DELAY_TICKS`], a bite sooner refused with `cooldown`.
    fn eat(
        &mut self,
        index: usize,
        slot: usize,
        heal: u32,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let now = self.now();
        let player = &mut self.players[index];
        if now < player.eat_ready_at {
            let id = player.id.clone();
            return Self::reject(
                &id,
                codes::COOLDOWN,
                "you are already eating",
                reference,
                events,
            );
        }
        let Ok(eaten) = player.inventory.remove(slot, 1) else {
            return;
        };
        player.dirty.inventory = true;
        player.eat_ready_at = now + EAT_DELAY_TICKS;
        self.flow_by(index, FlowKind::Left, "eaten", &eaten.item_id, 1u32);
        let player = &mut self.players[index];
        // Eating costs the player's next swing a moment, as in the genre.
        player.attack_ready_at = player.attack_ready_at.max(now + 1);
        let (health, max) = self.player_health(index);
        let healed = (health + i64::from(heal)).min(max);
        self.set_player_health(index, healed);
        let text = game_messages::ate(&self.item_called(&eaten.item_id), healed - health);
        self.narrate(index, text, events);
    }

    /// Admin `/give`: as many as fit (all of a stackable, or one per free slot).
    pub(crate) fn give(&mut self, id: &str, item_id: &str, quantity: u32, events: &mut Vec<Event>) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        if !self.content.items.contains_key(item_id) {
            return self.system_message(Some(id), format!("No item with id {item_id}."), events);
        }
        let stacking = self.stacking(item_id);
        let player = &mut self.players[index];
        let given = match stacking {
            Stacking::Stackable { .. } => match player.inventory.add(item_id, quantity, stacking) {
                Ok(()) => quantity,
                Err(_) => 0,
            },
            Stacking::Unstackable => {
                let n = quantity.min(player.inventory.free_slots() as u32);
                match player.inventory.add(item_id, n, stacking) {
                    Ok(()) => n,
                    Err(_) => 0,
                }
            }
        };
        if given > 0 {
            player.dirty.inventory = true;
            self.flow_by(index, FlowKind::Entered, "given", item_id, given);
        }
        // Content's name, never the internal id (CONTRACT section 9), as every other line says;
        // what did not fit is said, not shown as a gift of nothing.
        let name = self.item_called(item_id);
        let text = match (given, quantity - given) {
            (0, _) => format!("No room in the inventory: gave no {name}."),
            (_, 0) => format!("Gave {given} x {name}."),
            (_, left) => format!("Gave {given} x {name}; no room for {left} more."),
        };
        self.system_message(Some(id), text, events);
    }

    /// Adds XP to a player's skill, reporting the gain (and the new combat level when it moved).
    pub(crate) fn grant_xp(&mut self, index: usize, skill: Skill, xp: Xp, events: &mut Vec<Event>) {
        if xp == Xp::ZERO {
            return;
        }
        let player = &mut self.players[index];
        let gain = player.skills.add_xp(skill, xp);
        if gain.gained == Xp::ZERO {
            return;
        }
        events.push(Event::Xp {
            to: player.id.clone(),
            skill,
            gain,
        });
        if gain.leveled_up {
            player.dirty.stats = true;
            if skill == Skill::Prayer {
                let levels = u32::from(gain.level).saturating_sub(u32::from(gain.previous_level));
                self.prayer_levelled(index, levels);
            }
            if skill == Skill::Constitution {
                // A higher Constitution level raises the maximum; current health rises with it.
                let added = i64::from(gain.level) - i64::from(gain.previous_level);
                let (health, _) = self.player_health(index);
                // Setting it writes the new maximum too (the level is already raised).
                self.set_player_health(index, health + added);
            }
        }
    }

    /// A player's current and maximum health.
    pub(crate) fn player_health(&self, index: usize) -> (i64, i64) {
        let max = i64::from(self.players[index].skills.level(Skill::Constitution));
        let health = self
            .entities
            .get(self.players[index].handle)
            .and_then(|b| b.wire.health)
            .unwrap_or(max);
        (health, max)
    }

    /// Sets a player's health (clamped to `0..=max`) and the maximum from the Constitution level,
    /// shown to everyone in view.
    pub(crate) fn set_player_health(&mut self, index: usize, health: i64) {
        let (_, max) = self.player_health(index);
        self.write_player_health(index, health.clamp(0, max), max);
    }

    fn write_player_health(&mut self, index: usize, health: i64, max: i64) {
        let now = self.now();
        let handle = self.players[index].handle;
        let Some(body) = self.entities.get_mut(handle) else {
            return;
        };
        let health_changed = body.wire.health != Some(health);
        let max_changed = body.wire.max_health != Some(max);
        if !health_changed && !max_changed {
            return;
        }
        let wire = body.wire_mut();
        wire.health = Some(health);
        wire.max_health = Some(max);
        let tile = body.tile();
        self.entities.record_change(handle, now, |c| {
            if health_changed {
                c.health = Some(health);
            }
            if max_changed {
                c.max_health = Some(max);
            }
        });
        self.grid.touch(tile, now);
        self.players[index].dirty.stats = true;
    }

    /// Emits each player's changed inventory, equipment and stats, once per tick (and the tick's
    /// item flows).
    pub(crate) fn report_player_changes(&mut self, events: &mut Vec<Event>) {
        self.report_flows(events);
        for index in 0..self.players.len() {
            self.report_changes_of(index, events);
        }
    }

    /// Reports player `index`'s changes since the last report (once per tick, and once more as
    /// they leave, so that a command applied in their last tick is never lost).
    pub(crate) fn report_changes_of(&mut self, index: usize, events: &mut Vec<Event>) {
        let dirty = std::mem::take(&mut self.players[index].dirty);
        if dirty.inventory || dirty.equipment {
            // The flags that told the movement phase what the player carries had changed are
            // cleared here: its drain is weighed again when next paid.
            self.players[index].run_energy.forget_drain();
        }
        let player = &self.players[index];
        if dirty.zone {
            events.push(Event::Zone {
                to: player.id.clone(),
                zone: self.zones.message(player.zone),
            });
        }
        if dirty.inventory {
            events.push(Event::Inventory {
                to: player.id.clone(),
                slots: player
                    .inventory
                    .stacks()
                    .map(|(slot, stack)| (slot as u8, stack.clone()))
                    .collect(),
            });
        }
        if dirty.equipment {
            events.push(Event::Equipment {
                to: player.id.clone(),
                worn: player
                    .equipment
                    .iter()
                    .map(|(slot, stack)| (slot, stack.clone()))
                    .collect(),
            });
            self.show_worn(index);
        }
        let player = &self.players[index];
        if dirty.bank {
            events.push(Event::Bank {
                to: player.id.clone(),
                items: player.bank.items().to_vec(),
            });
        }
        if dirty.stats {
            let (health, max_health) = self.player_health(index);
            let player = &self.players[index];
            events.push(Event::Stats {
                id: player.id.clone(),
                stats: PlayerStats {
                    health,
                    max_health,
                    combat_level: i64::from(player.skills.combat_level()),
                    style: player.style.as_str(),
                    auto_retaliate: player.auto_retaliate,
                },
            });
        }
        if dirty.prayer {
            let max_points = self.max_prayer_points(index);
            let player = &self.players[index];
            events.push(Event::Prayer {
                to: player.id.clone(),
                points: player.prayer.points,
                max_points,
                active: player.prayer.active.clone(),
            });
        }
        if dirty.quest_list {
            events.push(Event::QuestList {
                to: self.players[index].id.clone(),
                quests: self.quest_list(index),
                quest_points: self.quest_points(index),
            });
        }
        if dirty.save_now {
            events.push(Event::SaveNow {
                id: self.players[index].id.clone(),
            });
        }
    }

    /// A player's inventory.
    pub fn player_inventory(&self, player: &str) -> Option<&crate::inventory::Inventory> {
        let index = *self.player_index.get(player)?;
        Some(&self.players[index].inventory)
    }

    /// A player's worn items.
    pub fn player_equipment(&self, player: &str) -> Option<&crate::equipment::Equipment> {
        let index = *self.player_index.get(player)?;
        Some(&self.players[index].equipment)
    }

    /// A player's skills.
    pub fn player_skills(&self, player: &str) -> Option<&crate::skills::Skills> {
        let index = *self.player_index.get(player)?;
        Some(&self.players[index].skills)
    }

    /// A player's current and maximum health.
    pub fn player_health_of(&self, player: &str) -> Option<(i64, i64)> {
        let index = *self.player_index.get(player)?;
        Some(self.player_health(index))
    }

    /// Whether a player is doing something to an entity (walking to it or acting on it).
    pub fn player_is_busy(&self, player: &str) -> bool {
        self.player_index
            .get(player)
            .is_some_and(|&i| self.players[i].intent.is_some())
    }
}

/// The `useEffect` kind of XP lamps.
pub const XP_LAMP: &str = "xp_lamp";

/// The title-case name of a skill for messages.
pub(crate) fn skill_title(skill: Skill) -> String {
    let name = skill.as_str();
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
