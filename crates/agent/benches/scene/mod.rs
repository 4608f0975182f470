//! The crowded scene the agent benchmarks share (`mod scene;` in `planner.rs` and `llm.rs`): a
//! woodcutter holding a bronze hatchet at the origin of a town, with 60 trees, 40 NPCs, 40 players
//! and 30 ground items in view, the bundled content's knowledge of trees, hatchets and bread, and a
//! woodcutting goal.
//!
//! A directory module, so Cargo does not take it for a benchmark of its own.

use serde_json::json;
use wayfarer_agent::goals::Goal;
use wayfarer_agent::knowledge::Knowledge;
use wayfarer_agent::model::Model;
use wayfarer_content::{Area, AreaGroup, Bounds, ManifestSet, NpcSpawn, Position, ResourceSpawn};
use wayfarer_protocol::ws::{
    Entity, EntityKind, InventorySlot, Player, ServerMessage, TilePos, WorldPos, WorldUpdate,
};

fn entity(id: String, kind: EntityKind, x: i32, z: i32) -> Entity {
    Entity {
        id,
        kind,
        x,
        z,
        name: Some("thing".into()),
        health: matches!(kind, EntityKind::Npc | EntityKind::Player).then_some(10),
        max_health: matches!(kind, EntityKind::Npc | EntityKind::Player).then_some(10),
        item_id: (kind == EntityKind::GroundItem).then(|| "logs".into()),
        quantity: (kind == EntityKind::GroundItem).then_some(1),
        resource_type: (kind == EntityKind::Resource).then(|| "tree".into()),
        depleted: (kind == EntityKind::Resource).then_some(false),
        type_id: (kind == EntityKind::Resource).then(|| "tree_normal".into()),
        worn: None,
        open: None,
        side: None,
        quest: None,
    }
}

/// The model and knowledge of the crowded view.
pub fn scene() -> (Model, Knowledge) {
    let mut knowledge = Knowledge::default();
    let mut manifests = ManifestSet::new();
    manifests.insert("gathering/woodcutting.json", json!({"trees": [{"id": "tree_normal", "name": "Tree", "type": "tree", "harvestSkill": "woodcutting", "levelRequired": 1, "toolRequired": "hatchet", "harvestYield": [{"itemId": "logs"}]}]}).to_string());
    manifests.insert("items/misc.json", json!([{"id": "bronze_hatchet", "name": "Bronze Hatchet", "type": "tool", "value": 1, "tool": {"skill": "woodcutting"}}, {"id": "bread", "name": "Bread", "type": "consumable", "value": 1, "healAmount": 5}, {"id": "logs", "name": "Logs", "type": "resource", "value": 1}]).to_string());
    knowledge.add_manifests(&manifests);
    let at = |x: f64, z: f64| Position { x, y: 0.0, z };
    knowledge.add_areas(&[Area {
        id: "town".into(),
        name: "Town".into(),
        description: String::new(),
        group: AreaGroup::StarterTowns,
        difficulty_level: 0,
        bounds: Bounds {
            min_x: -40.0,
            max_x: 40.0,
            min_z: -40.0,
            max_z: 40.0,
        },
        biome_type: None,
        safe_zone: false,
        pvp: false,
        spawn_point: None,
        duel_arena: false,
        npcs: vec![NpcSpawn {
            npc_id: "banker".into(),
            role: Some("bank".into()),
            store_id: None,
            position: at(8.0, -6.0),
        }],
        resources: vec![ResourceSpawn {
            resource_id: "tree_normal".into(),
            kind: "tree".into(),
            position: at(14.0, -20.0),
        }],
        mob_spawns: Vec::new(),
        stations: Vec::new(),
        fishing: None,
        circle: None,
        town_size: None,
        features: Default::default(),
    }]);
    let mut model = Model::default();
    let player = Player {
        id: "me".into(),
        account_id: "a".into(),
        name: "Bench".into(),
        combat_level: 3,
        health: 10,
        max_health: 10,
        coins: 0,
        position: WorldPos {
            x: 0.5,
            y: 0.0,
            z: 0.5,
        },
        skills: Default::default(),
        inventory: vec![InventorySlot {
            slot: 0,
            item_id: "bronze_hatchet".into(),
            name: "Bronze Hatchet".into(),
            quantity: 1,
        }],
        equipment: Default::default(),
        online: true,
        tile: Some(TilePos { x: 0, z: 0 }),
        stamina: Some(100),
        auto_retaliate: Some(true),
        home_teleport_cooldown: None,
    };
    model.apply(&ServerMessage::PlayerSync(Box::new(player)));
    let mut added: Vec<std::sync::Arc<Entity>> = Vec::new();
    for i in 0..60 {
        added.push(
            entity(
                format!("res-{i}"),
                EntityKind::Resource,
                (i % 30) - 15,
                i / 2 - 15,
            )
            .into(),
        );
    }
    for i in 0..40 {
        added.push(entity(format!("npc-{i}"), EntityKind::Npc, i - 20, 10).into());
        added.push(entity(format!("p-{i}"), EntityKind::Player, 10, i - 20).into());
    }
    for i in 0..30 {
        added.push(entity(format!("g-{i}"), EntityKind::GroundItem, -5, i - 15).into());
    }
    model.apply(&ServerMessage::WorldUpdate(WorldUpdate {
        tick: 1,
        added: added.into(),
        ..Default::default()
    }));
    (model, knowledge)
}

/// Woodcutting to level 5: the goal both benchmarks pursue.
pub fn woodcutting_goal() -> Goal {
    Goal::from_request(&json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 5}}))
        .expect("a valid goal")
}
