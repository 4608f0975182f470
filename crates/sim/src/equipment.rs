//! What a player wears: one stack per equipment slot, the bonuses it adds up to, and the slot names
//! used on the wire and in the `equipment` table.
//!
//! A two-handed weapon is kept in the weapon slot (it is the weapon) and keeps the shield slot empty;
//! the equip rules that enforce that live in `items`.

use std::collections::BTreeMap;

use wayfarer_content::{Bonuses, Content, EquipSlot, Item, WeaponStats};

use crate::inventory::Stack;

/// The slots a stack can be stored under (a two-handed weapon is stored under `Weapon`).
pub const WORN_SLOTS: [EquipSlot; 11] = [
    EquipSlot::Weapon,
    EquipSlot::Shield,
    EquipSlot::Arrows,
    EquipSlot::Helmet,
    EquipSlot::Body,
    EquipSlot::Legs,
    EquipSlot::Gloves,
    EquipSlot::Boots,
    EquipSlot::Cape,
    EquipSlot::Amulet,
    EquipSlot::Ring,
];

/// The wire and storage name of a worn slot (`weapon`, `shield`, `arrows`, `helmet`, …).
pub fn slot_name(slot: EquipSlot) -> &'static str {
    match slot {
        EquipSlot::Weapon | EquipSlot::TwoHanded => "weapon",
        EquipSlot::Shield => "shield",
        EquipSlot::Arrows => "arrows",
        EquipSlot::Helmet => "helmet",
        EquipSlot::Body => "body",
        EquipSlot::Legs => "legs",
        EquipSlot::Gloves => "gloves",
        EquipSlot::Boots => "boots",
        EquipSlot::Cape => "cape",
        EquipSlot::Amulet => "amulet",
        EquipSlot::Ring => "ring",
    }
}

/// The worn slot named `name` (any of the manifest spellings); a two-handed name means the weapon
/// slot.
pub fn parse_slot(name: &str) -> Option<EquipSlot> {
    EquipSlot::parse(name).map(storage_slot)
}

/// Where an item worn in `slot` is stored.
pub fn storage_slot(slot: EquipSlot) -> EquipSlot {
    match slot {
        EquipSlot::TwoHanded => EquipSlot::Weapon,
        other => other,
    }
}

/// A player's worn items.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Equipment {
    slots: BTreeMap<EquipSlot, Stack>,
}

impl Equipment {
    /// Nothing worn.
    pub fn new() -> Equipment {
        Equipment::default()
    }

    /// Worn stacks as saved (slot names as [`parse_slot`] reads them); unknown slot names and
    /// empty stacks are skipped by the caller's choice of input, later duplicates replace earlier.
    pub fn from_stacks(stacks: impl IntoIterator<Item = (EquipSlot, Stack)>) -> Equipment {
        let mut equipment = Equipment::new();
        for (slot, stack) in stacks {
            if stack.quantity > 0 {
                equipment.slots.insert(storage_slot(slot), stack);
            }
        }
        equipment
    }

    /// The stack worn in `slot`.
    pub fn get(&self, slot: EquipSlot) -> Option<&Stack> {
        self.slots.get(&storage_slot(slot))
    }

    /// Every worn stack, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (EquipSlot, &Stack)> {
        self.slots.iter().map(|(slot, stack)| (*slot, stack))
    }

    /// True when nothing is worn.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Puts `stack` in `slot`, returning what was there.
    pub(crate) fn put(&mut self, slot: EquipSlot, stack: Stack) -> Option<Stack> {
        self.slots.insert(storage_slot(slot), stack)
    }

    /// Takes the stack out of `slot`.
    pub(crate) fn take(&mut self, slot: EquipSlot) -> Option<Stack> {
        self.slots.remove(&storage_slot(slot))
    }

    /// Takes `quantity` from the stack in `slot` (ammunition fired); false when there is less.
    pub(crate) fn consume(&mut self, slot: EquipSlot, quantity: u32) -> bool {
        let slot = storage_slot(slot);
        let Some(stack) = self.slots.get_mut(&slot) else {
            return false;
        };
        if stack.quantity < quantity {
            return false;
        }
        stack.quantity -= quantity;
        if stack.quantity == 0 {
            self.slots.remove(&slot);
        }
        true
    }

    /// Empties every slot, returning the stacks in slot order (death).
    pub(crate) fn take_all(&mut self) -> Vec<Stack> {
        std::mem::take(&mut self.slots).into_values().collect()
    }

    /// The content item worn in `slot`.
    pub fn item<'c>(&self, content: &'c Content, slot: EquipSlot) -> Option<&'c Item> {
        self.get(slot)
            .and_then(|stack| content.items.get(stack.item_id.as_str()))
    }

    /// The wielded weapon's stats, when a weapon is wielded.
    pub fn weapon<'c>(&self, content: &'c Content) -> Option<&'c WeaponStats> {
        self.item(content, EquipSlot::Weapon)
            .and_then(|item| item.weapon.as_ref())
    }

    /// The sum of every worn item's bonuses (the genre's equipment screen totals).
    pub fn bonuses(&self, content: &Content) -> Bonuses {
        let mut total = Bonuses::default();
        for stack in self.slots.values() {
            if let Some(item) = content.items.get(stack.item_id.as_str()) {
                let b = &item.bonuses;
                total.attack_melee += b.attack_melee;
                total.attack_ranged += b.attack_ranged;
                total.attack_magic += b.attack_magic;
                total.strength_melee += b.strength_melee;
                total.strength_ranged += b.strength_ranged;
                total.defense_stab += b.defense_stab;
                total.defense_slash += b.defense_slash;
                total.defense_crush += b.defense_crush;
                total.defense_ranged += b.defense_ranged;
                total.defense_magic += b.defense_magic;
                total.prayer += b.prayer;
                total.magic_damage += b.magic_damage;
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(item: &str, quantity: u32) -> Stack {
        Stack {
            item_id: item.into(),
            quantity,
        }
    }

    #[test]
    fn two_handed_weapons_are_stored_as_the_weapon_and_names_round_trip() {
        let mut e = Equipment::new();
        e.put(EquipSlot::TwoHanded, stack("bow", 1));
        assert_eq!(e.get(EquipSlot::Weapon), Some(&stack("bow", 1)));
        for slot in WORN_SLOTS {
            assert_eq!(parse_slot(slot_name(slot)), Some(slot));
        }
        assert_eq!(parse_slot("2h"), Some(EquipSlot::Weapon));
        assert_eq!(parse_slot("hat"), None);
    }

    #[test]
    fn ammunition_is_consumed_and_the_empty_slot_cleared() {
        let mut e = Equipment::from_stacks([(EquipSlot::Arrows, stack("arrow", 2))]);
        assert!(e.consume(EquipSlot::Arrows, 1));
        assert!(e.consume(EquipSlot::Arrows, 1));
        assert!(!e.consume(EquipSlot::Arrows, 1));
        assert!(e.is_empty());
    }
}
