//! What the server asks of the world: one [`Command`] per player request or server decision, applied in
//! order at the start of a tick.

use wayfarer_content::EquipSlot;
use wayfarer_protocol::ws::{ChatChannel, ChatMessage, TilePos};

use crate::combat::formulas::CombatStyle;
use crate::equipment::Equipment;
use crate::inventory::{Inventory, Stack};
use crate::skills::Skills;

/// Everything the world needs of a character entering it (the server loads it from the store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joining {
    /// Character id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Where the character was saved.
    pub tile: TilePos,
    /// Current hit points (clamped to `1..=` the Constitution level; a saved 0 enters at full).
    pub health: i64,
    /// Lower-cased names this player ignores.
    pub ignored: Vec<String>,
    /// XP of every skill.
    pub skills: Skills,
    /// The 28 slots.
    pub inventory: Inventory,
    /// Worn items.
    pub equipment: Equipment,
    /// The chosen combat style.
    pub style: CombatStyle,
    /// Whether attacks on the idle player are answered (on for a new character).
    pub auto_retaliate: bool,
    /// The bank, in bank order (one entry per item).
    pub bank: Vec<Stack>,
    /// Prayer points left (`None`: full, the Prayer level; more than that is capped).
    pub prayer_points: Option<u32>,
    /// Quests started or done.
    pub quests: Vec<crate::quests::QuestRecord>,
    /// Ticks until the home teleport may be cast again (0: now), from what the record keeps.
    pub home_teleport_cooldown_ticks: u64,
}

impl Joining {
    /// A new character at `tile`: level 1 everywhere but Constitution 10, full health, nothing
    /// held or worn.
    pub fn new(id: impl Into<String>, name: impl Into<String>, tile: TilePos) -> Joining {
        let skills = Skills::new();
        Joining {
            id: id.into(),
            name: name.into(),
            tile,
            health: i64::from(skills.level(wayfarer_content::Skill::Constitution)),
            ignored: Vec::new(),
            skills,
            inventory: Inventory::new(),
            equipment: Equipment::new(),
            style: CombatStyle::default(),
            auto_retaliate: true,
            bank: Vec::new(),
            prayer_points: None,
            quests: Vec::new(),
            home_teleport_cooldown_ticks: 0,
        }
    }
}

/// `player:action` (CONTRACT.md section 3), read and checked. Entity targets are wire ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Fight an NPC (or a player in a PvP area).
    Attack {
        /// The target's entity id.
        target: String,
    },
    /// Gather from a tree, rock or fishing spot.
    Gather {
        /// The resource's entity id.
        target: String,
    },
    /// Light the logs in `slot` (a tinderbox is needed).
    LightFire {
        /// Inventory slot of the logs.
        slot: usize,
    },
    /// Cook the raw food in `slot` on a fire or range.
    Cook {
        /// Inventory slot of the food.
        slot: usize,
        /// The fire's or range's entity id.
        target: String,
    },
    /// Pick up a ground item.
    Pickup {
        /// The ground item's entity id.
        target: String,
    },
    /// Drop the stack in `slot`.
    Drop {
        /// Inventory slot.
        slot: usize,
    },
    /// Wear or wield the item in `slot`.
    Equip {
        /// Inventory slot.
        slot: usize,
    },
    /// Take off what is worn in `slot`.
    Unequip {
        /// The equipment slot.
        slot: EquipSlot,
    },
    /// Talk to an NPC (dialogue, shop, bank).
    Interact {
        /// The NPC's entity id.
        target: String,
    },
    /// Choose the combat style.
    CombatStyle(CombatStyle),
    /// Stop walking and whatever the player was doing.
    Stop,
    /// Follow a player.
    Follow {
        /// The player's entity id.
        target: String,
    },
    /// Run away from whoever is attacking.
    Flee,
    /// Make a recipe a number of times (CONTRACT.md section 9).
    Make {
        /// The recipe's id.
        recipe_id: String,
        /// How many times.
        count: MakeCount,
        /// The station to make it at (`None`: the nearest one, where the recipe needs one).
        target: Option<String>,
    },
    /// Cast a combat spell once at an NPC or player (CONTRACT.md section 11).
    Cast {
        /// The spell's id.
        spell: String,
        /// The target's entity id.
        target: String,
    },
    /// Choose the spell attacks cast (`None`: attack with the weapon).
    Autocast {
        /// The spell's id.
        spell: Option<String>,
    },
    /// Switch auto-retaliate on or off.
    AutoRetaliate(bool),
    /// Cast the home teleport (CONTRACT.md section 14).
    HomeTeleport,
}

/// How many times `make` makes its recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MakeCount {
    /// This many times (1 to `MAX_MAKE_QUANTITY`).
    Times(u32),
    /// Until an input runs out.
    All,
}

/// A `bank:*` request, read and checked (see `bank`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BankRequest {
    /// `bank:open`: send the bank.
    Open,
    /// `bank:deposit`: from inventory `slot` (`None`: everything held), `quantity` of that item
    /// (`None`: all of it).
    Deposit {
        /// Inventory slot, or `None` for "all".
        slot: Option<usize>,
        /// How many; `None` for all held.
        quantity: Option<u32>,
    },
    /// `bank:withdraw`: as many as fit, up to `quantity`.
    Withdraw {
        /// The item.
        item_id: String,
        /// How many at most.
        quantity: u32,
    },
}

/// A `shop:*` request, read and checked (see `shops`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShopRequest {
    /// `shop:buy`.
    Buy {
        /// The store.
        store_id: String,
        /// The item.
        item_id: String,
        /// How many (all or nothing).
        quantity: u32,
    },
    /// `shop:sell`.
    Sell {
        /// The store.
        store_id: String,
        /// Inventory slot of the item sold.
        slot: usize,
        /// How many of that item (`None`: the slot's whole stack).
        quantity: Option<u32>,
    },
    /// `shop:close`.
    Close,
}

/// A request for the world. Commands naming a player who is not in the world are ignored silently
/// (the player may have left earlier in the same tick).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A player enters the world (the server loaded the character). `id` is the character id, also
    /// the entity id on the wire. A blocked or off-map `tile` is replaced by the nearest walkable one.
    /// Joining again with an id already in the world (a new connection for the same character) updates
    /// the player in place and shows the new connection everything in view again.
    Join(Box<Joining>),
    /// A player leaves the world; others in view see it `removed`.
    Leave {
        /// Character id.
        id: String,
    },
    /// `player:move`: walk (or run) to a tile.
    Move {
        /// Character id.
        id: String,
        /// Target tile x.
        x: i32,
        /// Target tile z.
        z: i32,
        /// Run (4 tiles a tick) instead of walking (2).
        run: bool,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// Stop walking.
    Stop {
        /// Character id.
        id: String,
    },
    /// Admin `/tp`: place the player on the walkable tile nearest to `tile`.
    Teleport {
        /// Character id.
        id: String,
        /// Destination.
        tile: TilePos,
    },
    /// `player:chat`.
    Chat {
        /// Sender's character id.
        id: String,
        /// `Local`, `Global` or `Private` (`System` is refused with `forbidden`).
        channel: ChatChannel,
        /// The text as sent; trimmed and stripped of control characters here.
        text: String,
        /// Recipient's name (any case), for `Private`.
        to: Option<String>,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// `player:action`.
    Action {
        /// Character id.
        id: String,
        /// What to do.
        action: Action,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// `inventory:use`: the item in `slot` alone (eat, bury, wield), on another slot (tinderbox on
    /// logs) or on an entity (raw fish on a fire).
    UseItem {
        /// Character id.
        id: String,
        /// The item used.
        slot: usize,
        /// The item it is used on.
        target_slot: Option<usize>,
        /// The entity it is used on.
        target_id: Option<String>,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// The player's ignore list changed (lower-cased names; replaces the old list).
    SetIgnored {
        /// Character id.
        id: String,
        /// Every name the player now ignores.
        ignored: Vec<String>,
    },
    /// Admin `/give`: adds items to the player's inventory (as many as fit).
    Give {
        /// Character id.
        id: String,
        /// The item.
        item_id: String,
        /// How many.
        quantity: u32,
    },
    /// A message on the `system` channel (admin `/broadcast`, server notices).
    SystemMessage {
        /// Recipient's character id; `None` sends to everyone in the world.
        to: Option<String>,
        /// The text, sent as given.
        text: String,
    },
    /// A global line said in another world (`CROSS_WORLD_GLOBAL_CHAT`): heard by every player
    /// here except those ignoring its sender. The sender's world checked it; it is cleaned
    /// again here all the same, and dropped when nothing is left.
    RelayedGlobalChat {
        /// The line, with its sender's id, name and world.
        message: ChatMessage,
    },
    /// A bank request.
    Bank {
        /// Character id.
        id: String,
        /// What is asked.
        request: BankRequest,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// A shop request.
    Shop {
        /// Character id.
        id: String,
        /// What is asked.
        request: ShopRequest,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// Puts back the ground pile of a death that is still locked after a restart (the server
    /// persists what [`crate::Event::PlayerDied`] dropped minus what was taken or expired). The
    /// items lie at `tile` (or the walkable tile nearest to it), private to `owner` for
    /// `private_ticks` more ticks, then public for [`crate::GROUND_LIFETIME_TICKS`]; they keep
    /// `death_id`, so their pickup and expiry are reported as before.
    RestoreDeathPile {
        /// The death's id (`PlayerDied::death_id`).
        death_id: String,
        /// Who may take the items while they are private (the dead player, or a PvP killer).
        owner: String,
        /// Where they lie.
        tile: TilePos,
        /// What lies there.
        items: Vec<Stack>,
        /// Ticks they stay private from now (0: public at once).
        private_ticks: u64,
    },
    /// A trade message (`tradeRequest`, `tradeAddItem`, …; see `trade.rs`).
    Trade {
        /// Sender's character id.
        id: String,
        /// The message.
        command: crate::trade::TradeCommand,
        /// Echoed in a `tradeError`.
        reference: Option<u64>,
    },
    /// `prayer:toggle`: switch a prayer on (switching its conflicts off) or off.
    Prayer {
        /// Character id.
        id: String,
        /// The prayer's content id.
        prayer_id: String,
        /// On or off.
        active: bool,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// `inventory:use {slot, skill}`: rub the XP lamp in `slot` on `skill`.
    RubLamp {
        /// Character id.
        id: String,
        /// Inventory slot of the lamp.
        slot: usize,
        /// The skill that gets the XP.
        skill: wayfarer_content::Skill,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// `dialogue:respond`: choose response `index` of the open dialogue with `npc_id` (the NPC's
    /// content id or entity id).
    DialogueRespond {
        /// Character id.
        id: String,
        /// The NPC talked to.
        npc_id: String,
        /// The response's index as sent in `dialogue:open`.
        index: u32,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// `dialogue:close` from the client.
    DialogueClose {
        /// Character id.
        id: String,
        /// The NPC (empty: whatever is open).
        npc_id: String,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// `quest:list` from the client.
    QuestList {
        /// Character id.
        id: String,
    },
    /// `player:emote` from the client.
    Emote {
        /// Character id.
        id: String,
        /// The emote asked for (checked against `wayfarer_protocol::ws::EMOTES`).
        emote: String,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// `quest:abandon` from the client.
    QuestAbandon {
        /// Character id.
        id: String,
        /// The quest.
        quest_id: String,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// The outcome of a committing trade's database transaction (`Event::TradeCommit`).
    TradeCommitted {
        /// The trade.
        trade_id: String,
        /// Whether the transaction committed.
        ok: bool,
    },
    /// A duel message (`duel:challenge`, `duel:stake`, …; see `duel.rs`).
    Duel {
        /// Sender's character id.
        id: String,
        /// The message.
        command: crate::duel::DuelCommand,
        /// Echoed in a `duelError`.
        reference: Option<u64>,
    },
    /// The outcome of a committing duel's database transaction (`Event::DuelCommit`).
    DuelCommitted {
        /// The duel.
        duel_id: String,
        /// Whether the transaction committed.
        ok: bool,
    },
    /// A ladder message (`arena:join`, `arena:leave`; see `arena`).
    Arena {
        /// Sender's character id.
        id: String,
        /// The message.
        command: crate::arena::ArenaCommand,
        /// Echoed in an `error`.
        reference: Option<u64>,
    },
}

impl Command {
    /// The character the command is about, when it names one.
    pub fn player_id(&self) -> Option<&str> {
        match self {
            Command::Join(joining) => Some(&joining.id),
            Command::Leave { id }
            | Command::Action { id, .. }
            | Command::UseItem { id, .. }
            | Command::Give { id, .. }
            | Command::SetIgnored { id, .. }
            | Command::Move { id, .. }
            | Command::Stop { id }
            | Command::Teleport { id, .. }
            | Command::Chat { id, .. }
            | Command::Trade { id, .. }
            | Command::Duel { id, .. }
            | Command::Arena { id, .. }
            | Command::Bank { id, .. }
            | Command::Shop { id, .. }
            | Command::Prayer { id, .. }
            | Command::DialogueRespond { id, .. }
            | Command::DialogueClose { id, .. }
            | Command::RubLamp { id, .. }
            | Command::QuestList { id }
            | Command::QuestAbandon { id, .. }
            | Command::Emote { id, .. } => Some(id),
            Command::SystemMessage { to, .. } => to.as_deref(),
            // The sender is in another world.
            Command::RelayedGlobalChat { .. } => None,
            // The owner is usually offline: the pile is the world's, not a player's request.
            Command::RestoreDeathPile { .. } => None,
            Command::TradeCommitted { .. } | Command::DuelCommitted { .. } => None,
        }
    }
}
