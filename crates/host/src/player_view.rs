//! The Player shape (CONTRACT.md section 2) built from a character's saved or live state: one place for
//! REST, `player:sync` on entry and `player:sync` on request.

use std::collections::BTreeMap;

use wayfarer_content::Content;
use wayfarer_protocol::ws::{EquippedItem, InventorySlot, Player, SkillState, TilePos, WorldPos};
use wayfarer_protocol::Skill;
use wayfarer_store::{CharacterSnapshot, SkillTable, StoredSlot};

/// The item id of coins; the character record's `coins` column mirrors their count.
pub const COINS_ITEM: &str = "coins";

/// Coins held in an inventory.
pub fn coins_in(inventory: &[StoredSlot]) -> i64 {
    inventory
        .iter()
        .filter(|s| s.item_id == COINS_ITEM)
        .map(|s| s.quantity)
        .sum()
}

/// The tile of a world position.
pub fn tile_of(position: [f64; 3]) -> TilePos {
    TilePos {
        x: position[0].floor() as i32,
        z: position[2].floor() as i32,
    }
}

/// The centre of a tile at the character's height.
pub fn centre_of(tile: TilePos, y: f64) -> WorldPos {
    WorldPos {
        x: f64::from(tile.x) + 0.5,
        y,
        z: f64::from(tile.z) + 0.5,
    }
}

/// Inventory slots with their item names from content.
pub fn inventory_view(content: &Content, slots: &[StoredSlot]) -> Vec<InventorySlot> {
    slots
        .iter()
        .map(|s| InventorySlot {
            slot: s.slot,
            item_id: s.item_id.clone(),
            name: content
                .items
                .get(s.item_id.as_str())
                .map(|i| i.name.clone())
                .unwrap_or_else(|| s.item_id.clone()),
            quantity: s.quantity,
        })
        .collect()
}

/// A character's skills as the Player shows them. Collected into a vector of the exact size
/// first: the table's iterator filters unset skills, so collecting it straight into the map grew
/// the map's staging vector three times for every `player:sync`, thousands a second at 10,000
/// players (the map is built from a vector in skill order either way).
fn skill_states(skills: &SkillTable) -> BTreeMap<Skill, SkillState> {
    let mut states = Vec::with_capacity(skills.len());
    states.extend(skills.iter().map(|(skill, s)| {
        (
            *skill,
            SkillState {
                level: s.level,
                xp: s.xp,
            },
        )
    }));
    BTreeMap::from_iter(states)
}

/// The Player for `snapshot` at `position`; `tile` is set for `player:sync` (REST leaves it out).
pub fn player(
    content: &Content,
    snapshot: &CharacterSnapshot,
    position: WorldPos,
    tile: Option<TilePos>,
    online: bool,
) -> Player {
    let c = &snapshot.character;
    Player {
        id: c.id.clone(),
        account_id: c.account_id.clone(),
        name: c.name.clone(),
        combat_level: c.combat_level,
        health: c.health,
        max_health: c.max_health,
        coins: coins_in(&snapshot.inventory),
        position,
        skills: skill_states(&c.skills),
        inventory: inventory_view(content, &snapshot.inventory),
        equipment: snapshot
            .equipment
            .iter()
            .map(|e| {
                (
                    e.slot_type.clone(),
                    EquippedItem {
                        item_id: e.item_id.clone(),
                        quantity: e.quantity,
                    },
                )
            })
            .collect(),
        online,
        tile,
        // Sync-only, like `tile`. Run energy is not saved: a player enters the world rested, and
        // the world thread puts the live figure into a sync asked for later.
        stamina: tile.map(|_| wayfarer_sim::MAX_RUN_ENERGY / wayfarer_sim::RUN_ENERGY_PER_PERCENT),
        auto_retaliate: tile.map(|_| c.auto_retaliate),
        // Sync-only: from the record's time the teleport may be cast again (the world thread
        // reads the live figure of a player online).
        home_teleport_cooldown: tile.map(|_| {
            home_teleport_seconds_left(c.home_teleport_ready_at_ms, wayfarer_store::now_ms())
        }),
    }
}

/// Whole seconds (rounded up) from `now_ms` until `ready_at_ms`, 0 when it has passed or is unset.
pub fn home_teleport_seconds_left(ready_at_ms: Option<i64>, now_ms: i64) -> u64 {
    let left = ready_at_ms.map_or(0, |at| at.saturating_sub(now_ms)).max(0);
    u64::try_from(left).unwrap_or(0).div_ceil(1000)
}

#[cfg(test)]
mod tests {
    use wayfarer_store::SkillLevel;

    use super::*;

    #[test]
    fn skills_show_every_set_skill_in_skill_order() {
        let mut table = SkillTable::new();
        assert!(skill_states(&table).is_empty());
        for (n, skill) in Skill::ALL.iter().enumerate().filter(|(n, _)| n % 3 != 1) {
            let level = SkillLevel {
                level: n as i64 + 1,
                xp: 100 * n as i64,
            };
            table.insert(*skill, level);
        }
        let states = skill_states(&table);
        assert_eq!(states.len(), table.len());
        let expected: Vec<(Skill, SkillState)> = table
            .iter()
            .map(|(skill, s)| {
                let state = SkillState {
                    level: s.level,
                    xp: s.xp,
                };
                (*skill, state)
            })
            .collect();
        assert_eq!(states.into_iter().collect::<Vec<_>>(), expected);
    }
}
