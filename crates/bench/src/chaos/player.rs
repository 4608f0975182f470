//! One chaos player: a real WebSocket client that, until told to stop or until its server dies,
//! trades with its partner, duels it for stakes, buys from and sells to the general store, banks,
//! smelts and cooks, eats, wears and takes off, drops items and picks up what lies around (its own
//! and others'). Every exchange it starts it also finishes when the other side asks (trades and
//! duels are answered whoever started them), and it never waits on one for long: the point is many
//! economic operations in flight when the process is killed, not that each one completes.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio::time::{sleep_until, Instant};
use tokio_tungstenite::tungstenite::Message;

use crate::load::Rng;

/// The general store of the bundled world and its shopkeeper.
const STORE_ID: &str = "millbrook_general_store";
const SHOPKEEPER: &str = "merchant_tobin";
/// Tiles next to the bundled town's shopkeeper, bank booth and furnace (`world-areas.json`).
const SHOP_TILE: (i32, i32) = (-7, -6);
const BANK_TILE: (i32, i32) = (10, -5);
const FURNACE_TILE: (i32, i32) = (-11, -13);
const RANGE_TILE: (i32, i32) = (6, -13);
/// What a player buys (the store sells ores for smelting, and food).
const BOUGHT: &[&str] = &["copper_ore", "tin_ore", "bread", "bronze_arrow"];
/// Coins every player receives (`/give`) the first time it enters, so it can buy and stake.
pub const STARTING_COINS: u32 = 2_000;
/// Pause between two actions of one player.
const ACTION_EVERY: (Duration, Duration) = (Duration::from_millis(250), Duration::from_millis(900));
/// A trade or a duel's screens without an end for this long are cancelled.
const EXCHANGE_STALL: Duration = Duration::from_secs(8);
/// A pair meeting for a trade or a duel stays put this long (the request needs them within two
/// tiles of each other).
const MEETING: Duration = Duration::from_secs(3);
/// The leader asks this long after calling its partner (the partner's `/tp` comes with its next
/// action).
const ASK_AFTER: Duration = Duration::from_millis(1_000);

/// What the players share: who is who, and where a leader asked its partner to meet.
#[derive(Debug)]
pub struct Shared {
    /// Character ids, by player index.
    pub ids: Vec<String>,
    /// A leader's call to its partner: meet at this tile.
    pub summons: Mutex<Vec<Option<(i32, i32)>>>,
    pub admin_code: String,
    /// `ws://127.0.0.1:<port>/ws`.
    pub ws_url: String,
}

/// What one player counted over the run.
#[derive(Debug, Default, Clone)]
pub struct PlayerStats {
    /// Requests sent, by kind (`trade`, `duel`, `buy`, `sell`, `deposit`, `withdraw`, `make`,
    /// `drop`, `pickup`, `eat`, `equip`, `unequip`).
    pub sent: BTreeMap<&'static str, u64>,
    /// Trades completed (`tradeCompleted`; each trade is seen by both players).
    pub trades: u64,
    /// Duels with a result (`duel:result`; seen by both).
    pub duels: u64,
    /// Refusals by code (`error`, `tradeError`, `duelError`).
    pub refused: BTreeMap<String, u64>,
    /// Sessions opened.
    pub sessions: u64,
}

impl PlayerStats {
    /// Adds `other`'s counts to these.
    pub fn merge(&mut self, other: &PlayerStats) {
        for (k, v) in &other.sent {
            *self.sent.entry(k).or_default() += v;
        }
        for (k, v) in &other.refused {
            *self.refused.entry(k.clone()).or_default() += v;
        }
        self.trades += other.trades;
        self.duels += other.duels;
        self.sessions += other.sessions;
    }
}

/// One player of the run, kept across restarts.
#[derive(Debug)]
pub struct Player {
    pub index: usize,
    pub token: String,
    /// Whether its starting coins were given.
    pub seeded: bool,
    pub stats: PlayerStats,
    pub rng: Rng,
}

/// A slot as `inventory:update` shows it.
#[derive(Debug, Clone)]
struct Slot {
    slot: u64,
    item_id: String,
    quantity: u64,
}

/// The session's state.
struct Session {
    partner: Option<String>,
    leader: bool,
    inventory: Vec<Slot>,
    bank: Vec<(String, u64)>,
    /// Ground item entity ids in view.
    ground: Vec<String>,
    shopkeeper: Option<String>,
    /// The trade or duel in progress, and since when.
    trade: Option<(String, Instant)>,
    duel: Option<(String, Instant)>,
    fighting: Option<String>,
    staked: bool,
    /// No new action before this (a pair meeting).
    hold_until: Instant,
    /// Messages to send, each when due.
    outbox: VecDeque<(Instant, Value)>,
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

impl Player {
    /// Plays until `stop` turns true or the server goes away; reconnects while the server is up
    /// (a session may be refused while the previous one's final save is written).
    pub async fn play(&mut self, shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
        while !*stop.borrow() {
            let url = format!("{}?token={}", shared.ws_url, self.token);
            let socket = match tokio_tungstenite::connect_async(&url).await {
                Ok((socket, _)) => socket,
                Err(_) => {
                    // Refused (1013 while the last session saves) or the server is down.
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(200)) => continue,
                        _ = stop.changed() => return,
                    }
                }
            };
            self.stats.sessions += 1;
            self.session(socket, &shared, &mut stop).await;
            // Closed by the server (or it died): a moment before trying again.
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                _ = stop.changed() => return,
            }
        }
    }

    async fn session(
        &mut self,
        mut socket: Socket,
        shared: &Shared,
        stop: &mut watch::Receiver<bool>,
    ) {
        let partner_index = if self.index.is_multiple_of(2) {
            self.index + 1
        } else {
            self.index - 1
        };
        let now = Instant::now();
        let mut s = Session {
            partner: shared.ids.get(partner_index).cloned(),
            leader: self.index.is_multiple_of(2),
            inventory: Vec::new(),
            bank: Vec::new(),
            ground: Vec::new(),
            shopkeeper: None,
            trade: None,
            duel: None,
            fighting: None,
            staked: false,
            hold_until: now,
            outbox: VecDeque::new(),
        };
        s.outbox
            .push_back((now, chat(&format!("/admin {}", shared.admin_code))));
        if !self.seeded {
            s.outbox
                .push_back((now, chat(&format!("/give coins {STARTING_COINS}"))));
            self.seeded = true;
        }
        let mut next_action = now + self.rng.duration(ACTION_EVERY);
        loop {
            let due = s
                .outbox
                .iter()
                .map(|(at, _)| *at)
                .fold(next_action, Instant::min);
            tokio::select! {
                frame = socket.next() => {
                    match frame {
                        Some(Ok(Message::Text(text))) => {
                            if let Ok(message) = serde_json::from_str::<Value>(&text) {
                                self.on_message(&mut s, &message);
                            }
                        }
                        Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                        Some(Ok(_)) => {}
                    }
                }
                _ = sleep_until(due) => {
                    let now = Instant::now();
                    // Everything due, in the order it was queued.
                    let mut due_now = Vec::new();
                    s.outbox.retain(|(at, message)| {
                        let due = *at <= now;
                        if due {
                            due_now.push(message.to_string());
                        }
                        !due
                    });
                    for message in due_now {
                        if socket.send(Message::text(message)).await.is_err() {
                            return;
                        }
                    }
                    if now >= next_action {
                        self.summoned(&mut s, shared);
                        self.act(&mut s, shared);
                        next_action = now + self.rng.duration(ACTION_EVERY);
                    }
                }
                _ = stop.changed() => {
                    let _ = socket.close(None).await;
                    return;
                }
            }
        }
    }

    fn count(&mut self, kind: &'static str) {
        *self.stats.sent.entry(kind).or_default() += 1;
    }

    /// A leader's call: go where the partner waits.
    fn summoned(&mut self, s: &mut Session, shared: &Shared) {
        let call = shared
            .summons
            .lock()
            .map(|mut calls| calls.get_mut(self.index).and_then(Option::take))
            .unwrap_or(None);
        if let Some((x, z)) = call {
            if s.trade.is_none() && s.duel.is_none() {
                let now = Instant::now();
                s.outbox.push_back((now, chat(&format!("/tp {x} {z}"))));
                s.hold_until = now + MEETING;
            }
        }
    }

    /// The next action, unless a trade or duel is under way (then only its stall guard).
    fn act(&mut self, s: &mut Session, shared: &Shared) {
        let now = Instant::now();
        if let Some((id, since)) = s.trade.clone() {
            if now.duration_since(since) > EXCHANGE_STALL {
                s.outbox
                    .push_back((now, json!({"type": "tradeCancel", "data": {"tradeId": id}})));
                s.trade = None;
            }
            return;
        }
        if let Some((id, since)) = s.duel.clone() {
            if let Some(opponent) = s.fighting.clone() {
                // Keep swinging: the fight ends with a result (or the world's draw).
                s.outbox
                    .push_back((now, action("attack", json!({"targetId": opponent}))));
            } else if now.duration_since(since) > EXCHANGE_STALL {
                s.outbox
                    .push_back((now, json!({"type": "duel:cancel", "data": {"duelId": id}})));
                s.duel = None;
            }
            return;
        }
        if now < s.hold_until {
            return;
        }
        let later = |ms: u64| now + Duration::from_millis(ms);
        // Arena wagers join this table once the arena exists (issue 50, item 6): bet on a fight
        // the player is not in, settled with the duel's commit.
        match self.rng.below(100) {
            // Trades and duels: the leader of each pair meets its partner and asks.
            0..=19 if s.leader && s.partner.is_some() => {
                let pair = (self.index / 2) as i32;
                let (x, z) = (-10 + 4 * pair, 8);
                s.outbox.push_back((now, chat(&format!("/tp {x} {z}"))));
                if let Ok(mut calls) = shared.summons.lock() {
                    if let Some(call) = calls.get_mut(self.index + 1) {
                        *call = Some((x + 1, z));
                    }
                }
                let partner = s.partner.clone().unwrap_or_default();
                s.hold_until = now + ASK_AFTER + MEETING;
                let ask = if self.rng.below(5) < 3 {
                    self.count("trade");
                    json!({"type": "tradeRequest", "data": {"targetPlayerId": partner}})
                } else {
                    self.count("duel");
                    json!({"type": "duel:challenge", "data": {"targetPlayerId": partner}})
                };
                s.outbox.push_back((now + ASK_AFTER, ask));
            }
            // The store: walk up, talk (the dialogue opens it), then buy and sell on `shop:open`.
            20..=39 => {
                let Some(keeper) = s.shopkeeper.clone() else {
                    return;
                };
                s.outbox
                    .push_back((now, chat(&format!("/tp {} {}", SHOP_TILE.0, SHOP_TILE.1))));
                s.outbox
                    .push_back((later(150), action("interact", json!({"targetId": keeper}))));
            }
            // The bank: deposit a slot (some or all) or withdraw something.
            40..=54 => {
                s.outbox
                    .push_back((now, chat(&format!("/tp {} {}", BANK_TILE.0, BANK_TILE.1))));
                if self.rng.one_in(2) || s.bank.is_empty() {
                    if let Some(slot) = self.pick_slot(s, |_| true) {
                        self.count("deposit");
                        let quantity = if self.rng.one_in(2) {
                            json!("all")
                        } else {
                            json!(1 + self.rng.below(slot.quantity.max(1)))
                        };
                        s.outbox.push_back((
                            later(150),
                            json!({"type": "bank:deposit", "data": {"slot": slot.slot, "quantity": quantity}}),
                        ));
                    }
                } else {
                    let (item, held) = s.bank[self.rng.below(s.bank.len() as u64) as usize].clone();
                    self.count("withdraw");
                    s.outbox.push_back((
                        later(150),
                        json!({"type": "bank:withdraw", "data": {"itemId": item, "quantity": 1 + self.rng.below(held.max(1))}}),
                    ));
                }
            }
            // Making: smelt bronze from bought ores, or cook shrimps (given: the store sells none).
            55..=66 => {
                if held(s, "copper_ore") > 0 && held(s, "tin_ore") > 0 {
                    self.count("make");
                    s.outbox.push_back((
                        now,
                        chat(&format!("/tp {} {}", FURNACE_TILE.0, FURNACE_TILE.1)),
                    ));
                    s.outbox.push_back((
                        later(150),
                        action(
                            "make",
                            json!({"recipeId": "smithing:bronze_bar", "quantity": "all"}),
                        ),
                    ));
                } else {
                    self.count("make");
                    s.outbox.push_back((now, chat("/give raw_shrimp 3")));
                    s.outbox
                        .push_back((now, chat(&format!("/tp {} {}", RANGE_TILE.0, RANGE_TILE.1))));
                    s.outbox.push_back((
                        later(200),
                        action(
                            "make",
                            json!({"recipeId": "cooking:shrimp", "quantity": "all"}),
                        ),
                    ));
                }
            }
            // Drop something (not all of one's coins).
            67..=76 => {
                if let Some(slot) = self.pick_slot(s, |slot| slot.item_id != "coins") {
                    self.count("drop");
                    s.outbox
                        .push_back((now, action("drop", json!({"slot": slot.slot}))));
                }
            }
            // Pick up what lies in view: one's own drops, others', loot, piles.
            77..=88 => {
                if !s.ground.is_empty() {
                    let target = s.ground[self.rng.below(s.ground.len() as u64) as usize].clone();
                    self.count("pickup");
                    s.outbox
                        .push_back((now, action("pickup", json!({"targetId": target}))));
                }
            }
            // Eat, wear, take off.
            89..=93 => {
                if let Some(slot) = self.pick_slot(s, |slot| {
                    slot.item_id == "bread" || slot.item_id == "shrimp"
                }) {
                    self.count("eat");
                    s.outbox.push_back((
                        now,
                        json!({"type": "inventory:use", "data": {"slot": slot.slot}}),
                    ));
                }
            }
            94..=96 => {
                if let Some(slot) = self.pick_slot(s, |slot| slot.item_id == "bronze_sword") {
                    self.count("equip");
                    s.outbox
                        .push_back((now, action("equip", json!({"slot": slot.slot}))));
                }
            }
            _ => {
                self.count("unequip");
                s.outbox
                    .push_back((now, action("unequip", json!({"slot": "weapon"}))));
            }
        }
    }

    /// A random slot among those `keep` accepts.
    fn pick_slot(&mut self, s: &Session, keep: impl Fn(&Slot) -> bool) -> Option<Slot> {
        let slots: Vec<&Slot> = s.inventory.iter().filter(|slot| keep(slot)).collect();
        if slots.is_empty() {
            return None;
        }
        Some(slots[self.rng.below(slots.len() as u64) as usize].clone())
    }

    fn on_message(&mut self, s: &mut Session, message: &Value) {
        let data = &message["data"];
        let now = Instant::now();
        match message["type"].as_str().unwrap_or_default() {
            "player:sync" | "inventory:update" => {
                if let Some(slots) = data["inventory"].as_array() {
                    s.inventory = slots.iter().filter_map(slot_of).collect();
                }
            }
            "bank:update" => {
                s.bank = data["items"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|i| {
                        Some((i["itemId"].as_str()?.to_owned(), i["quantity"].as_u64()?))
                    })
                    .collect();
            }
            "world:update" => {
                for entity in data["added"].as_array().into_iter().flatten() {
                    let Some(id) = entity["id"].as_str() else {
                        continue;
                    };
                    if entity["kind"] == "groundItem" && !s.ground.iter().any(|g| g == id) {
                        s.ground.push(id.to_owned());
                    }
                    if entity["typeId"] == SHOPKEEPER {
                        s.shopkeeper = Some(id.to_owned());
                    }
                }
                for removed in data["removed"].as_array().into_iter().flatten() {
                    if let Some(id) = removed.as_str() {
                        s.ground.retain(|g| g != id);
                    }
                }
            }
            "dialogue:open" => {
                // The shopkeeper's first answer opens the store.
                if let Some(first) = data["responses"].as_array().and_then(|r| r.first()) {
                    s.outbox.push_back((
                        now,
                        json!({"type": "dialogue:respond", "data": {"npcId": data["npcId"], "index": first["index"]}}),
                    ));
                }
            }
            "shop:open" => {
                let item = BOUGHT[self.rng.below(BOUGHT.len() as u64) as usize];
                self.count("buy");
                s.outbox.push_back((
                    now,
                    json!({"type": "shop:buy", "data": {"storeId": STORE_ID, "itemId": item, "quantity": 1 + self.rng.below(4)}}),
                ));
                if let Some(slot) = self.pick_slot(s, |slot| slot.item_id != "coins") {
                    self.count("sell");
                    s.outbox.push_back((
                        now,
                        json!({"type": "shop:sell", "data": {"storeId": STORE_ID, "slot": slot.slot, "quantity": 1 + self.rng.below(slot.quantity.max(1))}}),
                    ));
                }
                s.outbox.push_back((
                    now + Duration::from_millis(300),
                    json!({"type": "shop:close", "data": {}}),
                ));
            }
            "tradeIncoming" => {
                s.outbox.push_back((
                    now,
                    json!({"type": "tradeRequestRespond", "data": {"tradeId": data["tradeId"], "accept": true}}),
                ));
            }
            "tradeStarted" => {
                let id = data["tradeId"].as_str().unwrap_or_default().to_owned();
                s.trade = Some((id.clone(), now));
                if let Some(slot) = self.pick_slot(s, |_| true) {
                    s.outbox.push_back((
                        now,
                        json!({"type": "tradeAddItem", "data": {"tradeId": id, "inventorySlot": slot.slot, "quantity": 1 + self.rng.below(slot.quantity.max(1))}}),
                    ));
                }
            }
            "tradeUpdated" | "tradeConfirmScreen" if data["myOffer"]["accepted"] != true => {
                s.outbox.push_back((
                    now + Duration::from_millis(100),
                    json!({"type": "tradeAccept", "data": {"tradeId": data["tradeId"]}}),
                ));
            }
            "tradeCompleted" => {
                self.stats.trades += 1;
                s.trade = None;
            }
            "tradeCancelled" => s.trade = None,
            "duelIncoming" => {
                s.outbox.push_back((
                    now,
                    json!({"type": "duel:respond", "data": {"duelId": data["duelId"], "accept": true}}),
                ));
            }
            "duel:rules" => {
                let id = data["duelId"].as_str().unwrap_or_default().to_owned();
                if s.duel.as_ref().is_none_or(|(d, _)| *d != id) {
                    s.duel = Some((id.clone(), now));
                    s.staked = false;
                }
                if data["screen"] == 1 && !s.staked {
                    s.staked = true;
                    if let Some(slot) = self.pick_slot(s, |slot| slot.item_id == "coins") {
                        s.outbox.push_back((
                            now,
                            json!({"type": "duel:stake", "data": {"duelId": id, "inventorySlot": slot.slot, "quantity": 1 + self.rng.below(50)}}),
                        ));
                    }
                }
                if data["myStake"]["accepted"] != true {
                    s.outbox.push_back((
                        now + Duration::from_millis(100),
                        json!({"type": "duel:accept", "data": {"duelId": id}}),
                    ));
                }
            }
            "duel:start" => {
                let opponent = data["opponentId"].as_str().unwrap_or_default().to_owned();
                s.outbox
                    .push_back((now, action("attack", json!({"targetId": opponent}))));
                s.fighting = Some(opponent);
            }
            "duel:result" => {
                self.stats.duels += 1;
                s.duel = None;
                s.fighting = None;
            }
            "duel:cancelled" => {
                s.duel = None;
                s.fighting = None;
            }
            "error" | "tradeError" | "duelError" => {
                let code = data["code"].as_str().unwrap_or("unknown").to_owned();
                *self.stats.refused.entry(code).or_default() += 1;
            }
            _ => {}
        }
    }
}

/// How many of `item` the inventory holds.
fn held(s: &Session, item: &str) -> u64 {
    s.inventory
        .iter()
        .filter(|slot| slot.item_id == item)
        .map(|slot| slot.quantity)
        .sum()
}

fn slot_of(value: &Value) -> Option<Slot> {
    Some(Slot {
        slot: value["slot"].as_u64()?,
        item_id: value["itemId"].as_str()?.to_owned(),
        quantity: value["quantity"].as_u64()?,
    })
}

fn chat(text: &str) -> Value {
    json!({"type": "player:chat", "data": {"text": text}})
}

fn action(name: &str, fields: Value) -> Value {
    let mut data = json!({ "action": name });
    if let (Some(data), Some(fields)) = (data.as_object_mut(), fields.as_object()) {
        data.extend(fields.clone());
    }
    json!({"type": "player:action", "data": data})
}
