//! What the world tells the server: [`Event`]s produced by a tick, the tick's [`Phase`]s, and the
//! entity counts of [`EntityCounts`].

use std::sync::Arc;

use wayfarer_content::{EquipSlot, Skill};
use wayfarer_protocol::ws::{ChatMessage, CombatHit, ShopView, TilePos, WorldUpdate};

use crate::inventory::Stack;
use crate::skills::XpGain;

/// The local lines one player heard in a tick.
#[derive(Debug, Clone, PartialEq)]
pub struct Heard {
    /// Character id (shared with the world's player record).
    pub to: Arc<str>,
    /// Indices into [`Event::LocalChat`]'s `lines`, in the order spoken.
    pub lines: Vec<u32>,
}

/// Something the server must pass on or act upon.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A `world:update` for one player: at most one per player per tick, never empty.
    View {
        /// Receiving character id (the player's shared one: one reference count a tick, not a
        /// copy of the id for each of a crowd's 2,000 updates).
        to: Arc<str>,
        /// What changed in view; `update.tick` is the tick number.
        update: WorldUpdate,
    },
    /// A `chat:message` for each listed player. `message.ts` is 0: the sim reads no clock, so the
    /// server stamps the time of sending.
    Chat {
        /// Receiving character ids (shared: a line heard by hundreds names each of them).
        to: Vec<Arc<str>>,
        /// The message.
        message: ChatMessage,
    },
    /// A `chat:message` for everyone in the world but `except`: a global line (said here or
    /// relayed from another world) or a system message to everyone. Naming who does not hear it
    /// spares listing thousands who do. `message.ts` is 0, as for [`Event::Chat`].
    ChatToAll {
        /// Who does not get it, of everyone in the world during this tick (there at its end or
        /// leaving in it): those ignoring the sender when it was said (and for a relayed line,
        /// a player here with the sender's id), those who joined after it in the tick, those
        /// who left before it. In no particular order; may name someone twice.
        except: Vec<Arc<str>>,
        /// The message.
        message: ChatMessage,
    },
    /// This tick's local chat (`player:chat` on `local`): each line once, and who heard which.
    /// Listed by listener rather than by line so the server finds each listener once a tick, not
    /// once a line (in a chatting crowd: 2,000 listeners against ~74,000 deliveries).
    LocalChat {
        /// The lines in the order spoken; `ts` is 0 as for [`Event::Chat`].
        lines: Vec<ChatMessage>,
        /// Every player who heard something, in join order.
        heard: Vec<Heard>,
    },
    /// A command refused, for its sender (`code` is one of `wayfarer_protocol::ws::codes`).
    Rejected {
        /// The sender's character id.
        to: String,
        /// Wire error code.
        code: &'static str,
        /// Human-readable reason.
        message: String,
        /// The command's reference, echoed.
        reference: Option<u64>,
    },
    /// A command refused for a while (`cooldown` of the home teleport): an `error` that carries
    /// `remainingSeconds`.
    RejectedWait {
        /// The sender's character id.
        to: String,
        /// Wire error code.
        code: &'static str,
        /// Human-readable reason.
        message: String,
        /// Seconds until it would be accepted.
        remaining_seconds: u64,
        /// The command's reference, echoed.
        reference: Option<u64>,
    },
    /// How a player's home teleport goes (`player:homeTeleport`); on `Arrived` the server keeps
    /// when the cooldown ends in the character's record.
    HomeTeleport {
        /// The caster's character id.
        to: String,
        /// Casting, arrived or interrupted.
        status: crate::home::HomeTeleportStatus,
        /// Ticks until it may be cast again (the whole cooldown on `Arrived`, else 0).
        cooldown_ticks: u64,
    },
    /// A player's emote (`player:emote`), for every player within view distance of them.
    Emote {
        /// Receiving character ids (the emoter among them).
        to: Vec<String>,
        /// The emoter's character id.
        player_id: String,
        /// One of `wayfarer_protocol::ws::EMOTES`.
        emote: &'static str,
    },
    /// A player's inventory changed this tick (at most one per player per tick): every occupied
    /// slot, in slot order.
    Inventory {
        /// Character id.
        to: String,
        /// `(slot, stack)` for each occupied slot.
        slots: Vec<(u8, Stack)>,
    },
    /// A player's worn items changed this tick (at most one per player per tick).
    Equipment {
        /// Character id.
        to: String,
        /// Every worn stack, in slot order.
        worn: Vec<(EquipSlot, Stack)>,
    },
    /// A player gained XP (`skill:xp`); one per gain.
    Xp {
        /// Character id.
        to: String,
        /// The skill.
        skill: Skill,
        /// What the gain did.
        gain: XpGain,
    },
    /// A player's health, maximum, combat level or style changed this tick (for the record).
    Stats {
        /// Character id.
        id: String,
        /// The new figures.
        stats: PlayerStats,
    },
    /// An attack landed or missed (`combat:hit`), for every player who can see the target.
    CombatHit {
        /// Receiving character ids.
        to: Vec<String>,
        /// The hit.
        hit: CombatHit,
    },
    /// Items that entered, left or moved inside the world this tick (the economy audit).
    ItemFlows(Vec<crate::flows::ItemFlow>),
    /// A player's tile changed this tick (walking, teleport, a join or content reload that moved them
    /// off a blocked tile): the server marks the character dirty for saving.
    PlayerMoved {
        /// Character id (shared, as [`Event::View`]'s).
        id: Arc<str>,
        /// The tile at the end of the tick.
        tile: TilePos,
    },
    /// A player left the world (`Command::Leave`). Everything the tick's earlier commands changed
    /// for them has been reported before this event (inventory, equipment, bank, stats), so the
    /// server's record of the player is final once it has seen this: it saves that record.
    Left {
        /// Character id.
        id: String,
        /// The tile the player stood on when they left.
        tile: TilePos,
    },
    /// A player killed an NPC (the server counts `npcKills` per player and NPC type).
    NpcKilled {
        /// The killer's character id.
        killer: String,
        /// The NPC's content id (`goblin`).
        npc_id: String,
    },
    /// A player died: what they held and wore was dropped at `tile` (tagged with `death_id`) but
    /// for what they `kept` (in a PvP area, the 3 most valuable items, back in their inventory),
    /// and the player is back at `respawn` with full health.
    PlayerDied {
        /// Character id.
        id: String,
        /// Unique and deterministic: `<character id>-<tick>`.
        death_id: String,
        /// Where the player died (where the items lie).
        tile: TilePos,
        /// Every stack dropped, inventory first, then equipment, as dropped.
        items: Vec<Stack>,
        /// Whether the death was in a PvP area (items public, or the killer's for a minute).
        pvp: bool,
        /// What the player kept (PvP areas only), as it went back into their inventory.
        kept: Vec<Stack>,
        /// Who dealt the blow: (entity id, name) of a player or NPC.
        killer: Option<(String, String)>,
        /// Where the player respawned.
        respawn: TilePos,
        /// Outside PvP areas, when something fell: ticks the pile stays its owner's alone.
        gravestone_ticks: Option<u64>,
    },
    /// The area a player stands in changed (or they entered the world in one): `zone:enter`.
    Zone {
        /// Character id.
        to: String,
        /// The message.
        zone: wayfarer_protocol::ws::ZoneEnter,
    },
    /// A player picked up a ground item spilled by a death.
    DeathItemTaken {
        /// The death (`PlayerDied::death_id`).
        death_id: String,
        /// Who took it (character id).
        by: String,
        /// What was taken.
        stack: Stack,
    },
    /// A ground item spilled by a death vanished (nobody took it in time).
    DeathItemExpired {
        /// The death (`PlayerDied::death_id`).
        death_id: String,
        /// What vanished.
        stack: Stack,
    },
    /// What one party of a trade or a duel is told (the server words it as the kind's wire
    /// message: `tradeIncoming`, `tradeStarted`, `tradeUpdated`, `tradeConfirmScreen`,
    /// `tradeCompleted`, `tradeCancelled`, `tradeError`; `duelIncoming`, `duel:rules`,
    /// `duel:start`, `duel:result`, `duel:cancelled`, `duelError`).
    Exchange {
        /// Receiving character id.
        to: String,
        /// A trade or a duel.
        kind: crate::exchange::ExchangeKind,
        /// The trade's or duel's id (`None` only for a refused request or challenge).
        id: Option<String>,
        /// What happened.
        notice: crate::exchange::Notice,
    },
    /// Both accepted on Screen 2: write the swap and its audit row in one transaction, then answer
    /// with `Command::TradeCommitted`.
    TradeCommit(Box<crate::trade::TradeCommit>),
    /// A ladder notice for one player (`arena:queued`, `arena:match`, `arena:cancelled`,
    /// `arena:left`, `arena:result`).
    Arena {
        /// Receiving character id.
        to: String,
        /// What happened.
        notice: crate::arena::ArenaNotice,
    },
    /// A duel's fight ended: write the result and its audit row in one transaction, then answer
    /// with `Command::DuelCommitted`.
    DuelCommit(Box<crate::duel::DuelCommit>),
    /// A player's bank changed (or was asked for) this tick: the whole bank, in bank order.
    Bank {
        /// Character id.
        to: String,
        /// One stack per item.
        items: Vec<Stack>,
    },
    /// A bank operation, purchase or sale changed this player's items this tick: the record
    /// (inventory and bank, as the events before this one left them) must be saved at once, in one
    /// transaction. Comes after the tick's `Inventory` and `Bank` events for the player.
    SaveNow {
        /// Character id.
        id: String,
    },
    /// A player's prayer points or active prayers changed (`prayer:update`), or they entered.
    Prayer {
        /// Character id.
        to: String,
        /// Points left.
        points: u32,
        /// The Prayer level.
        max_points: u32,
        /// Active prayers, in the order switched on.
        active: Vec<String>,
    },
    /// A dialogue node for a player (`dialogue:open`).
    DialogueOpened {
        /// Character id.
        to: String,
        /// The node and the responses shown.
        view: wayfarer_protocol::ws::DialogueOpen,
    },
    /// A player's dialogue ended (`dialogue:close`).
    DialogueClosed {
        /// Character id.
        to: String,
        /// The NPC's content id.
        npc_id: String,
        /// Why.
        reason: crate::dialogue::CloseReason,
    },
    /// A player's progress in a quest changed (`quest:update`); the server mirrors it into the
    /// record it saves.
    QuestUpdated {
        /// Character id.
        to: String,
        /// The quest as saved.
        record: crate::quests::QuestRecord,
        /// The current stage's count (0 when not in progress).
        count: u32,
    },
    /// A player completed a quest (`quest:complete`), rewards granted.
    QuestCompleted {
        /// Character id.
        to: String,
        /// The quest.
        quest_id: String,
        /// What was granted.
        rewards: crate::quests::QuestRewards,
        /// The player's quest points now.
        quest_points: u32,
    },
    /// Every quest of content with the player's status (`quest:list`), on entry and when asked.
    QuestList {
        /// Character id.
        to: String,
        /// (quest id, name, the player's record if started or done).
        quests: Vec<(String, String, Option<crate::quests::QuestRecord>)>,
        /// The player's quest points.
        quest_points: u32,
    },
    /// What a player can make with what they used or where they are (`make:options`).
    MakeOptions {
        /// Character id.
        to: String,
        /// The context and every recipe that applies.
        options: Box<wayfarer_protocol::ws::MakeOptions>,
    },
    /// A shop was opened for a player (`shop:open`).
    ShopOpened {
        /// Character id.
        to: String,
        /// The shop as it stands.
        view: ShopView,
    },
    /// A shop's stock changed (`shop:update`) for everyone who has it open.
    ShopUpdated {
        /// Character ids.
        to: Vec<String>,
        /// The shop as it stands.
        view: ShopView,
    },
    /// A player's shop closed (asked, walked away, or the shopkeeper is gone).
    ShopClosed {
        /// Character id.
        to: String,
        /// The store.
        store_id: String,
    },
    /// A purchase (`sold: false`) or sale (`sold: true`) completed (economy counters).
    ShopTrade {
        /// Character id.
        id: String,
        /// The store.
        store_id: String,
        /// The item bought or sold.
        item_id: String,
        /// How many.
        quantity: u32,
        /// Coins paid (purchase) or received (sale).
        coins: u64,
        /// A sale to the store.
        sold: bool,
    },
}

/// What a player's record must now say about their stats (the server mirrors it for saving).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerStats {
    /// Current hit points.
    pub health: i64,
    /// Maximum hit points (the Constitution level).
    pub max_health: i64,
    /// Combat level (`skills::combat_level`).
    pub combat_level: i64,
    /// The combat style's wire name.
    pub style: &'static str,
    /// Whether auto-retaliate is on.
    pub auto_retaliate: bool,
}

/// The phases of a tick, in order (ARCHITECTURE.md, "The tick").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Applying the commands: joins, leaves, movement targets, chat.
    Input,
    /// NPC AI and movement.
    Npcs,
    /// Player movement along paths.
    Movement,
    /// Actions on entities (walking next to them first), combat, gathering, processing, ground
    /// items and timers.
    Actions,
    /// Computing each player's `world:update`.
    View,
}

impl Phase {
    /// Every phase, in tick order.
    pub const ALL: [Phase; 5] = [
        Phase::Input,
        Phase::Npcs,
        Phase::Movement,
        Phase::Actions,
        Phase::View,
    ];

    /// A stable lower-case name (for metrics labels).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Input => "input",
            Phase::Npcs => "npcs",
            Phase::Movement => "movement",
            Phase::Actions => "actions",
            Phase::View => "view",
        }
    }
}

/// How many entities of each kind are in the world (`GET /api/v1/world`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EntityCounts {
    /// Players online.
    pub players: usize,
    /// NPCs and mobs.
    pub npcs: usize,
    /// Gathering resources.
    pub resources: usize,
    /// Items lying on the ground.
    pub ground_items: usize,
}
