//! What the world thread does with the sim's events besides telling players (that is
//! `messages.rs`): mirroring them into the records it saves, presence for REST, the death book,
//! the economy audit, metrics and logs, relaying global chat to the other worlds, committing
//! trades, and noting the records to save at once. Called by the dispatch (`routing.rs`) for each
//! event before its messages are delivered, so a notice it sends (an unrelayed global line) comes
//! before the line itself.

use wayfarer_sim::Event;

use crate::character_state;
use crate::online::Presence;

use super::messages::{to_relay, Reading};
use super::routing::send_to;
use super::Runner;

impl Runner {
    /// Does what `event` asks of the world thread's books; the records a bank operation,
    /// purchase or sale changed are added to `save_now` (once each).
    pub(super) fn keep_books(
        &mut self,
        event: &Event,
        reading: &Reading,
        save_now: &mut Vec<String>,
    ) {
        match event {
            Event::Chat { message, .. } | Event::ChatToAll { message, .. } => {
                if let Some(line) = to_relay(message, reading) {
                    self.relay_global(line);
                }
            }
            Event::Inventory { to, slots } => {
                if let Some(record) = self.players.get_mut(to) {
                    character_state::mirror_inventory(&mut record.snapshot, slots);
                    record.dirty = true;
                }
            }
            Event::Equipment { to, worn } => {
                if let Some(record) = self.players.get_mut(to) {
                    character_state::mirror_equipment(&mut record.snapshot, worn);
                    record.dirty = true;
                }
            }
            Event::Xp { to, skill, gain } => {
                if let Some(record) = self.players.get_mut(to) {
                    character_state::mirror_xp(&mut record.snapshot, *skill, gain, reading.now_ms);
                    record.dirty = true;
                }
            }
            Event::Stats { id, stats } => {
                if let Some(record) = self.players.get_mut(id) {
                    let level = record.snapshot.character.combat_level;
                    character_state::mirror_stats(&mut record.snapshot, stats);
                    record.dirty = true;
                    let now = record.snapshot.character.combat_level;
                    if now != level {
                        self.presence.push(Presence::CombatLevel(id.clone(), now));
                    }
                }
            }
            Event::Bank { to, items } => {
                if let Some(record) = self.players.get_mut(to) {
                    character_state::mirror_bank(&mut record.snapshot, items);
                    record.dirty = true;
                }
            }
            Event::Prayer { to, points, .. } => {
                if let Some(record) = self.players.get_mut(to) {
                    record.snapshot.character.prayer_points = Some(i64::from(*points));
                    record.dirty = true;
                }
            }
            Event::QuestUpdated { to, record, .. } => {
                if let Some(of) = self.players.get_mut(to) {
                    character_state::mirror_quest(&mut of.snapshot, record);
                    of.dirty = true;
                }
            }
            Event::QuestCompleted { to, quest_id, .. } => {
                tracing::info!(character = %to, quest = %quest_id, "quest completed");
                metrics::counter!("quests_completed_total").increment(1);
            }
            Event::PlayerDied {
                id,
                death_id,
                tile,
                items,
                pvp,
                ..
            } => {
                tracing::info!(character = %id, x = tile.x, z = tile.z, items = items.len(), pvp, "player died");
                metrics::counter!("player_deaths_total").increment(1);
                if let Some(tally) = self.tally.as_mut() {
                    tally.entry(id.clone()).or_default().deaths += 1;
                }
                self.deaths
                    .died(id, death_id.clone(), *tile, items, *pvp, reading.now_ms);
            }
            Event::DeathItemTaken {
                death_id,
                by,
                stack,
            } => self.deaths.taken(death_id, by, stack),
            Event::DeathItemExpired { death_id, stack } => self.deaths.expired(death_id, stack),
            Event::NpcKilled { killer, npc_id } => {
                metrics::counter!("npc_kills_total").increment(1);
                if let Some(tally) = self.tally.as_mut() {
                    *tally
                        .entry(killer.clone())
                        .or_default()
                        .kills
                        .entry(npc_id.clone())
                        .or_default() += 1;
                }
                self.deaths.killed(killer, npc_id, reading.now_ms);
            }
            Event::ItemFlows(flows) => {
                for flow in flows {
                    self.context.economy.flow(flow);
                }
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
                let kind = if *sold { "sale" } else { "purchase" };
                metrics::counter!("shop_trades_total", "kind" => kind).increment(1);
                self.context
                    .economy
                    .shop_trade(item_id, *quantity, *coins, *sold);
            }
            Event::SaveNow { id } => {
                if !save_now.contains(id) {
                    save_now.push(id.clone());
                }
            }
            Event::TradeCommit(commit) => self.commit_trade(commit),
            Event::DuelCommit(commit) => self.commit_duel(commit),
            Event::Left { id, tile } => {
                if let Some(record) = self.players.get_mut(id) {
                    character_state::mirror_tile(&mut record.snapshot, *tile);
                }
            }
            Event::PlayerMoved { id, tile } => {
                if let Some(record) = self.players.get_mut(&**id) {
                    record.dirty = true;
                    character_state::mirror_tile(&mut record.snapshot, *tile);
                    record.tile.set(*tile);
                }
            }
            Event::HomeTeleport {
                to,
                status: wayfarer_sim::HomeTeleportStatus::Arrived,
                cooldown_ticks,
            } => {
                if let Some(record) = self.players.get_mut(to) {
                    // Game time (ticks of `TICK_MS`), which `character_state::joining` turns
                    // back into ticks: 30 minutes wherever the server's tick is 600 ms.
                    let ms = i64::try_from(*cooldown_ticks)
                        .unwrap_or(i64::MAX)
                        .saturating_mul(wayfarer_content::ticks::TICK_MS as i64);
                    record.snapshot.character.home_teleport_ready_at_ms =
                        Some(reading.now_ms.saturating_add(ms));
                    record.dirty = true;
                }
            }
            // Messages only (`messages.rs`).
            Event::HomeTeleport { .. }
            | Event::RejectedWait { .. }
            | Event::Emote { .. }
            | Event::View { .. }
            | Event::LocalChat { .. }
            | Event::Rejected { .. }
            | Event::CombatHit { .. }
            | Event::DialogueOpened { .. }
            | Event::DialogueClosed { .. }
            | Event::QuestList { .. }
            | Event::MakeOptions { .. }
            | Event::ShopOpened { .. }
            | Event::ShopUpdated { .. }
            | Event::ShopClosed { .. }
            | Event::Exchange { .. }
            | Event::Arena { .. }
            | Event::Zone { .. } => {}
        }
    }

    /// Hands a global line said here to the relay to the other worlds (`CROSS_WORLD_GLOBAL_CHAT`),
    /// never waiting on it; the sender of a line that cannot be queued is told at once.
    fn relay_global(&self, line: wayfarer_protocol::ws::ChatMessage) {
        let Some(relay) = &self.context.global_chat else {
            return;
        };
        let from = line.from_id.clone();
        if !relay.offer(line) {
            send_to(
                &self.players,
                &from,
                crate::cluster::global_chat::unrelayed(),
            );
        }
    }
}
