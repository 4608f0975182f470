//! The fighting fixture: a field `x 0..=29` (spawn at (0, 0); neither safe nor PvP) beside a PvP
//! arena `x 30..=59`, both `z 0..=29`, and a safe camp `x 0..=29, z 30..=39` south of the field,
//! with mobs of known stats placed exactly (spawn radius 0) and players of chosen levels, gear and
//! inventory.

use std::sync::Arc;

use serde_json::{json, Value};
use wayfarer_content::{Content, EquipSlot, ManifestSet, Skill};
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::equipment::Equipment;
use wayfarer_sim::inventory::{Inventory, Stack};
use wayfarer_sim::skills::{xp_for_level, Skills, Xp};
use wayfarer_sim::{Command, Event, Joining, World};

/// First x of the PvP arena.
pub const ARENA_X: i32 = 30;
/// First z of the safe camp.
pub const CAMP_Z: i32 = 30;

/// A stack.
pub fn stack(item_id: &str, quantity: u32) -> Stack {
    Stack {
        item_id: item_id.into(),
        quantity,
    }
}

/// The mob kinds:
/// - `dummy`: 200 hp, defence 1, never fights back, stationary (for swings and XP);
/// - `weakling`: 2 hp, fights back weakly, drops bones always, 5..=15 coins at 0.5, a helmet at 0.1,
///   respawns after 10 ticks;
/// - `brute`: aggressive within 3 tiles, level 10, leash 5, max hit 1, wanders;
/// - `reaper`: aggressive within 2 tiles, stationary, hits hard (max hit 21), 99 hp;
/// - `warlock`: casts Fire Strike (max hit 8) from 5 tiles at anyone within 6, magic 30, stationary.
fn npcs() -> Value {
    json!([
        {"id": "dummy", "name": "Dummy", "category": "mob",
         "stats": {"level": 1, "health": 200, "attack": 1, "strength": 1, "defense": 1},
         "combat": {"attackable": true, "retaliates": false, "respawnTicks": 10},
         "movement": {"type": "stationary"}},
        {"id": "weakling", "name": "Weakling", "category": "mob",
         "stats": {"level": 1, "health": 2, "attack": 1, "strength": 1, "defense": 1},
         "combat": {"attackable": true, "retaliates": true, "attackSpeedTicks": 4, "respawnTicks": 10},
         "movement": {"type": "stationary"},
         "drops": {"defaultDrop": {"enabled": true, "itemId": "bones", "quantity": 1},
                   "common": [{"itemId": "coins", "minQuantity": 5, "maxQuantity": 15, "chance": 0.5}],
                   "rare": [{"itemId": "bronze_helmet", "minQuantity": 1, "maxQuantity": 1, "chance": 0.1}]}},
        {"id": "brute", "name": "Brute", "category": "mob",
         "stats": {"level": 10, "health": 50, "attack": 1, "strength": 1, "defense": 1},
         "combat": {"attackable": true, "aggressive": true, "retaliates": true, "aggroRange": 3,
                    "leashRange": 5, "attackSpeedTicks": 4, "respawnTicks": 10},
         "movement": {"type": "wander", "speed": 3.33, "wanderRadius": 2}},
        {"id": "reaper", "name": "Reaper", "category": "mob",
         "stats": {"level": 60, "health": 99, "attack": 250, "strength": 200, "defense": 1},
         "combat": {"attackable": true, "aggressive": true, "retaliates": true, "aggroRange": 2,
                    "leashRange": 20, "attackSpeedTicks": 1, "respawnTicks": 10},
         "movement": {"type": "stationary"}},
        {"id": "warlock", "name": "Warlock", "category": "mob",
         "stats": {"level": 30, "health": 99, "attack": 1, "strength": 1, "defense": 1, "magic": 30},
         "combat": {"attackable": true, "aggressive": true, "retaliates": true, "aggroRange": 6,
                    "combatRange": 5, "leashRange": 20, "attackSpeedTicks": 5, "respawnTicks": 10,
                    "attackType": "magic", "spellId": "fire_strike"},
         "movement": {"type": "stationary"}},
        {"id": "sage", "name": "Sage", "category": "neutral", "stats": {"health": 10},
         "services": {"enabled": true, "types": ["altar"]}}
    ])
}

fn items() -> Value {
    json!([
        {"id": "bronze_sword", "name": "Bronze Sword", "value": 1, "type": "weapon", "equipSlot": "weapon",
         "weaponType": "SWORD", "attackType": "MELEE", "attackSpeed": 4, "attackRange": 1,
         "bonuses": {"attack": 5, "strength": 4}},
        {"id": "shortbow", "name": "Shortbow", "value": 1, "type": "weapon", "equipSlot": "2h",
         "weaponType": "BOW", "attackType": "RANGED", "attackSpeed": 4, "attackRange": 7,
         "bonuses": {"attackRanged": 8}},
        {"id": "bronze_arrow", "name": "Bronze Arrow", "value": 1, "type": "ammunition", "stackable": true,
         "maxStackSize": 10000, "equipSlot": "arrows", "bonuses": {"rangedStrength": 7}},
        {"id": "bronze_helmet", "name": "Bronze Helmet", "value": 1, "type": "armor", "equipSlot": "helmet",
         "bonuses": {"defenseSlash": 5}},
        {"id": "coins", "name": "Coins", "value": 1, "type": "currency", "stackable": true,
         "maxStackSize": 2147483647},
        {"id": "bones", "name": "Bones", "value": 1, "type": "resource", "stackable": false, "prayerXp": 4.5},
        {"id": "shrimp", "name": "Shrimp", "value": 1, "type": "food", "healAmount": 3},
        {"id": "holy_symbol", "name": "Holy Symbol", "value": 300, "type": "armor", "equipSlot": "amulet",
         "bonuses": {"prayer": 8}},
        {"id": "monk_robe", "name": "Monk Robe", "value": 1, "type": "armor", "equipSlot": "body",
         "bonuses": {"prayer": 6}},
        {"id": "apprentice_staff", "name": "Apprentice Staff", "value": 1, "type": "weapon",
         "equipSlot": "weapon", "weaponType": "STAFF", "attackType": "MAGIC", "attackSpeed": 5,
         "attackRange": 10, "bonuses": {"attackMagic": 6, "defenseMagic": 2}},
        {"id": "staff_of_air", "name": "Staff of Air", "value": 1500, "type": "weapon",
         "equipSlot": "weapon", "weaponType": "STAFF", "attackType": "MAGIC", "attackSpeed": 5,
         "attackRange": 10, "bonuses": {"attackMagic": 10}, "providesInfiniteRunes": ["air_rune"]},
        {"id": "wizard_hat", "name": "Wizard Hat", "value": 150, "type": "armor", "equipSlot": "helmet",
         "bonuses": {"attackMagic": 4, "magicDamage": 10, "magicDefense": 3}}
    ])
}

/// The arena's prayers: the reference game's first five (drain effects 1, 1, 1, 6, 6) with their
/// conflicts, so conflicting pairs exist in both directions.
fn prayers() -> Value {
    json!({"prayers": [
        {"id": "thick_skin", "name": "Thick Skin", "level": 1, "category": "defensive", "drainEffect": 1,
         "bonuses": {"defenseMultiplier": 1.05}, "conflicts": ["rock_skin"]},
        {"id": "burst_of_strength", "name": "Burst of Strength", "level": 4, "category": "offensive",
         "drainEffect": 1, "bonuses": {"strengthMultiplier": 1.05}, "conflicts": ["superhuman_strength"]},
        {"id": "clarity_of_thought", "name": "Clarity of Thought", "level": 7, "category": "offensive",
         "drainEffect": 1, "bonuses": {"attackMultiplier": 1.05}, "conflicts": []},
        {"id": "rock_skin", "name": "Rock Skin", "level": 10, "category": "defensive", "drainEffect": 6,
         "bonuses": {"defenseMultiplier": 1.10}, "conflicts": ["thick_skin"]},
        {"id": "superhuman_strength", "name": "Superhuman Strength", "level": 13, "category": "offensive",
         "drainEffect": 6, "bonuses": {"strengthMultiplier": 1.10}, "conflicts": ["burst_of_strength"]}
    ]})
}

/// A mob placed at a tile.
#[derive(Debug, Clone)]
pub struct Placed {
    pub kind: &'static str,
    pub at: (i32, i32),
}

/// The arena's content with `mobs` (one each, exactly at their tiles) and a sage NPC at (1, 1).
pub fn content(mobs: &[Placed]) -> Arc<Content> {
    content_with_features(mobs, json!({}))
}

/// [`content`] with map `features` (CONTRACT §13: walls, buildings, water) in the field.
pub fn content_with_features(mobs: &[Placed], features: Value) -> Arc<Content> {
    let mut set = ManifestSet::new();
    set.insert("items/arena.json", items().to_string());
    set.insert("npcs.json", npcs().to_string());
    set.insert("prayers.json", prayers().to_string());
    set.insert(
        "stations.json",
        json!({"stations": [{"type": "altar", "name": "Altar"}]}).to_string(),
    );
    let spawns_in_camp = || -> Vec<Value> {
        mobs.iter()
            .filter(|m| m.at.1 >= CAMP_Z)
            .map(|m| {
                json!({"mobId": m.kind, "position": {"x": m.at.0, "y": 0, "z": m.at.1},
                       "spawnRadius": 0, "maxCount": 1})
            })
            .collect::<Vec<Value>>()
    };
    let spawns = |pvp: bool| -> Vec<Value> {
        mobs.iter()
            .filter(|m| m.at.1 < CAMP_Z && (m.at.0 >= ARENA_X) == pvp)
            .map(|m| {
                json!({"mobId": m.kind, "position": {"x": m.at.0, "y": 0, "z": m.at.1},
                       "spawnRadius": 0, "maxCount": 1})
            })
            .collect()
    };
    set.insert(
        "world-areas.json",
        json!({
            "starterTowns": {"field": {
                "id": "field", "name": "Field",
                "bounds": {"minX": 0, "maxX": ARENA_X - 1, "minZ": 0, "maxZ": CAMP_Z - 1},
                "safeZone": false, "spawnPoint": {"x": 0, "y": 0, "z": 0},
                "npcs": [{"id": "sage", "type": "talk", "position": {"x": 1, "y": 0, "z": 1}}],
                "stations": [{"type": "altar", "position": {"x": 27, "y": 0, "z": 27}}],
                "mobSpawns": spawns(false),
                "features": features
            }},
            "level1Areas": {"arena": {
                "id": "arena", "name": "Arena",
                "bounds": {"minX": ARENA_X, "maxX": 59, "minZ": 0, "maxZ": 29},
                "safeZone": false, "pvpEnabled": true,
                "mobSpawns": spawns(true)
            }},
            "level2Areas": {"camp": {
                "id": "camp", "name": "Camp",
                "bounds": {"minX": 0, "maxX": ARENA_X - 1, "minZ": CAMP_Z, "maxZ": CAMP_Z + 9},
                "safeZone": true,
                "mobSpawns": spawns_in_camp()
            }}
        })
        .to_string(),
    );
    match Content::from_files(&set) {
        Ok((content, _)) => Arc::new(content),
        Err(report) => panic!("arena content is invalid:\n{report}"),
    }
}

/// A world of the arena with `mobs`, seeded with `seed`.
pub fn world(mobs: &[Placed], seed: u64) -> World {
    World::new(content(mobs), seed)
}

/// The altar's tile.
pub const ALTAR_TILE: (i32, i32) = (27, 27);

/// A mob of `kind` at `(x, z)`.
pub fn mob(kind: &'static str, x: i32, z: i32) -> Placed {
    Placed { kind, at: (x, z) }
}

/// A player to join: levels, worn items and held items.
#[derive(Debug, Clone)]
pub struct Fighter {
    pub joining: Joining,
}

impl Fighter {
    /// A new character at `tile`.
    pub fn new(id: &str, tile: TilePos) -> Fighter {
        Fighter {
            joining: Joining::new(id, crate::name_of(id), tile),
        }
    }

    /// A character at `tile` with every combat skill at 99: combat level 126, which no arena mob
    /// attacks on sight.
    pub fn hero(id: &str, tile: TilePos) -> Fighter {
        [
            Skill::Attack,
            Skill::Strength,
            Skill::Defense,
            Skill::Constitution,
            Skill::Prayer,
            Skill::Ranged,
            Skill::Magic,
        ]
        .into_iter()
        .fold(Fighter::new(id, tile), |f, skill| f.level(skill, 99))
    }

    /// Sets a skill's level.
    pub fn level(mut self, skill: Skill, level: u8) -> Fighter {
        let mut skills: Skills = self.joining.skills.clone();
        skills.set_xp(skill, Xp::from_points(xp_for_level(level)));
        if skill == Skill::Constitution {
            self.joining.health = i64::from(level);
        }
        self.joining.skills = skills;
        self
    }

    /// Wears `quantity` of `item` in `slot`.
    pub fn wear(mut self, slot: EquipSlot, item: &str, quantity: u32) -> Fighter {
        let mut worn: Vec<(EquipSlot, Stack)> = self
            .joining
            .equipment
            .iter()
            .map(|(s, st)| (s, st.clone()))
            .collect();
        worn.push((slot, stack(item, quantity)));
        self.joining.equipment = Equipment::from_stacks(worn);
        self
    }

    /// Holds these stacks in slots 0, 1, ….
    pub fn hold(mut self, stacks: &[(&str, u32)]) -> Fighter {
        self.joining.inventory = Inventory::from_stacks(
            stacks
                .iter()
                .enumerate()
                .map(|(slot, (item, quantity))| (slot, stack(item, *quantity))),
        )
        .expect("valid inventory");
        self
    }

    /// Sets the combat style.
    pub fn style(mut self, style: wayfarer_sim::combat::formulas::CombatStyle) -> Fighter {
        self.joining.style = style;
        self
    }

    /// The join command.
    pub fn join(self) -> Command {
        Command::Join(Box::new(self.joining))
    }
}

/// `player:action` for `id`.
pub fn act(id: &str, action: wayfarer_sim::Action) -> Command {
    Command::Action {
        id: id.into(),
        action,
        reference: Some(1),
    }
}

/// `attack` on `target`.
pub fn attack(id: &str, target: &str) -> Command {
    act(
        id,
        wayfarer_sim::Action::Attack {
            target: target.into(),
        },
    )
}

/// `pickup` of `target`.
pub fn pickup(id: &str, target: &str) -> Command {
    act(
        id,
        wayfarer_sim::Action::Pickup {
            target: target.into(),
        },
    )
}

/// The id of the live NPC of content type `kind` (the first one).
pub fn npc_of(world: &World, kind: &str) -> Option<String> {
    world
        .npcs()
        .into_iter()
        .find(|e| e.type_id.as_deref() == Some(kind))
        .map(|e| e.id)
}

/// The `combat:hit`s in `events`.
pub fn hits(events: &[Event]) -> Vec<wayfarer_protocol::ws::CombatHit> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::CombatHit { hit, .. } => Some(hit.clone()),
            _ => None,
        })
        .collect()
}

/// The rejection codes sent to `id` in `events`.
pub fn rejections(events: &[Event], id: &str) -> Vec<&'static str> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected { to, code, .. } if to == id => Some(*code),
            _ => None,
        })
        .collect()
}

/// Ticks until `done` says so (or `limit` ticks), returning all events.
pub fn tick_until(
    world: &mut World,
    limit: usize,
    mut done: impl FnMut(&World, &[Event]) -> bool,
) -> Vec<Event> {
    let mut all = Vec::new();
    for _ in 0..limit {
        let events = world.tick(vec![]);
        let stop = done(world, &events);
        all.extend(events);
        if stop {
            break;
        }
    }
    all
}
