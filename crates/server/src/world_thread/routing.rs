//! Routing the sim's events to connections: each event goes to the players it concerns, one batch
//! per player per tick, queued without waking anyone; a runtime task does the wake-ups.

use std::sync::Arc;

use wayfarer_protocol::ws::{
    ChatChannel, ChatMessage, DialogueClose, InventoryUpdate, PrayerUpdate, QuestComplete,
    QuestList, QuestRewards, QuestSummary, RewardItem, ServerMessage, ShopClosed,
};
use wayfarer_sim::Event;

use crate::character_state;
use crate::online::Presence;
use crate::outbound_queue::{OutboundWaker, TrySendError};
use crate::player_view;
use crate::saver::SaveJob;

use super::{now_ms, Outbound, Players, Runner, TOO_SLOW};

impl From<Arc<ServerMessage>> for Outbound {
    fn from(message: Arc<ServerMessage>) -> Self {
        Outbound::Message(message)
    }
}

/// Adds `message` to what player `to` gets at the end of this dispatch (see [`Runner::flush_pending`]).
pub(super) fn send_to(players: &Players, to: &str, message: impl Into<Outbound>) {
    if let Some(record) = players.get(to) {
        record.pending.borrow_mut().push(message.into());
    }
}

/// A message for many players, encoded once.
pub(super) fn encode_once(message: &ServerMessage) -> Outbound {
    Outbound::Text(encoded(message))
}

/// The frame text of a message, to share.
pub(super) fn encoded(message: &ServerMessage) -> Arc<str> {
    Arc::from(message.to_json())
}

impl Runner {
    /// A global line said in this world also goes to the other worlds, carrying this world's id
    /// (`CROSS_WORLD_GLOBAL_CHAT`); one heard from another world already carries its own and is
    /// not sent on. The sender of a line that cannot be queued is told at once.
    fn relay_global(&self, message: &mut ChatMessage) {
        let Some(relay) = &self.context.global_chat else {
            return;
        };
        if message.channel != ChatChannel::Global || message.world.is_some() {
            return;
        }
        message.world = Some(relay.world_id());
        if !relay.offer(message.clone()) {
            send_to(
                &self.players,
                &message.from_id,
                crate::cluster::global_chat::unrelayed(),
            );
        }
    }

    pub(super) fn dispatch(&mut self, events: Vec<Event>) {
        let mut slow: Vec<String> = Vec::new();
        // Records to save at once, in one job (bank operations, purchases, sales).
        let mut save_now: Vec<String> = Vec::new();
        for event in events {
            match event {
                Event::View { to, update } => {
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::WorldUpdate(update)),
                    );
                }
                Event::Chat { to, mut message } => {
                    message.ts = now_ms();
                    self.relay_global(&mut message);
                    let text = encode_once(&ServerMessage::Chat(message));
                    for id in &to {
                        send_to(&self.players, id.as_ref(), text.clone());
                    }
                }
                Event::LocalChat { lines, heard } => {
                    let ts = now_ms();
                    let texts: Arc<[Arc<str>]> = lines
                        .into_iter()
                        .map(|mut message| {
                            message.ts = ts;
                            encoded(&ServerMessage::Chat(message))
                        })
                        .collect();
                    // One lookup and one entry per listener, holding its picks of the lines.
                    for listener in heard {
                        if let Some(record) = self.players.get(listener.to.as_ref()) {
                            record.pending.borrow_mut().push(Outbound::Picks {
                                texts: Arc::clone(&texts),
                                picks: listener.lines,
                            });
                        }
                    }
                }
                Event::Rejected {
                    to,
                    code,
                    message,
                    reference,
                } => {
                    let reference = reference.map(serde_json::Value::from);
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::error(code, message, reference)),
                    );
                }
                Event::Inventory { to, slots } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        character_state::mirror_inventory(&mut record.snapshot, &slots);
                        record.dirty = true;
                        let update = InventoryUpdate {
                            inventory: player_view::inventory_view(
                                &self.context.content,
                                &record.snapshot.inventory,
                            ),
                            coins: record.snapshot.character.coins,
                        };
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::InventoryUpdate(update)),
                        );
                    }
                }
                Event::Equipment { to, worn } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        let update = character_state::mirror_equipment(&mut record.snapshot, &worn);
                        record.dirty = true;
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::EquipmentUpdate(update)),
                        );
                    }
                }
                Event::Xp { to, skill, gain } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        let xp = character_state::mirror_xp(
                            &mut record.snapshot,
                            skill,
                            &gain,
                            now_ms(),
                        );
                        record.dirty = true;
                        send_to(&self.players, &to, Arc::new(ServerMessage::SkillXp(xp)));
                    }
                }
                Event::Stats { id, stats } => {
                    if let Some(record) = self.players.get_mut(&id) {
                        let level = record.snapshot.character.combat_level;
                        character_state::mirror_stats(&mut record.snapshot, &stats);
                        record.dirty = true;
                        if record.snapshot.character.combat_level != level {
                            self.presence.push(Presence::CombatLevel(
                                id,
                                record.snapshot.character.combat_level,
                            ));
                        }
                    }
                }
                Event::CombatHit { to, hit } => {
                    let text = encode_once(&ServerMessage::CombatHit(hit));
                    for id in &to {
                        send_to(&self.players, id, text.clone());
                    }
                }
                Event::PlayerDied {
                    id,
                    death_id,
                    tile,
                    items,
                    pvp,
                } => {
                    tracing::info!(character = %id, x = tile.x, z = tile.z, items = items.len(), pvp, "player died");
                    metrics::counter!("player_deaths_total").increment(1);
                    self.deaths.died(&id, death_id, tile, &items, pvp, now_ms());
                }
                Event::DeathItemTaken {
                    death_id,
                    by,
                    stack,
                } => self.deaths.taken(&death_id, &by, &stack),
                Event::DeathItemExpired { death_id, stack } => {
                    self.deaths.expired(&death_id, &stack)
                }
                Event::ItemFlows(flows) => {
                    for flow in &flows {
                        self.context.economy.flow(flow);
                    }
                }
                Event::Bank { to, items } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        let update = character_state::mirror_bank(&mut record.snapshot, &items);
                        record.dirty = true;
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::BankUpdate(update)),
                        );
                    }
                }
                Event::SaveNow { id } => {
                    if !save_now.contains(&id) {
                        save_now.push(id);
                    }
                }
                Event::Prayer {
                    to,
                    points,
                    max_points,
                    active,
                } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        record.snapshot.character.prayer_points = Some(i64::from(points));
                        record.dirty = true;
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::PrayerUpdate(PrayerUpdate {
                                points,
                                max_points,
                                active,
                            })),
                        );
                    }
                }
                Event::DialogueOpened { to, view } => {
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::DialogueOpen(view)),
                    );
                }
                Event::DialogueClosed { to, npc_id, reason } => {
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::DialogueClose(DialogueClose {
                            npc_id,
                            reason: reason.as_str().to_owned(),
                        })),
                    );
                }
                Event::QuestUpdated { to, record, count } => {
                    if let Some(record_of) = self.players.get_mut(&to) {
                        let update =
                            character_state::mirror_quest(&mut record_of.snapshot, &record, count);
                        record_of.dirty = true;
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::QuestUpdate(update)),
                        );
                    }
                }
                Event::QuestCompleted {
                    to,
                    quest_id,
                    rewards,
                    quest_points,
                } => {
                    tracing::info!(character = %to, quest = %quest_id, "quest completed");
                    metrics::counter!("quests_completed_total").increment(1);
                    let message = QuestComplete {
                        quest_id,
                        rewards: QuestRewards {
                            quest_points: rewards.quest_points,
                            items: rewards
                                .items
                                .into_iter()
                                .map(|(item_id, quantity)| RewardItem { item_id, quantity })
                                .collect(),
                            xp: rewards.xp.into_iter().collect(),
                        },
                        quest_points,
                    };
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::QuestComplete(message)),
                    );
                }
                Event::QuestList {
                    to,
                    quests,
                    quest_points,
                } => {
                    let list = QuestList {
                        quests: quests
                            .into_iter()
                            .map(|(quest_id, name, record)| QuestSummary {
                                quest_id,
                                name,
                                status: record
                                    .as_ref()
                                    .map_or("not_started", |r| r.status.as_str())
                                    .to_owned(),
                                stage_id: record.as_ref().and_then(|r| r.stage_id.clone()),
                                progress: record
                                    .as_ref()
                                    .filter(|r| r.stage_id.is_some())
                                    .map(|r| r.progress),
                            })
                            .collect(),
                        quest_points,
                    };
                    send_to(&self.players, &to, Arc::new(ServerMessage::QuestList(list)));
                }
                Event::MakeOptions { to, options } => {
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::MakeOptions(*options)),
                    );
                }
                Event::ShopOpened { to, view } => {
                    send_to(&self.players, &to, Arc::new(ServerMessage::ShopOpen(view)));
                }
                Event::ShopUpdated { to, view } => {
                    let message = Arc::new(ServerMessage::ShopUpdate(view));
                    for id in &to {
                        send_to(&self.players, id, message.clone());
                    }
                }
                Event::ShopClosed { to, store_id } => {
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::ShopClose(ShopClosed { store_id })),
                    );
                }
                Event::ShopTrade {
                    id,
                    store_id,
                    item_id,
                    quantity,
                    coins,
                    sold,
                } => {
                    tracing::info!(character = %id, store = %store_id, item = %item_id, quantity, coins, sold, "shop trade");
                    metrics::counter!("shop_trades_total", "kind" => if sold { "sale" } else { "purchase" }).increment(1);
                    self.context
                        .economy
                        .shop_trade(&item_id, quantity, coins, sold);
                }
                Event::NpcKilled { killer, npc_id } => {
                    metrics::counter!("npc_kills_total").increment(1);
                    self.deaths.killed(&killer, &npc_id, now_ms());
                }
                Event::Trade { to, message } => {
                    send_to(&self.players, &to, Arc::from(message));
                }
                Event::TradeCommit(commit) => self.commit_trade(&commit),
                Event::Left { id, tile } => {
                    if let Some(record) = self.players.get_mut(&id) {
                        record.snapshot.character.position[0] = f64::from(tile.x) + 0.5;
                        record.snapshot.character.position[2] = f64::from(tile.z) + 0.5;
                    }
                }
                Event::PlayerMoved { id, tile } => {
                    if let Some(record) = self.players.get_mut(&id) {
                        record.dirty = true;
                        record.snapshot.character.position[0] = f64::from(tile.x) + 0.5;
                        record.snapshot.character.position[2] = f64::from(tile.z) + 0.5;
                    }
                    self.presence.push(Presence::Moved(id, tile));
                }
            }
        }
        // Bank operations, purchases and sales are durable at once: the records they changed, as
        // this tick left them (inventory and bank), in one transaction.
        if !save_now.is_empty() {
            let mut job = SaveJob {
                on_failure: self.own_sender.clone().map(|s| (s, save_now.clone())),
                ..SaveJob::default()
            };
            for id in &save_now {
                // A record held by a committing trade is written by the trade's job (a drop's
                // due save then waits for it).
                if self.trades.is_held(id) {
                    continue;
                }
                if let Some(record) = self.players.get_mut(id) {
                    record.dirty = false;
                    let snapshot = record.snapshot.clone();
                    job.snapshots.push(self.finished_snapshot(snapshot));
                }
            }
            if !job.snapshots.is_empty() {
                metrics::counter!("character_saves_total").increment(job.snapshots.len() as u64);
                if self.send_job(job).is_err() {
                    tracing::error!(
                        "the save task has stopped; a bank or shop change could not be saved"
                    );
                }
            }
        }
        // Deaths and what left their piles: one transaction, with the records it concerns as they
        // stand after this tick (the dead emptied, the pickers holding what they took).
        if let Some((mut job, characters)) = self.deaths.take_job() {
            for id in characters {
                if let Some(record) = self.players.get(&id) {
                    job.snapshots
                        .push(self.finished_snapshot(record.snapshot.clone()));
                }
            }
            if self.send_job(job).is_err() {
                tracing::error!("the save task has stopped; a death could not be recorded");
            }
        }
        for (to, message) in std::mem::take(&mut self.notices) {
            let text = encode_once(&message);
            for id in &to {
                send_to(&self.players, id, text.clone());
            }
        }
        self.flush_pending(&mut slow);
        // Players who left while trading and whose trade ended without committing.
        self.settle_deferred();
        // A client whose queue stays full is dropped; the tick never waits for it.
        for id in slow {
            if let Some(record) = self.players.get(&id) {
                tracing::warn!(character = %id, "outbound queue full: disconnecting a slow client");
                metrics::counter!("ws_slow_client_disconnects_total").increment(1);
                // The close travels out of band: the queue is full, so a closed channel is the signal.
                let _ = record.outbound.try_send(Outbound::Close(1008, TOO_SLOW));
            }
            if let Some(session_id) = self.players.get(&id).map(|r| r.session_id.clone()) {
                self.leave(&id, &session_id, "slow_client", None);
            }
        }
    }

    /// Queues each player's messages of this dispatch as one batch, without waiting; a full queue
    /// marks the player slow (the tick never waits for a client).
    pub(super) fn flush_pending(&self, slow: &mut Vec<String>) {
        let mut woken = Vec::new();
        for (id, record) in &self.players {
            let mut pending = record.pending.borrow_mut();
            let message = match pending.len() {
                0 => continue,
                // Taken, not popped: the emptied Vec would keep its room in every idle record.
                1 => std::mem::take(&mut *pending).pop(),
                // A busy player's next batch is likely about as long: room for it now saves
                // growing the list step by step (in a chatting crowd, ~40 messages a tick).
                n => Some(Outbound::Batch(std::mem::replace(
                    &mut *pending,
                    Vec::with_capacity(n),
                ))),
            };
            if let Some(message) = message {
                match record.outbound.try_send_unwoken(message) {
                    Ok(()) => woken.push(record.outbound.waker()),
                    Err(TrySendError::Full) => slow.push(id.clone()),
                    // A closed queue is a connection already leaving (its `Leave` is on the way),
                    // not a slow one.
                    Err(TrySendError::Closed) => {}
                }
            }
        }
        self.wake(woken);
    }

    /// Wakes the connections whose batches were queued, from the runtime when there is one (see
    /// [`OutboundSender::try_send_unwoken`]), else here.
    pub(super) fn wake(&self, wakers: Vec<OutboundWaker>) {
        if wakers.is_empty() {
            return;
        }
        let unsent = match &self.wakes {
            Some(wakes) => match wakes.send(wakers) {
                Ok(()) => return,
                Err(unsent) => unsent.0,
            },
            None => wakers,
        };
        for waker in unsent {
            waker.wake();
        }
    }
}
