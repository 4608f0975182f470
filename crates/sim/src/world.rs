//! The world state and its tick: commands in, events out, in the fixed phase order of
//! ARCHITECTURE.md. Features add their phase work in their own modules (`movement`, `npcs`, `chat`,
//! `view`) as further `impl World` blocks.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use wayfarer_content::Content;
use wayfarer_protocol::ws::{Entity, EntityKind, TilePos, WorldUpdate};

use crate::actions::Intent;
use crate::combat::formulas::CombatStyle;
use crate::commands::{Command, Joining};
use crate::entities::{Entities, Handle};
use crate::equipment::Equipment;
use crate::events::{EntityCounts, Event, Phase};
use crate::grid::{Class, SpatialGrid, CELL_TILES};
use crate::ground::GroundItem;
use crate::inventory::Inventory;
use crate::layout::{Layout, Placed, ResourcePlacement};
use crate::movement::Walk;
use crate::npcs::NpcState;
use crate::skills::Skills;
use crate::view::{Due, Seen, ViewInputs, ViewWorkers, Viewer, VIEW_RADIUS_TILES};

/// How many cells (each axis) a view spans from its own: a change farther away cannot be in view.
/// One more than the exact figure, for safety at cell edges.
const VIEW_REACH_CELLS: i32 = (VIEW_RADIUS_TILES + CELL_TILES - 1) / CELL_TILES + 1;

/// One player in the world.
#[derive(Debug)]
pub(crate) struct PlayerState {
    /// Character id (also the wire id).
    pub id: String,
    /// `id`, shared, for the recipient lists of chat.
    pub shared_id: std::sync::Arc<str>,
    pub handle: Handle,
    /// Lower-cased name, for private messages and ignore lists.
    pub name_key: String,
    /// Lower-cased names this player ignores.
    pub ignored: HashSet<String>,
    pub walk: Walk,
    /// The tile last reported in [`Event::PlayerMoved`] (or given at join).
    pub reported_tile: TilePos,
    pub viewer: Viewer,
    pub skills: Skills,
    pub inventory: Inventory,
    pub equipment: Equipment,
    pub style: CombatStyle,
    /// Whether an attack on the idle player is answered (`combat::retaliate`).
    pub auto_retaliate: bool,
    /// What the player is doing to an entity (walking next to it first).
    pub intent: Option<Intent>,
    /// What the player is making (`making`), read while the intent is [`crate::actions::IntentKind::Make`].
    /// Boxed, as `dialogue`: most players are doing neither, and every player's state held their
    /// room (issue 33: memory per idle player).
    pub making: Option<Box<crate::making::MakeJob>>,
    /// The tick before which the player may not eat again.
    pub eat_ready_at: u64,
    /// The tick before which the player may not cast the home teleport (`home`).
    pub home_ready_at: u64,
    /// The home teleport being cast (`home`).
    /// Boxed: a cast is rare and every online player holds the field (`a_player_state_stays_small`).
    pub home_cast: Option<Box<crate::home::HomeCast>>,
    /// The tick before which the player's next emote is refused (`home`).
    pub emote_ready_at: u64,
    /// The tick before which the player may not attack again (the weapon's speed).
    pub attack_ready_at: u64,
    /// The tick of the player's last swing, given or taken (a miss counts); 0: none since entering
    /// (ticks are stamped from 1). A duel waits [`crate::duel::COMBAT_LOCK_TICKS`] after it.
    pub fought_at: u64,
    /// The spells chosen: autocast, and a one-off cast (`combat::spells`).
    pub magic: crate::combat::MagicChoice,
    /// What changed this tick and must be reported at its end.
    pub dirty: Dirty,
    /// The bank (`bank`).
    pub bank: crate::bank::Bank,
    /// The store the player has open (`shops`).
    pub shop: Option<crate::shops::OpenShop>,
    /// Prayer points and active prayers (`prayer`).
    pub prayer: crate::prayer::PrayerState,
    /// The dialogue open with an NPC (`dialogue`).
    pub dialogue: Option<Box<crate::dialogue::OpenDialogue>>,
    /// Quests started or done (`quests`).
    pub quests: crate::quests::QuestLog,
    /// Run energy (`stamina`).
    pub run_energy: crate::stamina::RunEnergy,
    /// How fast they may speak (`chat::limits`).
    pub chat_limits: crate::chat::limits::ChatLimits,
    /// The area they stand in (`zones`), kept as they change tiles.
    pub zone: crate::zones::ZoneId,
    /// Health regeneration and its pause after a hit (`regeneration`).
    pub regen: crate::regeneration::Regen,
    /// Distance walked towards the next Agility XP, and the lap in progress (`agility`).
    pub agility: crate::agility::AgilityProgress,
}

/// Which parts of a player changed this tick (reported once, at the end of the actions phase).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Dirty {
    pub inventory: bool,
    pub equipment: bool,
    pub stats: bool,
    /// The bank changed or was asked for (`bank:update`).
    pub bank: bool,
    /// Items moved by a bank operation, purchase or sale: save the record at once.
    pub save_now: bool,
    /// Prayer points or active prayers changed (`prayer:update`).
    pub prayer: bool,
    /// The quest list is due (`quest:list`: on entry and when asked).
    pub quest_list: bool,
    /// The player's zone changed (`zone:enter`).
    pub zone: bool,
}

/// A gathering resource in the world.
#[derive(Debug)]
pub(crate) struct ResourceState {
    pub handle: Handle,
    pub placement: ResourcePlacement,
    /// Depletion, fishing-spot moves and fire expiry (`resources`).
    pub life: crate::resources::ResourceLife,
}

/// All game state of one world.
#[derive(Debug)]
pub struct World {
    pub(crate) content: Arc<Content>,
    pub(crate) seed: u64,
    /// Ticks completed.
    pub(crate) completed: u64,
    pub(crate) rng: ChaCha8Rng,
    pub(crate) layout: Layout,
    pub(crate) entities: Entities,
    pub(crate) grid: SpatialGrid,
    /// Players in join order (a leave moves the last one into the gap).
    pub(crate) players: Vec<PlayerState>,
    /// Character id → index into `players`. foldhash, not SipHash: every command, chat target and
    /// query by id looks a player up here (thousands a tick in a crowd), the ids are server-made
    /// UUIDs with nothing to defend against, and nothing iterates the map, so its order (random
    /// per process with either hasher) decides nothing.
    pub(crate) player_index: HashMap<String, usize, foldhash::fast::RandomState>,
    /// Entity slot → index in `players` (`u32::MAX`: none), for [`player_at`].
    pub(crate) player_by_slot: Vec<u32>,
    /// Lines to everyone of this tick, and who may not hear them (`chat::to_all`).
    pub(crate) to_all: crate::chat::to_all::ToAll,
    /// Local lines of this tick, heard once every command is in (`chat`).
    pub(crate) local_lines: Vec<crate::chat::LocalLine>,
    /// Entity slot → where that player's local lines of this tick start in `chat::hearing`'s list
    /// by speaker, plus one (0: silent; lent to that tick's `hearing`, all 0 between ticks).
    pub(crate) speaking_by_slot: Vec<u32>,
    /// This tick's local lines between the input phase and the views (`chat::hearing`).
    pub(crate) hearing: Option<crate::chat::hearing::Hearing>,
    /// Whether chat lines count against the senders' limits (`chat::limits`).
    pub(crate) chat_limits_on: bool,
    /// The chat limits of players who left while they still counted.
    pub(crate) left_chat_limits: crate::chat::limits::LeftLimits,
    /// Lower-cased name → character id.
    pub(crate) names: HashMap<String, String>,
    pub(crate) npcs: Vec<NpcState>,
    pub(crate) resources: Vec<ResourceState>,
    pub(crate) pathfinders: crate::pathfinding::Pathfinders,
    /// The movement phase's walks to plan, kept for their room (`movement::plan_walks`).
    pub(crate) walk_plans: Vec<crate::pathfinding::Plan>,
    pub(crate) view_workers: ViewWorkers,
    /// Players whose view starts over this tick (joined, or rejoined in place).
    pub(crate) fresh_viewers: Vec<Handle>,
    /// Indices of the players whose view may have changed this tick (reused buffer).
    pub(crate) views_due: Vec<usize>,
    /// Recompute every player's view every tick (tests' oracle; [`World::recompute_every_view`]).
    pub(crate) every_view: bool,
    /// Indices of the players whose shown run energy changed this tick, reported in their
    /// `world:update` (reused buffer).
    pub(crate) run_energy_changed: Vec<usize>,
    /// Source of NPC and resource entity ids.
    pub(crate) next_serial: u64,
    /// Items lying on the ground, in the order they appeared.
    pub(crate) ground: Vec<GroundItem>,
    /// Item movements of this tick, reported at the end of the actions phase.
    pub(crate) flows: Vec<crate::flows::ItemFlow>,
    /// Footprints of entities larger than one tile (resources), for reach checks.
    pub(crate) extents: HashMap<Handle, (TilePos, TilePos)>,
    /// Open trades and trade requests (`trade`).
    pub(crate) trades: crate::exchange::Book<crate::trade::Trade>,
    /// Open duels and challenges (`duel`).
    pub(crate) duels: crate::exchange::Book<crate::duel::Duel>,
    /// The arena's ladder (`arena`).
    pub(crate) arena: crate::arena::Arena,
    /// Live stock of limited shop lines (`shops`).
    pub(crate) shop_stocks: crate::shops::ShopStocks,
    /// Players who entered this tick: their prayer and quest list follow their first view.
    pub(crate) entering: Vec<String>,
    /// What of the world the database holds, by chunk (`persistence`).
    pub(crate) ledger: crate::persistence::Ledger,
    /// Which area covers a tile (`zones`).
    pub(crate) zones: crate::zones::ZoneIndex,
    /// Agility obstacles by entity handle (`agility`).
    pub(crate) obstacles: crate::agility::Obstacles,
    /// The doors a walker went through in its step of the movement phase (`doors`).
    pub(crate) doors_crossed: Vec<(TilePos, u8)>,
    /// The quest markers each player was last shown on each NPC (`onboarding`).
    pub(crate) shown_markers: crate::onboarding::ShownMarkers,
    /// The players casting the home teleport (`home`), so a tick looks at them alone.
    pub(crate) home_casters: Vec<Arc<str>>,
}

impl World {
    /// A world laid out from `content`, with every fixed NPC, mob and resource spawned. All randomness
    /// (mob placement, wandering, procedural spawns) comes from `seed`.
    pub fn new(content: Arc<Content>, seed: u64) -> World {
        World::with_seeds(content, seed, seed)
    }

    /// A world whose map (procedural spots, kept across reloads) comes from `layout_seed` and whose
    /// dice (mob placement, wandering, combat, drops) from `dice_seed`. A server keeps the layout
    /// seed across restarts so the map stays where players left it, and rolls fresh dice.
    pub fn with_seeds(content: Arc<Content>, layout_seed: u64, dice_seed: u64) -> World {
        let layout = Layout::build(&content, layout_seed);
        let grid = SpatialGrid::covering(&layout.map);
        let zones = crate::zones::ZoneIndex::build(content.areas.values());
        let mut world = World {
            content,
            seed: layout_seed,
            completed: 0,
            rng: ChaCha8Rng::seed_from_u64(dice_seed),
            layout,
            entities: Entities::default(),
            grid,
            players: Vec::new(),
            player_index: HashMap::default(),
            player_by_slot: Vec::new(),
            to_all: Default::default(),
            local_lines: Vec::new(),
            speaking_by_slot: Vec::new(),
            hearing: None,
            chat_limits_on: true,
            left_chat_limits: Default::default(),
            names: HashMap::new(),
            npcs: Vec::new(),
            resources: Vec::new(),
            pathfinders: Default::default(),
            walk_plans: Vec::new(),
            view_workers: ViewWorkers::for_this_machine(),
            fresh_viewers: Vec::new(),
            views_due: Vec::new(),
            every_view: false,
            run_energy_changed: Vec::new(),
            next_serial: 0,
            ground: Vec::new(),
            flows: Vec::new(),
            extents: HashMap::new(),
            trades: crate::exchange::Book::default(),
            duels: crate::exchange::Book::default(),
            arena: Default::default(),
            shop_stocks: Default::default(),
            entering: Vec::new(),
            ledger: Default::default(),
            zones,
            obstacles: Default::default(),
            doors_crossed: Vec::new(),
            shown_markers: Default::default(),
            home_casters: Vec::new(),
        };
        let layout = world.layout.clone();
        for placement in &layout.npcs {
            world.spawn_static_npc(placement);
        }
        for placement in &layout.mobs {
            world.spawn_mobs(placement);
        }
        for placement in &layout.resources {
            world.spawn_resource(placement);
        }
        world.spawn_obstacles();
        world
    }

    /// How many threads a tick's views and walk planning may use (`TICK_THREADS`; 1: all on the
    /// calling thread), at least 1 and at most [`MAX_TICK_THREADS`](crate::MAX_TICK_THREADS).
    /// The tick is the same whatever the count: each viewer's update is computed from the world
    /// as the tick left it and written only into that viewer, the updates are put back in viewer
    /// order, and a walk's path depends only on the map and its two tiles
    /// (`views_and_walks_split_over_threads_give_what_one_thread_gives`). The default is the
    /// machine's cores, at most four.
    pub fn set_tick_threads(&mut self, threads: usize) {
        self.view_workers = ViewWorkers::with_threads(threads);
    }

    /// Recompute every player's view every tick instead of only those near a change: slower, and
    /// by design the same updates. The oracle the view tests compare the skipping with.
    #[doc(hidden)]
    pub fn recompute_every_view(&mut self, on: bool) {
        self.every_view = on;
    }

    /// The most threads a tick's views may use ([`World::set_tick_threads`]).
    pub fn tick_threads(&self) -> usize {
        self.view_workers.threads()
    }

    /// The number of ticks completed so far.
    pub fn tick_number(&self) -> u64 {
        self.completed
    }

    /// The tick being computed (or, between ticks, the next one): what changes are stamped with.
    pub(crate) fn now(&self) -> u64 {
        self.completed + 1
    }

    /// The content the world was laid out from.
    pub fn content(&self) -> &Arc<Content> {
        &self.content
    }

    /// Applies the commands (in order) and advances one tick; returns the events of this tick.
    pub fn tick(&mut self, commands: Vec<Command>) -> Vec<Event> {
        self.tick_observed(commands, &mut |_| {})
    }

    /// Like [`World::tick`], calling `phase` at the start of each phase (in [`Phase::ALL`] order) so the
    /// caller, which owns the clock, can time them.
    pub fn tick_observed(
        &mut self,
        commands: Vec<Command>,
        phase: &mut dyn FnMut(Phase),
    ) -> Vec<Event> {
        let mut events = Vec::new();
        phase(Phase::Input);
        for command in commands {
            self.apply(command, &mut events);
        }
        self.open_local_chat(&mut events);
        self.advance_trades(&mut events);
        self.advance_duels(&mut events);
        self.advance_arena(&mut events);
        phase(Phase::Npcs);
        self.advance_npcs();
        self.advance_npc_fights(&mut events);
        phase(Phase::Movement);
        self.advance_players(&mut events);
        self.report_player_moves(&mut events);
        phase(Phase::Actions);
        self.advance_intents(&mut events);
        self.advance_ground_items(&mut events);
        self.advance_resources(&mut events);
        self.advance_shops(&mut events);
        self.advance_prayers(&mut events);
        self.advance_dialogues(&mut events);
        self.advance_travel(&mut events);
        self.advance_home_teleports(&mut events);
        self.advance_regeneration();
        self.report_player_changes(&mut events);
        phase(Phase::View);
        self.push_views(&mut events);
        self.report_entries(&mut events);
        self.mark_quest_givers(&mut events);
        self.entities.release_retired();
        self.to_all.settle(&mut events);
        self.completed += 1;
        events
    }

    /// Applies one command.
    fn apply(&mut self, command: Command, events: &mut Vec<Event>) {
        if self.refused_in_trade(&command, events) || self.refused_in_duel(&command, events) {
            return;
        }
        match command {
            Command::Join(joining) => self.join(*joining),
            Command::Leave { id } => {
                self.trade_player_left(&id, events);
                self.arena_player_left(&id, events);
                self.duel_player_left(&id, events);
                self.leave(&id, events)
            }
            Command::Move {
                id,
                x,
                z,
                run,
                reference,
            } => self.start_walk(&id, TilePos { x, z }, run, reference, events),
            Command::Stop { id } => self.stop_everything(&id),
            Command::Action {
                id,
                action,
                reference,
            } => self.act(&id, action, reference, events),
            Command::UseItem {
                id,
                slot,
                target_slot,
                target_id,
                reference,
            } => self.use_item(&id, slot, target_slot, target_id, reference, events),
            Command::Give {
                id,
                item_id,
                quantity,
            } => self.give(&id, &item_id, quantity, events),
            Command::SetIgnored { id, ignored } => {
                if let Some(&index) = self.player_index.get(&id) {
                    self.players[index].ignored =
                        ignored.into_iter().map(|n| n.to_lowercase()).collect();
                    self.to_all
                        .set_ignoring(&id, !self.players[index].ignored.is_empty());
                }
            }
            Command::Teleport { id, tile } => self.teleport(&id, tile),
            Command::Bank {
                id,
                request,
                reference,
            } => self.bank(&id, request, reference, events),
            Command::Shop {
                id,
                request,
                reference,
            } => self.shop(&id, request, reference, events),
            Command::Chat {
                id,
                channel,
                text,
                to,
                reference,
            } => self.chat(&id, channel, &text, to.as_deref(), reference, events),
            Command::SystemMessage { to, text } => self.system_message(to.as_deref(), text, events),
            Command::RelayedGlobalChat { message } => self.relayed_global_chat(message, events),
            Command::RestoreDeathPile {
                death_id,
                owner,
                tile,
                items,
                private_ticks,
            } => self.restore_death_pile(&death_id, &owner, tile, items, private_ticks, events),
            Command::Trade {
                id,
                command,
                reference,
            } => self.trade_command(&id, command, reference, events),
            Command::TradeCommitted { trade_id, ok } => self.trade_committed(&trade_id, ok, events),
            Command::Duel {
                id,
                command,
                reference,
            } => self.duel_command(&id, command, reference, events),
            Command::DuelCommitted { duel_id, ok } => self.duel_committed(&duel_id, ok, events),
            Command::Arena {
                id,
                command,
                reference,
            } => self.arena_command(&id, command, reference, events),
            Command::Prayer {
                id,
                prayer_id,
                active,
                reference,
            } => self.toggle_prayer(&id, &prayer_id, active, reference, events),
            Command::DialogueRespond {
                id,
                npc_id,
                index,
                reference,
            } => self.respond(&id, &npc_id, index, reference, events),
            Command::DialogueClose {
                id,
                npc_id,
                reference,
            } => self.dialogue_closed_by_client(&id, &npc_id, reference, events),
            Command::RubLamp {
                id,
                slot,
                skill,
                reference,
            } => self.use_lamp(&id, slot, skill, reference, events),
            Command::QuestList { id } => {
                if let Some(&index) = self.player_index.get(&id) {
                    self.players[index].dirty.quest_list = true;
                }
            }
            Command::QuestAbandon {
                id,
                quest_id,
                reference,
            } => self.abandon_quest(&id, &quest_id, reference, events),
            Command::Emote {
                id,
                emote,
                reference,
            } => self.emote(&id, &emote, reference, events),
        }
    }

    /// The walkable tile nearest to `tile`, falling back to the spawn tile.
    pub(crate) fn walkable_near(&self, tile: TilePos) -> TilePos {
        self.layout
            .map
            .nearest_walkable(tile)
            .unwrap_or(self.layout.spawn)
    }

    fn join(&mut self, joining: Joining) {
        let Joining {
            id,
            name,
            tile,
            health,
            ignored,
            skills,
            inventory,
            equipment,
            style,
            auto_retaliate,
            bank,
            prayer_points,
            quests,
            home_teleport_cooldown_ticks,
        } = joining;
        // It enters as the database has it: anything an earlier session owed and never wrote
        // (taken out unsaved) is not owed.
        self.ledger.forget_owed(&id);
        let quests = crate::quests::log_from(quests, &self.content);
        let bank = crate::bank::Bank::from_stacks(bank);
        let now = self.now();
        let max_health = i64::from(skills.level(wayfarer_content::Skill::Constitution));
        // A character saved dead (or with nonsense) enters at full health.
        let health = if (1..=max_health).contains(&health) {
            health
        } else {
            max_health
        };
        let max_prayer = u32::from(skills.level(wayfarer_content::Skill::Prayer));
        let prayer = crate::prayer::PrayerState {
            points: prayer_points.map_or(max_prayer, |p| p.min(max_prayer)),
            ..Default::default()
        };
        let name_key = name.to_lowercase();
        let ignored: HashSet<String> = ignored.into_iter().map(|n| n.to_lowercase()).collect();
        let placed = self.walkable_near(self.outside_arena(tile));
        self.to_all.set_ignoring(&id, !ignored.is_empty());
        if let Some(&index) = self.player_index.get(&id) {
            // The same character again (a new connection): update in place, show everything anew.
            let player = &mut self.players[index];
            let handle = player.handle;
            if player.name_key != name_key {
                self.names.remove(&player.name_key);
                player.name_key = name_key.clone();
            }
            self.names.insert(name_key, id.clone());
            player.ignored = ignored;
            player.walk.clear();
            player.intent = None;
            player.reported_tile = tile;
            player.viewer.reset();
            player.skills = skills;
            player.inventory = inventory;
            player.equipment = equipment;
            player.style = style;
            player.auto_retaliate = auto_retaliate;
            player.home_ready_at = now + home_teleport_cooldown_ticks;
            player.home_cast = None;
            player.bank = bank;
            player.shop = None;
            player.prayer = prayer;
            player.dialogue = None;
            player.quests = quests;
            player.dirty = Dirty {
                inventory: true,
                equipment: true,
                stats: true,
                ..Dirty::default()
            };
            self.entering.push(id.clone());
            self.fresh_viewers.push(handle);
            if let Some(body) = self.entities.get_mut(handle) {
                let current = body.tile();
                let renamed = body.wire.name.as_deref() != Some(name.as_str());
                let health_changed = body.wire.health != Some(health);
                let max_changed = body.wire.max_health != Some(max_health);
                let wire = body.wire_mut();
                wire.name = Some(name.clone());
                wire.health = Some(health);
                wire.max_health = Some(max_health);
                if renamed || health_changed || max_changed {
                    self.entities.record_change(handle, now, |c| {
                        if renamed {
                            c.name = Some(name);
                        }
                        if health_changed {
                            c.health = Some(health);
                        }
                        if max_changed {
                            c.max_health = Some(max_health);
                        }
                    });
                    self.grid.touch(current, now);
                }
            }
            self.place_player(index, placed);
            // The new connection hears its zone after its first view (`report_entries`).
            self.players[index].dirty.zone = false;
            return;
        }
        let handle = self.entities.insert(Entity {
            name: Some(name),
            health: Some(health),
            max_health: Some(max_health),
            worn: crate::worn::worn_of(&equipment),
            ..Entity::at(id.clone(), EntityKind::Player, placed.x, placed.z)
        });
        self.grid.insert(handle, placed, Class::Player, now);
        self.fresh_viewers.push(handle);
        self.names.insert(name_key.clone(), id.clone());
        self.entering.push(id.clone());
        self.player_index.insert(id.clone(), self.players.len());
        set_player_slot(&mut self.player_by_slot, handle, self.players.len());
        let chat_limits = self.chat_limits_on_entry(&id);
        reserve_one_more(&mut self.players);
        let shared_id: Arc<str> = id.as_str().into();
        self.to_all.entered(&shared_id);
        self.players.push(PlayerState {
            shared_id,
            id,
            handle,
            name_key,
            ignored,
            walk: Walk::default(),
            reported_tile: tile,
            viewer: Viewer::new(),
            skills,
            inventory,
            equipment,
            style,
            auto_retaliate,
            intent: None,
            making: None,
            magic: Default::default(),
            eat_ready_at: 0,
            home_ready_at: now + home_teleport_cooldown_ticks,
            home_cast: None,
            emote_ready_at: 0,
            attack_ready_at: 0,
            fought_at: 0,
            // The record learns the derived figures (maximum health, combat level) at once.
            dirty: Dirty {
                stats: true,
                ..Dirty::default()
            },
            bank,
            shop: None,
            prayer,
            dialogue: None,
            quests,
            run_energy: crate::stamina::RunEnergy::default(),
            chat_limits,
            zone: None,
            regen: Default::default(),
            agility: Default::default(),
        });
        let index = self.players.len() - 1;
        self.update_zone(index, placed);
        // Told after the first view (`report_entries`): entry is `player:sync`, then `world:update`.
        self.players[index].dirty.zone = false;
    }

    /// Takes player `id` out of the world. What the tick's earlier commands changed for them is
    /// reported first, then [`Event::Left`] with their tile: the server saves the record it holds
    /// once it has seen that, so the final save includes every command accepted before the leave.
    fn leave(&mut self, id: &str, events: &mut Vec<Event>) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        self.report_changes_of(index, events);
        let tile = self
            .player_tile(id)
            .unwrap_or(self.players[index].reported_tile);
        self.player_index.remove(id);
        let player = self.players.swap_remove(index);
        self.to_all.left(&player.shared_id);
        events.push(Event::Left {
            id: player.id.clone(),
            tile,
        });
        set_player_slot(&mut self.player_by_slot, player.handle, u32::MAX as usize);
        if let Some(moved) = self.players.get(index) {
            self.player_index.insert(moved.id.clone(), index);
            set_player_slot(&mut self.player_by_slot, moved.handle, index);
        }
        if self.names.get(&player.name_key).map(String::as_str) == Some(id) {
            self.names.remove(&player.name_key);
        }
        if let Some(tile) = self.entities.retire(player.handle) {
            let now = self.now();
            self.grid.remove(player.handle, tile, Class::Player, now);
        }
        self.forget_markers(player.handle);
        self.keep_chat_limits(&player.id, player.chat_limits);
    }

    /// Puts player `index` on `tile` (a walkable tile), updating the grid.
    pub(crate) fn place_player(&mut self, index: usize, tile: TilePos) {
        let now = self.now();
        let handle = self.players[index].handle;
        if let Some(from) = self.entities.set_tile(handle, tile, now) {
            self.grid.relocate(handle, from, tile, Class::Player, now);
        }
        self.update_zone(index, tile);
    }

    fn teleport(&mut self, id: &str, tile: TilePos) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        let placed = self.walkable_near(tile);
        self.players[index].walk.clear();
        self.players[index].intent = None;
        self.place_player(index, placed);
    }

    /// What a player who entered this tick learns after their first view: the area they stand in
    /// (when they stand in one), prayer points and the quest list.
    fn report_entries(&mut self, events: &mut Vec<Event>) {
        for id in std::mem::take(&mut self.entering) {
            if let Some(&index) = self.player_index.get(&id) {
                let player = &mut self.players[index];
                player.dirty.zone = player.zone.is_some();
                player.dirty.prayer = true;
                player.dirty.quest_list = true;
                self.report_changes_of(index, events);
                if self.is_newcomer(index) {
                    let welcome = self.welcome_line();
                    self.narrate(index, welcome, events);
                }
            }
        }
    }

    /// Emits [`Event::PlayerMoved`] for every player whose tile differs from the last one reported.
    fn report_player_moves(&mut self, events: &mut Vec<Event>) {
        for player in &mut self.players {
            // The packed mark, not the body: 2,000 players a tick, most of them not moving.
            if let Some(mark) = self.entities.mark(player.handle) {
                let tile = mark.tile;
                if tile != player.reported_tile {
                    player.reported_tile = tile;
                    events.push(Event::PlayerMoved {
                        id: Arc::clone(&player.shared_id),
                        tile,
                    });
                }
            }
        }
    }

    /// Computes every player's `world:update`.
    fn push_views(&mut self, events: &mut Vec<Event>) {
        let now = self.now();
        // Only players near a cell that changed (or whose view starts over) can have anything new to
        // see; everyone else is not even looked at, so quiet players elsewhere cost nothing.
        let mut due = std::mem::take(&mut self.views_due);
        due.clear();
        let (by_slot, players) = (&self.player_by_slot, &self.players);
        let mut add = |handle: Handle| {
            if let Some(i) = player_at(by_slot, players, handle) {
                due.push(i);
            }
        };
        self.grid
            .for_each_player_near_dirty(now, VIEW_REACH_CELLS, &mut add);
        for handle in self.fresh_viewers.drain(..) {
            add(handle);
        }
        if self.every_view {
            due.extend(0..self.players.len());
        }
        // Index order keeps the events in the same order as a full scan would: determinism.
        due.sort_unstable();
        due.dedup();
        if due.is_empty() {
            for &j in &self.run_energy_changed {
                self.push_run_energy(j, WorldUpdate::default(), now, events);
            }
            self.close_local_chat(&due, Vec::new(), events);
            self.views_due = due;
            return;
        }
        let moves = self.entities.tick_moves(now);
        let mut viewers = Vec::with_capacity(due.len());
        let mut next = due.iter().peekable();
        for (i, player) in self.players.iter_mut().enumerate() {
            let Some(&&wanted) = next.peek() else {
                // Quiet players after the last due one are not even walked past.
                break;
            };
            if wanted == i {
                next.next();
                viewers.push(Due {
                    me: player.handle,
                    viewer: &mut player.viewer,
                    ignored: &player.ignored,
                });
            }
        }
        let inputs = ViewInputs {
            grid: &self.grid,
            entities: &self.entities,
            moves: &moves,
            now,
            every_view: self.every_view,
            hearing: self.hearing.as_ref(),
        };
        let seen = self.view_workers.refresh_all(&mut viewers, inputs);
        drop(viewers);
        let mut heard_due = Vec::with_capacity(if self.hearing.is_some() { due.len() } else { 0 });
        // Both lists are in index order: a player's run energy rides in its update, or in one
        // of its own when nothing in view changed.
        let mut energy = self.run_energy_changed.iter().copied().peekable();
        for (&i, Seen { update, heard }) in due.iter().zip(seen) {
            if self.hearing.is_some() {
                heard_due.push(heard);
            }
            while let Some(j) = energy.next_if(|&j| j < i) {
                self.push_run_energy(j, WorldUpdate::default(), now, events);
            }
            let energy_too = energy.next_if_eq(&i).is_some();
            match update {
                Some(update) if !energy_too => events.push(Event::View {
                    to: Arc::clone(&self.players[i].shared_id),
                    update,
                }),
                Some(update) => self.push_run_energy(i, update, now, events),
                None if energy_too => self.push_run_energy(i, WorldUpdate::default(), now, events),
                None => {}
            }
        }
        for j in energy {
            self.push_run_energy(j, WorldUpdate::default(), now, events);
        }
        self.close_local_chat(&due, heard_due, events);
        self.views_due = due;
    }

    /// Sends player `index` its `update` with its run energy as it now shows.
    fn push_run_energy(
        &self,
        index: usize,
        mut update: WorldUpdate,
        now: u64,
        events: &mut Vec<Event>,
    ) {
        let player = &self.players[index];
        update.tick = now;
        update.stamina = Some(player.run_energy.percent());
        events.push(Event::View {
            to: Arc::clone(&player.shared_id),
            update,
        });
    }

    /// A fresh entity id with a prefix naming its kind (`npc-12`, `res-3`); character ids are UUIDs,
    /// so the two never collide.
    pub(crate) fn next_id(&mut self, prefix: &str) -> String {
        self.next_serial += 1;
        format!("{prefix}-{}", self.next_serial)
    }

    pub(crate) fn spawn_resource(&mut self, placement: &ResourcePlacement) {
        let now = self.now();
        let id = self.next_id("res");
        let handle = self.entities.insert(Entity {
            id,
            kind: EntityKind::Resource,
            x: placement.tile.x,
            z: placement.tile.z,
            name: Some(placement.name.clone()),
            health: None,
            max_health: None,
            item_id: None,
            quantity: None,
            resource_type: Some(placement.resource_type.clone()),
            depleted: (placement.what != Placed::Door).then_some(false),
            type_id: Some(placement.resource_id.clone()),
            worn: None,
            open: (placement.what == Placed::Door).then_some(false),
            side: (placement.what == Placed::Door).then_some(placement.side),
            quest: None,
        });
        self.grid.insert(handle, placement.tile, Class::Static, now);
        if placement.extent.0 != placement.extent.1 {
            self.extents.insert(handle, placement.extent);
        }
        self.resources.push(ResourceState {
            handle,
            placement: placement.clone(),
            life: crate::resources::ResourceLife::default(),
        });
    }

    /// Where new characters appear: the content's starter-town spawn point (or the nearest walkable
    /// tile to it).
    pub fn spawn_tile(&self) -> TilePos {
        self.layout.spawn
    }

    /// A player's current tile, when the player is in the world.
    pub fn player_tile(&self, player: &str) -> Option<TilePos> {
        let index = *self.player_index.get(player)?;
        self.entities
            .get(self.players[index].handle)
            .map(|b| b.tile())
    }

    /// Player `player`'s tile (when its body is in the world) and run energy in percent, when
    /// online: what a `player:sync` reads of the sim, in one lookup of the id (thousands of
    /// probes a second at 10,000 players each hashed it twice).
    pub fn player_tile_and_run_energy(&self, player: &str) -> Option<(Option<TilePos>, u32)> {
        let &index = self.player_index.get(player)?;
        let state = &self.players[index];
        let tile = self.entities.get(state.handle).map(|b| b.tile());
        Some((tile, state.run_energy.percent()))
    }

    /// Player `player`'s run energy in percent, when online.
    pub fn player_run_energy(&self, player: &str) -> Option<u32> {
        let &index = self.player_index.get(player)?;
        Some(self.players[index].run_energy.percent())
    }

    /// Sets player `player`'s run energy in units (0–10,000; tests and admin tools).
    pub fn set_run_energy_units(&mut self, player: &str, units: u32) {
        if let Some(&index) = self.player_index.get(player) {
            self.players[index].run_energy.set_units(units);
        }
    }

    /// True when the player is in the world.
    pub fn is_online(&self, player: &str) -> bool {
        self.player_index.contains_key(player)
    }

    /// How many players are in the world.
    pub fn players_online(&self) -> usize {
        self.players.len()
    }

    /// True when the tile can be stood on.
    pub fn is_walkable(&self, tile: TilePos) -> bool {
        self.layout.map.is_walkable(tile)
    }

    /// Whether a tile is water (never walked on; fishing spots stand there).
    pub fn is_water(&self, tile: TilePos) -> bool {
        self.layout.map.is_water(tile)
    }

    /// The remaining steps of a player's current walk, next step first (empty when standing).
    pub fn player_path(&self, player: &str) -> Vec<TilePos> {
        self.player_index
            .get(player)
            .map(|&i| self.players[i].walk.remaining())
            .unwrap_or_default()
    }

    /// The entity a client would be sent for `id` (any kind), as it stands now.
    pub fn entity(&self, id: &str) -> Option<Entity> {
        let handle = self.entities.find(id)?;
        self.entities.get(handle).map(|b| Entity::clone(&b.wire))
    }

    /// Every NPC and mob as a client would see it, in spawn order.
    pub fn npcs(&self) -> Vec<Entity> {
        self.npcs
            .iter()
            .filter_map(|n| self.entities.get(n.handle).map(|b| Entity::clone(&b.wire)))
            .collect()
    }

    /// Every resource entity (gathering nodes, stations, lit fires) as a client would see it, in
    /// spawn order.
    pub fn resources(&self) -> Vec<Entity> {
        self.resources
            .iter()
            .filter_map(|r| self.entities.get(r.handle).map(|b| Entity::clone(&b.wire)))
            .collect()
    }

    /// How many entities of each kind are in the world.
    pub fn counts(&self) -> EntityCounts {
        EntityCounts {
            players: self.players.len(),
            npcs: self.npcs.len(),
            resources: self.resources.len(),
            ground_items: self.ground.len(),
        }
    }
}

/// The index in `players` of the player whose entity is `handle`, without hashing its id: the loops
/// that visit every player near something (views, local chat, aggression) call this thousands of
/// times a tick.
/// Makes room for one more element, growing by an eighth (at least 64) rather than doubling: a
/// player's state is about 1 KB, and a doubled table of 10,000 players would keep room for 6,000
/// more (6 MB, most of a KiB a player) resident for nothing. Growth stays amortised: at most eight
/// moves per element, and a large table is remapped, not copied, by the allocator.
pub(crate) fn reserve_one_more<T>(list: &mut Vec<T>) {
    if list.len() == list.capacity() {
        list.reserve_exact((list.len() / 8).max(64));
    }
}

pub(crate) fn player_at(by_slot: &[u32], players: &[PlayerState], handle: Handle) -> Option<usize> {
    let index = *by_slot.get(crate::entities::slot_index(handle))? as usize;
    players
        .get(index)
        .filter(|p| p.handle == handle)
        .map(|_| index)
}

fn set_player_slot(by_slot: &mut Vec<u32>, handle: Handle, index: usize) {
    let slot = crate::entities::slot_index(handle);
    if by_slot.len() <= slot {
        by_slot.resize(slot + 1, u32::MAX);
    }
    by_slot[slot] = u32::try_from(index).unwrap_or(u32::MAX);
}

impl World {
    /// [`player_at`] on this world.
    pub(crate) fn player_of(&self, handle: Handle) -> Option<usize> {
        player_at(&self.player_by_slot, &self.players, handle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::Joining;

    #[test]
    fn a_player_state_stays_small() {
        // Issue 33: every online player holds one; 1,752 bytes before the inventory was kept
        // sparse and the dialogue and making job boxed. 736 until the home teleport's cooldown and
        // the emote's pace (two ticks, 16 bytes) and its boxed cast (8) came (issue 54).
        let size = std::mem::size_of::<PlayerState>();
        eprintln!("PlayerState: {size} bytes");
        assert!(size <= 760, "{size} bytes");
    }

    #[test]
    fn the_player_table_grows_by_an_eighth_not_by_doubling() {
        let mut list: Vec<[u8; 1024]> = Vec::new();
        for n in 1..=10_000 {
            reserve_one_more(&mut list);
            list.push([0; 1024]);
            assert!(list.len() == n);
            assert!(
                list.capacity() <= n + (n / 8).max(64),
                "{n} elements in room for {}",
                list.capacity()
            );
        }
        // A full table grows once more, by an eighth.
        let full = list.capacity();
        while list.len() < full {
            reserve_one_more(&mut list);
            list.push([0; 1024]);
        }
        reserve_one_more(&mut list);
        assert_eq!(list.capacity(), full + full / 8);
    }

    #[test]
    fn the_bundled_world_spawns_everything_its_content_places() {
        let content = Arc::new(wayfarer_content::load_bundled());
        let mobs: u32 = content
            .areas
            .values()
            .flat_map(|a| &a.mob_spawns)
            .map(|m| m.max_count)
            .sum();
        let fixed_npcs: usize = content.areas.values().map(|a| a.npcs.len()).sum();
        let fixed_resources: usize = content.areas.values().map(|a| a.resources.len()).sum();
        let world = World::new(content, 1);
        let counts = world.counts();
        assert_eq!(counts.npcs, fixed_npcs + mobs as usize);
        assert!(
            counts.resources > fixed_resources,
            "plus procedural fishing spots"
        );
        assert_eq!(counts.players, 0);
        assert_eq!(world.tick_number(), 0);
        for npc in world.npcs() {
            assert!(npc.health.is_some() && npc.name.is_some() && npc.type_id.is_some());
        }
        assert!(world.is_walkable(world.spawn_tile()));
    }

    #[test]
    fn content_without_areas_still_has_a_spawn_tile() {
        let mut world = World::new(Arc::new(Content::default()), 0);
        assert_eq!(world.spawn_tile(), TilePos { x: 0, z: 0 });
        world.tick(vec![Command::Join(Box::new(Joining {
            health: 1,
            ignored: vec![],
            ..Joining::new("a", "A", TilePos { x: 50, z: -3 })
        }))]);
        assert_eq!(world.player_tile("a"), Some(TilePos { x: 0, z: 0 }));
        assert_eq!(
            world.counts(),
            EntityCounts {
                players: 1,
                ..EntityCounts::default()
            }
        );
    }

    #[test]
    fn views_and_walks_split_over_threads_give_what_one_thread_gives() {
        // 600 players around the spawn point (a crowd: everyone's view is recomputed every tick)
        // walking about and talking (who hears a line follows the views); one world computes its
        // views and plans its walks on one thread, the other on four.
        let content = Arc::new(wayfarer_content::load_bundled());
        let run = |threads: usize| {
            let mut world = World::new(content.clone(), 7);
            world.view_workers = ViewWorkers::with_threads(threads);
            let spawn = world.spawn_tile();
            let joins = (0..600)
                .map(|i| {
                    let tile = TilePos {
                        x: spawn.x + i % 25 - 12,
                        z: spawn.z + i / 25 - 12,
                    };
                    Command::Join(Box::new(Joining::new(
                        format!("p{i}"),
                        format!("P{i}"),
                        tile,
                    )))
                })
                .collect();
            let mut log = format!("{:?}", world.tick(joins));
            for round in 0..6 {
                // 300 walks a tick: enough to plan them on more than one thread.
                const { assert!(300 >= 2 * crate::pathfinding::PLANS_PER_THREAD) };
                let moves = (0..600)
                    .filter(|i| (i + round) % 2 == 0)
                    .map(|i| Command::Move {
                        id: format!("p{i}"),
                        x: spawn.x + (i * 7 + round) % 30 - 15,
                        z: spawn.z + (i * 11 + round) % 30 - 15,
                        run: i % 5 == 0,
                        reference: None,
                    })
                    .chain(
                        (0..600)
                            .filter(|i| (i + round) % 7 == 0)
                            .map(|i| Command::Chat {
                                id: format!("p{i}"),
                                channel: wayfarer_protocol::ws::ChatChannel::Local,
                                text: format!("round {round} from {i}"),
                                to: None,
                                reference: None,
                            }),
                    )
                    .collect();
                log.push_str(&format!("{:?}", world.tick(moves)));
            }
            log
        };
        let one = run(1);
        assert!(one.contains("View"), "the crowd saw something");
        assert!(one.contains("LocalChat"), "the crowd heard something");
        assert_eq!(one, run(4));
    }

    #[test]
    fn ids_of_spawned_entities_are_distinct() {
        let world = World::new(Arc::new(wayfarer_content::load_bundled()), 1);
        let mut ids: Vec<String> = world
            .npcs()
            .into_iter()
            .chain(world.resources())
            .map(|e| e.id)
            .collect();
        let total = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), total);
    }
}
