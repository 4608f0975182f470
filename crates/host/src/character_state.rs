//! The bridge between a stored character and the sim's player: what the world needs to let a
//! character in (`joining`), and how the events of a tick are mirrored back into the record the save
//! task writes (`mirror_*`). The sim is the truth while a player is online; the record is its copy
//! for saving and for `player:sync`. What the same events tell the player is
//! `world_thread::messages`'s.

use wayfarer_content::{Content, EquipSlot, QuestStatus};
use wayfarer_protocol::ws::TilePos;
use wayfarer_protocol::Skill;
use wayfarer_sim::combat::formulas::CombatStyle;
use wayfarer_sim::equipment::{parse_slot, slot_name, Equipment};
use wayfarer_sim::inventory::{Inventory, Stack, INVENTORY_SLOTS, MAX_STACK};
use wayfarer_sim::skills::{Skills, Xp, XpGain};
use wayfarer_sim::{Joining, PlayerStats, QuestRecord};
use wayfarer_store::{CharacterSnapshot, StoredBankItem, StoredEquipment, StoredQuest, StoredSlot};

use crate::player_view;

/// The sim's skills of a stored character (its whole XP points per skill).
fn sim_skills(character: &wayfarer_store::Character) -> Skills {
    let mut skills = Skills::new();
    for (skill, state) in &character.skills {
        let points = u32::try_from(state.xp.max(0)).unwrap_or(u32::MAX);
        skills.set_xp(*skill, Xp::from_points(points));
    }
    skills
}

/// What the world needs of a stored character. Slots the sim cannot hold (a slot out of range, a
/// quantity out of bounds, an unknown equipment slot) are logged and left out of the world; the
/// stored rows stay until the next save, so nothing is silently rewritten at login.
pub fn joining(snapshot: &CharacterSnapshot, ignored: Vec<String>) -> Joining {
    joining_at(snapshot, ignored, wayfarer_store::now_ms())
}

/// [`joining`] at wall time `now_ms` (what is left of the home teleport's cooldown).
pub fn joining_at(snapshot: &CharacterSnapshot, ignored: Vec<String>, now_ms: i64) -> Joining {
    let c = &snapshot.character;
    let skills = sim_skills(c);
    let mut stacks: Vec<(usize, Stack)> = Vec::new();
    for slot in &snapshot.inventory {
        match u32::try_from(slot.quantity) {
            Ok(quantity) if quantity > 0 && quantity <= MAX_STACK => stacks.push((
                usize::from(slot.slot),
                Stack {
                    item_id: slot.item_id.clone(),
                    quantity,
                },
            )),
            _ => {
                tracing::warn!(character = %c.id, slot = slot.slot, quantity = slot.quantity, "inventory slot with an impossible quantity left out")
            }
        }
    }
    // A slot out of range or given twice cannot be held: the first of each slot counts.
    let mut seen = [false; INVENTORY_SLOTS];
    stacks.retain(|(slot, _)| {
        let fresh = *slot < INVENTORY_SLOTS && !seen[*slot];
        if fresh {
            seen[*slot] = true;
        } else {
            tracing::warn!(character = %c.id, slot, "inventory slot out of range or repeated left out");
        }
        fresh
    });
    let inventory = Inventory::from_stacks(stacks).unwrap_or_else(|err| {
        tracing::error!(character = %c.id, error = %err, "stored inventory refused");
        Inventory::new()
    });
    let equipment = Equipment::from_stacks(snapshot.equipment.iter().filter_map(|e| {
        let slot = parse_slot(&e.slot_type);
        let quantity = u32::try_from(e.quantity).ok().filter(|q| *q > 0);
        match (slot, quantity) {
            (Some(slot), Some(quantity)) => Some((
                slot,
                Stack {
                    item_id: e.item_id.clone(),
                    quantity,
                },
            )),
            _ => {
                tracing::warn!(character = %c.id, slot = %e.slot_type, "equipment row left out");
                None
            }
        }
    }));
    Joining {
        id: c.id.clone(),
        name: c.name.clone(),
        tile: player_view::tile_of(c.position),
        health: c.health,
        ignored,
        skills,
        inventory,
        equipment,
        style: CombatStyle::parse(&c.combat_style).unwrap_or_default(),
        auto_retaliate: c.auto_retaliate,
        home_teleport_cooldown_ticks: wayfarer_sim::ticks_for_ms_left(
            c.home_teleport_ready_at_ms
                .map_or(0, |at| at.saturating_sub(now_ms)),
        ),
        prayer_points: c
            .prayer_points
            .map(|p| u32::try_from(p.max(0)).unwrap_or(u32::MAX)),
        quests: snapshot
            .quests
            .iter()
            .filter_map(|q| {
                Some(QuestRecord {
                    quest_id: q.quest_id.clone(),
                    status: stored_quest_status(&c.id, q)?,
                    stage_id: q.stage.clone(),
                    progress: u32::try_from(q.progress.max(0)).unwrap_or(0),
                    completions: u32::try_from(q.completions.max(0)).unwrap_or(0),
                })
            })
            .collect(),
        bank: snapshot
            .bank
            .iter()
            .filter_map(|b| match u32::try_from(b.quantity) {
                Ok(quantity) if quantity > 0 && quantity <= MAX_STACK => Some(Stack {
                    item_id: b.item_id.clone(),
                    quantity,
                }),
                _ => {
                    tracing::warn!(character = %c.id, item = %b.item_id, quantity = b.quantity, "bank row with an impossible quantity left out");
                    None
                }
            })
            .collect(),
    }
}

/// The status of a stored quest row; `None` (logged) for a name [`QuestStatus`] does not know,
/// which is left out wherever the row is read.
pub fn stored_quest_status(character_id: &str, quest: &StoredQuest) -> Option<QuestStatus> {
    let status = QuestStatus::parse(&quest.status);
    if status.is_none() {
        tracing::warn!(character = %character_id, quest = %quest.quest_id, status = %quest.status, "quest row with an unknown status left out");
    }
    status
}

/// The record's bank after an `Event::Bank`.
pub fn mirror_bank(snapshot: &mut CharacterSnapshot, items: &[Stack]) {
    snapshot.bank = items
        .iter()
        .map(|s| StoredBankItem {
            item_id: s.item_id.clone(),
            quantity: i64::from(s.quantity),
        })
        .collect();
}

/// The record's inventory after an `Event::Inventory`.
pub fn mirror_inventory(snapshot: &mut CharacterSnapshot, slots: &[(u8, Stack)]) {
    snapshot.inventory = slots
        .iter()
        .map(|(slot, stack)| StoredSlot {
            slot: *slot,
            item_id: stack.item_id.clone(),
            quantity: i64::from(stack.quantity),
        })
        .collect();
    snapshot.character.coins = player_view::coins_in(&snapshot.inventory);
}

/// The record's equipment after an `Event::Equipment`.
pub fn mirror_equipment(snapshot: &mut CharacterSnapshot, worn: &[(EquipSlot, Stack)]) {
    snapshot.equipment = worn
        .iter()
        .map(|(slot, stack)| StoredEquipment {
            slot_type: slot_name(*slot).to_owned(),
            item_id: stack.item_id.clone(),
            quantity: i64::from(stack.quantity),
        })
        .collect();
}

/// The record's skill after an XP gain at `now_ms`.
pub fn mirror_xp(snapshot: &mut CharacterSnapshot, skill: Skill, gain: &XpGain, now_ms: i64) {
    let level = wayfarer_store::SkillLevel {
        level: i64::from(gain.level),
        xp: i64::from(gain.xp.points()),
    };
    // When this XP was reached, for the hiscores' tie-break (saved with the record). A gain of a
    // fraction of a point leaves the whole points, and so the standing, as they were.
    let before = snapshot.character.skills.get(&skill).map(|s| s.xp);
    if before != Some(level.xp) {
        snapshot.xp_reached_at.insert(skill, now_ms);
    }
    snapshot.character.skills.insert(skill, level);
}

/// The record's health, maximum, combat level, style and auto-retaliate after an `Event::Stats`.
pub fn mirror_stats(snapshot: &mut CharacterSnapshot, stats: &PlayerStats) {
    let c = &mut snapshot.character;
    c.health = stats.health;
    c.max_health = stats.max_health;
    c.combat_level = stats.combat_level;
    c.combat_style = stats.style.to_owned();
    c.auto_retaliate = stats.auto_retaliate;
}

/// The record's position after the player's tile changed (or they left): the tile's centre, at
/// the height the record had.
pub fn mirror_tile(snapshot: &mut CharacterSnapshot, tile: TilePos) {
    snapshot.character.position[0] = f64::from(tile.x) + 0.5;
    snapshot.character.position[2] = f64::from(tile.z) + 0.5;
}

/// The record's quests after an `Event::QuestUpdated`.
pub fn mirror_quest(snapshot: &mut CharacterSnapshot, record: &QuestRecord) {
    if record.status == wayfarer_content::QuestStatus::NotStarted {
        // Abandoned before it was ever done: no row, as for a quest never started.
        snapshot.quests.retain(|q| q.quest_id != record.quest_id);
        return;
    }
    let stored = StoredQuest {
        quest_id: record.quest_id.clone(),
        status: record.status.as_str().to_owned(),
        stage: record.stage_id.clone(),
        progress: i64::from(record.progress),
        completions: i64::from(record.completions),
    };
    match snapshot
        .quests
        .iter_mut()
        .find(|q| q.quest_id == record.quest_id)
    {
        Some(q) => *q = stored,
        None => snapshot.quests.push(stored),
    }
}

/// Item names for messages, from content.
pub fn item_name(content: &Content, item_id: &str) -> String {
    content
        .items
        .get(item_id)
        .map_or_else(|| item_id.to_owned(), |i| i.name.clone())
}

/// Sets a new character's skills to `levels` (the XP that reaches each level), and the combat
/// level and health that follow from them, as the sim computes them.
pub fn apply_levels(
    character: &mut wayfarer_store::Character,
    levels: &std::collections::BTreeMap<wayfarer_content::Skill, u8>,
) {
    let mut skills = sim_skills(character);
    for (&skill, &level) in levels {
        let xp = wayfarer_sim::skills::xp_for_level(level);
        skills.set_xp(skill, Xp::from_points(xp));
        character.skills.insert(
            skill,
            wayfarer_store::SkillLevel {
                level: i64::from(skills.level(skill)),
                xp: i64::from(xp),
            },
        );
    }
    character.combat_level = i64::from(skills.combat_level());
    let constitution = i64::from(skills.level(wayfarer_content::Skill::Constitution));
    character.max_health = constitution;
    character.health = constitution;
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_store::{Character, SkillLevel};

    fn snapshot() -> CharacterSnapshot {
        let mut skills = wayfarer_store::SkillTable::new();
        skills.insert(Skill::Woodcutting, SkillLevel { level: 2, xp: 100 });
        CharacterSnapshot {
            character: Character {
                id: "c".into(),
                account_id: "a".into(),
                name: "Ada".into(),
                combat_level: 3,
                skills,
                health: 7,
                max_health: 10,
                coins: 0,
                position: [3.5, 0.0, 4.5],
                combat_style: "aggressive".into(),
                prayer_points: None,
                home_teleport_ready_at_ms: None,
                auto_retaliate: true,
                created_at_ms: 0,
                last_login_at_ms: None,
            },
            inventory: vec![
                StoredSlot {
                    slot: 0,
                    item_id: "coins".into(),
                    quantity: 25,
                },
                StoredSlot {
                    slot: 3,
                    item_id: "logs".into(),
                    quantity: 0,
                },
            ],
            equipment: vec![
                StoredEquipment {
                    slot_type: "weapon".into(),
                    item_id: "bronze_sword".into(),
                    quantity: 1,
                },
                StoredEquipment {
                    slot_type: "hat".into(),
                    item_id: "x".into(),
                    quantity: 1,
                },
            ],
            bank: vec![],
            quests: vec![],
            xp_reached_at: Default::default(),
        }
    }

    #[test]
    fn a_stored_character_enters_with_what_the_sim_can_hold() {
        let joining = joining(&snapshot(), vec![]);
        assert_eq!(joining.tile, wayfarer_protocol::ws::TilePos { x: 3, z: 4 });
        assert_eq!(joining.skills.xp(Skill::Woodcutting), Xp::from_points(100));
        assert_eq!(joining.inventory.count("coins"), 25);
        assert_eq!(
            joining.inventory.count("logs"),
            0,
            "a zero quantity is left out"
        );
        assert_eq!(
            joining
                .equipment
                .get(EquipSlot::Weapon)
                .map(|s| s.item_id.as_str()),
            Some("bronze_sword")
        );
        assert_eq!(joining.equipment.iter().count(), 1);
        assert_eq!(joining.style, CombatStyle::Aggressive);
    }

    #[test]
    fn events_mirror_into_the_record() {
        let mut s = snapshot();
        mirror_inventory(
            &mut s,
            &[(
                5,
                Stack {
                    item_id: "coins".into(),
                    quantity: 9,
                },
            )],
        );
        assert_eq!(s.character.coins, 9);
        assert_eq!(s.inventory.len(), 1);
        let gain = wayfarer_sim::skills::add_xp(Xp::from_points(80), Xp::from_f64(17.5));
        mirror_xp(&mut s, Skill::Mining, &gain, 1_000);
        assert_eq!(s.character.skills[&Skill::Mining].level, 2);
        assert_eq!(s.character.skills[&Skill::Mining].xp, 97);
        assert_eq!(s.xp_reached_at[&Skill::Mining], 1_000);
        // A tenth of a point more leaves the whole points, and so the date they were reached.
        let gain = wayfarer_sim::skills::add_xp(Xp::from_f64(97.5), Xp::from_f64(0.1));
        mirror_xp(&mut s, Skill::Mining, &gain, 2_000);
        assert_eq!(s.xp_reached_at[&Skill::Mining], 1_000);
        mirror_tile(&mut s, TilePos { x: -2, z: 7 });
        assert_eq!(s.character.position, [-1.5, 0.0, 7.5]);
    }
}
