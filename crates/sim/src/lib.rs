//! The game itself: world state advanced in ticks. Deterministic and synchronous: no I/O, no clock
//! reads (the tick number is the clock), randomness only from the world's seeded generator. Commands
//! go in, events come out; the server crate connects it to sockets and the store.
//!
//! # How the world works
//! - **Map** (`map`, `layout`): tiles inside any world area's bounds are walkable (tile = floor of the
//!   world coordinate); stations and gathering resources block their footprint (model bounds ×
//!   their scale when content has the model's bounds, else 1×1). One bit per tile over the bounding
//!   box of the areas, at most [`MAX_MAP_SIDE_TILES`] a side. Content has no building placements yet.
//! - **Movement** (`movement`, `pathfinding`): A* with 8-directional steps and no corner cutting,
//!   within a window of the 200-tile move limit plus [`PATH_WINDOW_MARGIN_TILES`] and at most
//!   [`MAX_PATH_EXPANSIONS`] nodes; an unreachable target yields a path to the closest reachable tile.
//!   Players walk [`WALK_TILES_PER_TICK`] or run [`RUN_TILES_PER_TICK`] steps a tick and never block
//!   each other. A walk whose next step became blocked (content reload) is planned again once.
//! - **NPCs** (`npcs`): fixed NPCs stand still; mobs appear within their spawner's radius and wander
//!   near their spawn tile with the classic naive step.
//! - **View** (`grid`, `view`): a grid of [`CELL_TILES`]-tile cells; each player is shown what is
//!   within [`VIEW_RADIUS_TILES`] (the nearest [`MAX_VISIBLE_PLAYERS`] other players,
//!   [`MAX_VISIBLE_NPCS`] NPCs and [`MAX_VISIBLE_GROUND_ITEMS`] ground items). **A player is part of its own view**: its first update adds itself,
//!   and its own steps arrive as `moved`, so a client learns its authoritative tile from the same
//!   stream as everyone else's (it does not count towards the cap).
//! - **Combat** (`combat`): players attack NPCs (players only where both stand in a PvP area) in
//!   melee or ranged at their weapon's speed; NPCs retaliate, aggress, leash home and respawn; loot
//!   and death piles fall as ground items; rules in `docs/mechanics.md`.
//! - **Skills** (`gathering`, `fires`, `making`, `resources`, `skilling`): gathering rolls
//!   every cycle next to a tree, rock or fishing spot with the classic skilling interpolation;
//!   nodes deplete and respawn, procedural fishing spots move; fires are lit resource entities that
//!   burn out; making (cooking, firemaking, smelting, smithing, crafting, fletching, tanning) is
//!   the recipe the player chooses, as many times as they choose, at fires and stations (resource
//!   entities too) or a tanner, told in words on the `game` channel (`narration`); formulas in
//!   `docs/mechanics.md`.
//! - **Chat** (`chat`): see [`Command::Chat`]; [`Event::Chat`], [`Event::ChatToAll`] and
//!   [`Event::LocalChat`] carry `ts: 0` because the sim reads no clock: the server stamps the
//!   send time.
//! - **Bank and shops** (`bank`, `shops`): see [`Command::Bank`] and [`Command::Shop`]; rules in the
//!   modules' documentation and `docs/protocol.md`. Each change ends with [`Event::SaveNow`].
//! - **Ids**: players use their character id; NPCs and resources get `npc-<n>` / `res-<n>` from a
//!   per-world counter, so the same seed and commands give the same ids.
//! - **Determinism**: one ChaCha8 generator seeded at [`World::new`] (procedural fishing spots use
//!   their own generator derived from the seed and the area id, so a reload places them again
//!   identically); nothing iterates a hash map where order could leak into events.
//!
//! ```
//! use std::sync::Arc;
//! use wayfarer_sim::{Command, Event, Joining, World};
//!
//! let mut world = World::new(Arc::new(wayfarer_content::load_bundled()), 42);
//! let tile = world.spawn_tile();
//! let events = world.tick(vec![Command::Join(Box::new(Joining::new("c1", "Ada", tile)))]);
//! assert!(events.iter().any(|e| matches!(e, Event::View { to, .. } if &**to == "c1")));
//! ```

#![warn(missing_docs)]

mod actions;
mod agility;
pub mod arena;
mod bank;
mod chat;
pub mod combat;
mod commands;
mod dialogue;
mod doors;
mod duel;
mod entities;
pub mod equipment;
mod events;
pub mod exchange;
mod features;
mod fires;
pub mod flows;
mod game_messages;
mod gathering;
mod grid;
mod ground;
mod home;
pub mod inventory;
mod items;
mod layout;
mod making;
mod map;
mod movement;
mod narration;
mod nearby;
mod npcs;
mod onboarding;
mod pathfinding;
mod persistence;
mod prayer;
mod quests;
mod regeneration;
mod reload;
mod resources;
mod shops;
pub mod skills;
mod stamina;
mod trade;
mod view;
mod work_sharing;
mod world;
pub mod worldgen;
mod worn;
mod zones;

pub use actions::{inventory_slot, ActionError};
pub use agility::{
    crossing_chance, AGILITY_TILES_PER_GRANT, AGILITY_XP_PER_GRANT, SUCCESS_PER_LEVEL,
};
pub use arena::{
    ArenaCommand, ArenaNotice, ArenaOutcome, ArenaSettings, Fight as ArenaFight, FightState,
    Rating as ArenaRating,
};
pub use bank::{Bank, BankFull, BANK_CAPACITY, BANK_REACH_TILES};
pub use chat::{
    clean_chat_text, invalid_chat_text, line_rate, LineRate, Refusal, GLOBAL_LINE_RATE,
    LOCAL_LINE_RATE, NOTICE_GAP_DECIS, PRIVATE_LINE_RATE, SYSTEM_SENDER_ID, SYSTEM_SENDER_NAME,
};
pub use combat::{GRAVESTONE_TICKS, KEPT_ON_DEATH};
pub use commands::{Action, BankRequest, Command, Joining, MakeCount, ShopRequest};
pub use dialogue::{CloseReason, DIALOGUE_RANGE_TILES};
pub use doors::DOOR_CLOSE_TICKS;
pub use duel::{
    DuelCommand, DuelCommit, Rule as DuelRule, Rules as DuelRules, CHALLENGE_TIMEOUT_TICKS,
    COMBAT_LOCK_TICKS, DUEL_DISTANCE_TILES, FIGHT_TIMEOUT_TICKS, SCREEN_TIMEOUT_TICKS,
};
pub use events::{EntityCounts, Event, Heard, Phase, PlayerStats};
pub use features::{MapFeatures, PlacedBuilding, PlacedPoi, PlacedProp};
pub use fires::STEP_ASIDE_ORDER;
pub use grid::CELL_TILES;
pub use ground::{GroundItemInfo, GROUND_LIFETIME_TICKS, GROUND_PRIVATE_TICKS};
pub use home::{
    ticks_for_ms_left, HomeTeleportStatus, EMOTE_GAP_TICKS, HOME_CAST_TICKS, HOME_COOLDOWN_TICKS,
};
pub use items::{EAT_DELAY_TICKS, TINDERBOX};
pub use layout::{
    content_layout, content_map, COORDINATE_LIMIT_TILES, FISHING_PLACEMENT_ATTEMPTS,
    MAX_FISHING_SPOTS_PER_AREA, MAX_NPC_TILES_PER_TICK, MAX_ROAM_RADIUS_TILES,
};
pub use making::{runes_per_essence, HAMMER, MAX_MAKE_QUANTITY, STATION_SEARCH_TILES, TANNER};
pub use map::{
    across, chebyshev, side_towards, TileMap, EAST, MAX_MAP_SIDE_TILES,
    NEAREST_WALKABLE_SEARCH_TILES, NORTH, SOUTH, WEST,
};
pub use movement::{RUN_TILES_PER_TICK, WALK_TILES_PER_TICK};
pub use npcs::{MOB_PLACEMENT_ATTEMPTS, WANDER_ODDS};
pub use pathfinding::{MAX_PATH_EXPANSIONS, PATH_WINDOW_MARGIN_TILES};
pub use persistence::{
    ChunkKey, ChunkState, DepletedResource, PersistedGroundItem, RestoreReport, CHUNK_TILES,
};
pub use prayer::{
    drain_resistance, drain_tick, ALTAR, PRAYER_DRAIN_RESISTANCE_BASE,
    PRAYER_DRAIN_RESISTANCE_PER_BONUS,
};
pub use quests::{stage_count, QuestRecord, QuestRewards};
pub use regeneration::{
    regen_interval_ticks, REGEN_COOLDOWN_TICKS, REGEN_INTERVAL_TICKS, REGEN_STEP_TICKS,
};
pub use resources::{
    ASHES, FISHING_SPOT_MAX_STAY_TICKS, FISHING_SPOT_MIN_STAY_TICKS, FISHING_SPOT_MOVE_RADIUS,
};
pub use shops::{COINS, SHOP_REACH_TILES};
pub use stamina::{
    drain_per_tick, regen_per_tick, MAX_RUN_ENERGY, RUN_DRAIN_BASE, RUN_ENERGY_PER_PERCENT,
    RUN_REGEN_BASE,
};
pub use trade::{
    TradeCommand, TradeCommit, INACTIVITY_TIMEOUT_TICKS, REQUEST_TIMEOUT_TICKS,
    TRADE_DISTANCE_TILES,
};
pub use view::{
    MAX_TICK_THREADS, MAX_VISIBLE_GROUND_ITEMS, MAX_VISIBLE_NPCS, MAX_VISIBLE_PLAYERS,
    VIEWS_PER_THREAD, VIEW_RADIUS_TILES,
};
pub use world::World;

/// The rules that keep the sim apart from the wire (docs/architecture.md, "Layering").
#[cfg(test)]
mod layering {
    use std::path::{Path, PathBuf};

    /// Every Rust source file under `dir`.
    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a readable source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// Events carry data; the server's `world_thread/messages.rs` makes every wire message. A sim
    /// that built a wire message of its own (or glob-imported the socket messages, which would
    /// hide one) would make a protocol change a sim change.
    #[test]
    fn the_sim_builds_no_server_message() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&root, &mut files);
        // The scan sees the sources (else it would pass on anything): the tick, and a wire type
        // the sim does carry as data.
        assert!(files.iter().any(|f| f.ends_with("world.rs")), "{files:?}");
        let events = std::fs::read_to_string(root.join("events.rs")).expect("events.rs");
        assert!(events.contains("WorldUpdate"));
        // Spelt in two halves so that this file does not name it either.
        let forbidden = [concat!("Server", "Message"), concat!("ws::", "*")];
        let mut found = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).expect("a readable source");
            for (n, line) in text.lines().enumerate() {
                if forbidden.iter().any(|word| line.contains(word)) {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
        assert!(
            found.is_empty(),
            "the sim names the wire's messages:\n{}",
            found.join("\n")
        );
    }
}
