//! What each of the sim's events tells whom: pure functions from an [`Event`] (and the little
//! they read: item names from content, the time of sending, this world's id) to the
//! `ServerMessage`s of its recipients. Nothing here touches a record, a metric, the store or a
//! socket: `routing.rs` delivers what [`messages`] returns, `bookkeeping.rs` does the rest of what
//! an event asks (mirroring it into records, counting it, relaying it), so a wire message is
//! written in exactly one place and can be tested without a server.

use std::sync::Arc;

use wayfarer_content::Content;
use wayfarer_protocol::duel::{
    reasons as duel_reasons, DuelCancelled, DuelError, DuelIncoming, DuelResult, DuelRules,
    DuelStake, DuelStart, StakeItem,
};
use wayfarer_protocol::trade::{
    reasons, Offer, OfferItem, ReceivedItem, TradeCancelled, TradeCompleted, TradeConfirmScreen,
    TradeError, TradeIncoming, TradeStarted, TradeUpdated, TradeValues,
};
use wayfarer_protocol::ws::{
    BankItem, BankUpdate, ChatChannel, ChatMessage, DeathItem, DialogueClose, EquipmentUpdate,
    EquippedItem, ErrorMessage, Gravestone, HomeTeleportNotice, InventorySlot, InventoryUpdate,
    PlayerDeath, PlayerEmote, PrayerUpdate, QuestComplete, QuestList, QuestRewards, QuestSummary,
    QuestUpdate, RewardItem, ServerMessage, ShopClosed, SkillXp,
};
use wayfarer_sim::equipment::slot_name;
use wayfarer_sim::exchange::{Ending, ExchangeKind, Notice, Offered, Side};
use wayfarer_sim::inventory::Stack;
use wayfarer_sim::{Event, Heard, HomeTeleportStatus};

use crate::character_state::item_name;
use crate::player_view::COINS_ITEM;

/// What a message reads besides its event.
#[derive(Clone, Copy)]
pub struct Reading<'a> {
    /// Item names (an inventory's lines).
    pub content: &'a Content,
    /// The time of sending, stamped on chat lines (the sim reads no clock).
    pub now_ms: i64,
    /// The tick length, turning the sim's tick counts into times (a gravestone's expiry).
    pub tick_ms: i64,
    /// This world's id, which the global lines said here carry when global chat crosses worlds
    /// (`CROSS_WORLD_GLOBAL_CHAT`); `None` otherwise.
    pub world_id: Option<i64>,
}

/// Several players' ids, as the event names them.
#[derive(Debug, Clone, PartialEq)]
pub enum Recipients {
    Ids(Vec<String>),
    /// Shared with the world's player records (a line heard by hundreds names each of them).
    Shared(Vec<Arc<str>>),
}

impl Recipients {
    /// Calls `f` with each recipient's id, in order.
    pub fn each(&self, mut f: impl FnMut(&str)) {
        match self {
            Recipients::Ids(ids) => ids.iter().for_each(|id| f(id)),
            Recipients::Shared(ids) => ids.iter().for_each(|id| f(id)),
        }
    }
}

/// The messages of one event, by recipient.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    /// The event tells no player anything (it is for the books only).
    Nothing,
    /// A message for one player.
    One {
        to: Arc<str>,
        message: ServerMessage,
    },
    /// One message for several players (the router encodes it once for all). Never an `error`
    /// or `tradeError`: those are one player's, whose `ref` its connection restores.
    Many {
        to: Recipients,
        message: ServerMessage,
    },
    /// One message for everyone the router holds a record of (the world's players, and those
    /// leaving in this tick), but the players in `except` (the router encodes it once).
    Everyone {
        except: Vec<Arc<str>>,
        message: ServerMessage,
    },
    /// A tick's local chat: the lines in the order spoken, and which lines each listener heard
    /// (the router encodes each line once and gives each listener its picks).
    Lines {
        lines: Vec<ServerMessage>,
        heard: Vec<Heard>,
    },
}

/// What `event` tells whom.
pub fn messages(event: Event, reading: &Reading) -> Delivery {
    // A view's recipient is the player's shared id; the other events' own Strings become one.
    let one = |to: String, message: ServerMessage| Delivery::One {
        to: to.into(),
        message,
    };
    match event {
        Event::View { to, update } => Delivery::One {
            to,
            message: ServerMessage::WorldUpdate(update),
        },
        Event::Chat { to, message } => Delivery::Many {
            to: Recipients::Shared(to),
            message: ServerMessage::Chat(stamped(message, reading)),
        },
        Event::ChatToAll { except, message } => Delivery::Everyone {
            except,
            message: ServerMessage::Chat(stamped(message, reading)),
        },
        Event::LocalChat { lines, heard } => Delivery::Lines {
            lines: lines
                .into_iter()
                .map(|line| ServerMessage::Chat(stamped(line, reading)))
                .collect(),
            heard,
        },
        Event::Rejected {
            to,
            code,
            message,
            reference,
        } => one(
            to,
            ServerMessage::error(code, message, reference.map(serde_json::Value::from)),
        ),
        Event::RejectedWait {
            to,
            code,
            message,
            remaining_seconds,
            reference,
        } => one(
            to,
            ServerMessage::Error(ErrorMessage {
                code: code.to_owned(),
                message,
                reference: reference.map(serde_json::Value::from),
                remaining_seconds: Some(remaining_seconds),
            }),
        ),
        Event::HomeTeleport {
            to,
            status,
            cooldown_ticks,
        } => {
            // Game time (ticks of `TICK_MS`), as the sim and the record count the cooldown.
            let cooldown_ms = cooldown_ticks.saturating_mul(wayfarer_content::ticks::TICK_MS);
            one(
                to,
                ServerMessage::HomeTeleport(HomeTeleportNotice {
                    status: status.as_str().to_owned(),
                    cast_ticks: (status == HomeTeleportStatus::Casting)
                        .then_some(wayfarer_sim::HOME_CAST_TICKS as u32),
                    cooldown_seconds: cooldown_ms.div_ceil(1000),
                }),
            )
        }
        Event::Emote {
            to,
            player_id,
            emote,
        } => Delivery::Many {
            to: Recipients::Ids(to),
            message: ServerMessage::PlayerEmote(PlayerEmote {
                player_id,
                emote: emote.to_owned(),
            }),
        },
        Event::Inventory { to, slots } => {
            let update = inventory_update(reading.content, &slots);
            one(to, ServerMessage::InventoryUpdate(update))
        }
        Event::Equipment { to, worn } => {
            let equipment = worn
                .into_iter()
                .map(|(slot, stack)| {
                    let item = EquippedItem {
                        item_id: stack.item_id,
                        quantity: i64::from(stack.quantity),
                    };
                    (slot_name(slot).to_owned(), item)
                })
                .collect();
            one(
                to,
                ServerMessage::EquipmentUpdate(EquipmentUpdate { equipment }),
            )
        }
        Event::Xp { to, skill, gain } => one(
            to,
            ServerMessage::SkillXp(SkillXp {
                skill,
                xp_gained: f64::from(gain.gained.tenths()) / 10.0,
                xp: i64::from(gain.xp.points()),
                level: i64::from(gain.level),
                leveled_up: gain.leveled_up,
            }),
        ),
        Event::CombatHit { to, hit } => Delivery::Many {
            to: Recipients::Ids(to),
            message: ServerMessage::CombatHit(hit),
        },
        Event::Bank { to, items } => {
            let items = items
                .into_iter()
                .map(|s| BankItem {
                    item_id: s.item_id,
                    quantity: u64::from(s.quantity),
                })
                .collect();
            one(to, ServerMessage::BankUpdate(BankUpdate { items }))
        }
        Event::Prayer {
            to,
            points,
            max_points,
            active,
        } => one(
            to,
            ServerMessage::PrayerUpdate(PrayerUpdate {
                points,
                max_points,
                active,
            }),
        ),
        Event::DialogueOpened { to, view } => one(to, ServerMessage::DialogueOpen(view)),
        Event::DialogueClosed { to, npc_id, reason } => one(
            to,
            ServerMessage::DialogueClose(DialogueClose {
                npc_id,
                reason: reason.as_str().to_owned(),
            }),
        ),
        Event::QuestUpdated { to, record, count } => one(
            to,
            ServerMessage::QuestUpdate(QuestUpdate {
                quest_id: record.quest_id,
                status: record.status.as_str().to_owned(),
                stage_id: record.stage_id,
                progress: record.progress,
                count,
            }),
        ),
        Event::QuestCompleted {
            to,
            quest_id,
            rewards,
            quest_points,
        } => one(
            to,
            ServerMessage::QuestComplete(QuestComplete {
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
            }),
        ),
        Event::QuestList {
            to,
            quests,
            quest_points,
        } => {
            let quests = quests
                .into_iter()
                .map(|(quest_id, name, record)| QuestSummary {
                    quest_id,
                    name,
                    status: record
                        .as_ref()
                        .map(|r| r.status)
                        .unwrap_or_default()
                        .as_str()
                        .to_owned(),
                    progress: record
                        .as_ref()
                        .filter(|r| r.stage_id.is_some())
                        .map(|r| r.progress),
                    stage_id: record.and_then(|r| r.stage_id),
                })
                .collect();
            one(
                to,
                ServerMessage::QuestList(QuestList {
                    quests,
                    quest_points,
                }),
            )
        }
        Event::MakeOptions { to, options } => one(to, ServerMessage::MakeOptions(*options)),
        Event::ShopOpened { to, view } => one(to, ServerMessage::ShopOpen(view)),
        Event::ShopUpdated { to, view } => Delivery::Many {
            to: Recipients::Ids(to),
            message: ServerMessage::ShopUpdate(view),
        },
        Event::ShopClosed { to, store_id } => {
            one(to, ServerMessage::ShopClose(ShopClosed { store_id }))
        }
        Event::Exchange {
            to,
            kind,
            id,
            notice,
        } => one(to, exchange_message(kind, id, notice, reading.content)),
        Event::Zone { to, zone } => one(to, ServerMessage::ZoneEnter(zone)),
        Event::Arena { to, notice } => one(to, arena_message(notice, reading)),
        Event::PlayerDied {
            id,
            tile,
            items,
            kept,
            killer,
            respawn,
            gravestone_ticks,
            ..
        } => {
            let listed = |stacks: Vec<wayfarer_sim::inventory::Stack>| -> Vec<DeathItem> {
                crate::deaths::merge(&stacks)
                    .into_iter()
                    .map(|i| DeathItem {
                        item_id: i.item_id,
                        quantity: u64::try_from(i.quantity).unwrap_or(0),
                    })
                    .collect()
            };
            let (killer_id, killer_name) = killer.unzip();
            let gravestone = gravestone_ticks.map(|ticks| Gravestone {
                x: tile.x,
                z: tile.z,
                expires_at: reading.now_ms.saturating_add(
                    i64::try_from(ticks)
                        .unwrap_or(i64::MAX)
                        .saturating_mul(reading.tick_ms),
                ),
            });
            one(
                id,
                ServerMessage::PlayerDeath(PlayerDeath {
                    killer_id,
                    killer_name,
                    kept: listed(kept),
                    lost: listed(items),
                    gravestone,
                    respawn,
                }),
            )
        }
        // For the books only: records, saves, the economy audit, deaths, presence, metrics.
        Event::Stats { .. }
        | Event::ItemFlows(_)
        | Event::PlayerMoved { .. }
        | Event::Left { .. }
        | Event::NpcKilled { .. }
        | Event::DeathItemTaken { .. }
        | Event::DeathItemExpired { .. }
        | Event::TradeCommit(_)
        | Event::DuelCommit(_)
        | Event::SaveNow { .. }
        | Event::ShopTrade { .. } => Delivery::Nothing,
    }
}

/// A chat line as it is sent: stamped with the time of sending, and a global line said in this
/// world with this world's id when global chat crosses worlds (a line heard from another world
/// already carries its own).
pub fn stamped(mut line: ChatMessage, reading: &Reading) -> ChatMessage {
    line.ts = reading.now_ms;
    if line.channel == ChatChannel::Global && line.world.is_none() {
        line.world = reading.world_id;
    }
    line
}

/// The line other worlds get of `line`: a global line said in this world, as it is sent here;
/// `None` for any other line (or when global chat stays in this world).
pub fn to_relay(line: &ChatMessage, reading: &Reading) -> Option<ChatMessage> {
    let said_here = line.channel == ChatChannel::Global && line.world.is_none();
    (said_here && reading.world_id.is_some()).then(|| stamped(line.clone(), reading))
}

/// A trade's or a duel's message: what the exchange's [`Notice`] says, in the kind's words, with
/// item names and values from content.
fn exchange_message(
    kind: ExchangeKind,
    id: Option<String>,
    notice: Notice,
    content: &Content,
) -> ServerMessage {
    let refused = id.clone();
    let id = id.unwrap_or_default();
    let duel = kind == ExchangeKind::Duel;
    match notice {
        Notice::Asked { from, from_name } if duel => ServerMessage::DuelIncoming(DuelIncoming {
            duel_id: id,
            from_player_id: from,
            from_player_name: from_name,
        }),
        Notice::Asked { from, from_name } => ServerMessage::TradeIncoming(TradeIncoming {
            trade_id: id,
            from_player_id: from,
            from_player_name: from_name,
        }),
        Notice::Opened {
            partner,
            partner_name,
        } => ServerMessage::TradeStarted(TradeStarted {
            trade_id: id,
            partner_id: partner,
            partner_name,
        }),
        Notice::Screen(screen) if duel => ServerMessage::DuelRules(DuelRules {
            duel_id: id,
            opponent_id: screen.partner,
            opponent_name: screen.partner_name,
            screen: screen.number,
            rules: screen.rules.names(),
            my_stake: stake(content, &screen.mine),
            their_stake: stake(content, &screen.theirs),
        }),
        Notice::Screen(screen) if screen.number == 2 => {
            ServerMessage::TradeConfirmScreen(TradeConfirmScreen {
                trade_id: id,
                values: TradeValues {
                    mine: offer_value(content, &screen.mine),
                    theirs: offer_value(content, &screen.theirs),
                },
                my_offer: offer(content, &screen.mine),
                their_offer: offer(content, &screen.theirs),
            })
        }
        Notice::Screen(screen) => ServerMessage::TradeUpdated(TradeUpdated {
            trade_id: id,
            my_offer: offer(content, &screen.mine),
            their_offer: offer(content, &screen.theirs),
        }),
        Notice::Fight {
            opponent,
            rules,
            arena_id,
            tile,
        } => ServerMessage::DuelStart(DuelStart {
            duel_id: id,
            opponent_id: opponent,
            rules: rules.names(),
            arena_id,
            tile,
        }),
        Notice::Traded { received } => ServerMessage::TradeCompleted(TradeCompleted {
            trade_id: id,
            received_items: received_items(&received),
        }),
        Notice::Decided {
            winner,
            loser,
            received,
        } => ServerMessage::DuelResult(DuelResult {
            duel_id: id,
            winner_id: winner,
            loser_id: loser,
            received_items: received_items(&received),
        }),
        Notice::Cancelled { reason, by } => {
            let reason = ending_name(reason).to_owned();
            if duel {
                ServerMessage::DuelCancelled(DuelCancelled {
                    duel_id: id,
                    reason,
                    by_player_id: by,
                })
            } else {
                ServerMessage::TradeCancelled(TradeCancelled {
                    trade_id: id,
                    reason,
                    by_player_id: by,
                })
            }
        }
        Notice::Refused {
            code,
            message,
            reference,
        } => {
            let (code, reference) = (code.to_owned(), reference.map(serde_json::Value::from));
            if duel {
                ServerMessage::DuelError(DuelError {
                    duel_id: refused,
                    code,
                    message,
                    reference,
                })
            } else {
                ServerMessage::TradeError(TradeError {
                    code,
                    message,
                    trade_id: refused,
                    reference,
                })
            }
        }
    }
}

/// The wire reason of an ending (`tradeCancelled`, `duel:cancelled`).
fn ending_name(ending: Ending) -> &'static str {
    match ending {
        Ending::Declined => reasons::DECLINED,
        Ending::Cancelled => reasons::CANCELLED,
        Ending::Timeout => reasons::TIMEOUT,
        Ending::Disconnected => reasons::DISCONNECTED,
        Ending::PlayerDied => reasons::PLAYER_DIED,
        Ending::ServerError => reasons::SERVER_ERROR,
        Ending::Draw => duel_reasons::DRAW,
    }
}

/// What an entry is worth at content's value (saturating).
fn worth(content: &Content, entry: &Offered) -> i64 {
    let each = content
        .items
        .get(entry.item_id.as_str())
        .map_or(0, |i| i.value);
    i64::try_from(each.saturating_mul(u64::from(entry.quantity))).unwrap_or(i64::MAX)
}

/// A trade side as `tradeUpdated` and `tradeConfirmScreen` show it.
fn offer(content: &Content, side: &Side) -> Offer {
    Offer {
        items: side
            .items
            .iter()
            .map(|o| OfferItem {
                inventory_slot: slot_number(o),
                item_id: o.item_id.clone(),
                name: item_name(content, &o.item_id),
                quantity: i64::from(o.quantity),
            })
            .collect(),
        accepted: side.accepted,
    }
}

/// What a trade side is worth in all (`tradeConfirmScreen`'s values).
fn offer_value(content: &Content, side: &Side) -> i64 {
    side.items
        .iter()
        .map(|o| worth(content, o))
        .fold(0, i64::saturating_add)
}

/// A duel side as `duel:rules` shows it: a trade side's lines with each entry's value, and the
/// stake's.
fn stake(content: &Content, side: &Side) -> DuelStake {
    let lines = offer(content, side).items.into_iter().zip(&side.items);
    let items: Vec<StakeItem> = lines
        .map(|(line, entry)| StakeItem {
            value: worth(content, entry),
            inventory_slot: line.inventory_slot,
            item_id: line.item_id,
            name: line.name,
            quantity: line.quantity,
        })
        .collect();
    DuelStake {
        value: items.iter().map(|i| i.value).fold(0, i64::saturating_add),
        items,
        accepted: side.accepted,
    }
}

/// An entry's inventory slot (below `INVENTORY_SLOTS`: it was put up from one).
fn slot_number(entry: &Offered) -> u8 {
    u8::try_from(entry.slot).unwrap_or(u8::MAX)
}

/// What was received, stacks of the same item added together in first-seen order.
fn received_items(stacks: &[Stack]) -> Vec<ReceivedItem> {
    crate::deaths::merge(stacks)
        .into_iter()
        .map(|i| ReceivedItem {
            item_id: i.item_id,
            quantity: i.quantity,
        })
        .collect()
}

/// `inventory:update` of the occupied slots (in slot order), with item names and the coins held.
fn inventory_update(
    content: &Content,
    slots: &[(u8, wayfarer_sim::inventory::Stack)],
) -> InventoryUpdate {
    InventoryUpdate {
        inventory: slots
            .iter()
            .map(|(slot, stack)| InventorySlot {
                slot: *slot,
                item_id: stack.item_id.clone(),
                name: item_name(content, &stack.item_id),
                quantity: i64::from(stack.quantity),
            })
            .collect(),
        coins: slots
            .iter()
            .filter(|(_, stack)| stack.item_id == COINS_ITEM)
            .map(|(_, stack)| i64::from(stack.quantity))
            .sum(),
    }
}

impl Delivery {
    /// Every recipient with each message it gets, in order (what the router's batches hold),
    /// when the router holds the records of `records` (whom [`Delivery::Everyone`] reaches).
    #[cfg(test)]
    pub fn per_recipient(self, records: &[&str]) -> Vec<(String, ServerMessage)> {
        let mut out = Vec::new();
        match self {
            Delivery::Nothing => {}
            Delivery::One { to, message } => out.push((to.to_string(), message)),
            Delivery::Many { to, message } => {
                to.each(|id| out.push((id.to_owned(), message.clone())))
            }
            Delivery::Everyone { except, message } => {
                for id in records {
                    if !except.iter().any(|e| &**e == *id) {
                        out.push((id.to_string(), message.clone()));
                    }
                }
            }
            Delivery::Lines { lines, heard } => {
                for listener in heard {
                    for pick in listener.lines {
                        if let Some(line) = lines.get(pick as usize) {
                            out.push((listener.to.to_string(), line.clone()));
                        }
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;

/// A ladder notice as its `arena:*` message.
fn arena_message(notice: wayfarer_sim::ArenaNotice, reading: &Reading) -> ServerMessage {
    use wayfarer_protocol::arena as wire;
    use wayfarer_sim::ArenaNotice as N;
    match notice {
        N::Queued { position, rating } => ServerMessage::ArenaQueued(wire::ArenaQueued {
            position: u32::try_from(position).unwrap_or(u32::MAX),
            rating: rating.rating,
        }),
        N::Matched {
            fight_id,
            opponent_id,
            opponent_name,
            opponent_rating,
            starts_in_ticks,
            ..
        } => ServerMessage::ArenaMatch(wire::ArenaMatch {
            fight_id,
            opponent_id,
            opponent_name,
            opponent_rating: opponent_rating.rating,
            starts_at: reading.now_ms.saturating_add(
                i64::try_from(starts_in_ticks)
                    .unwrap_or(i64::MAX)
                    .saturating_mul(reading.tick_ms),
            ),
        }),
        N::Cancelled { fight_id, reason } => ServerMessage::ArenaCancelled(wire::ArenaCancelled {
            fight_id,
            reason: reason.to_owned(),
        }),
        N::Left => ServerMessage::ArenaLeft(wire::ArenaLeft {}),
        N::Result(outcome) => ServerMessage::ArenaResult(wire::ArenaResult {
            fight_id: outcome.fight_id.clone(),
            winner_id: outcome.winner.clone(),
            loser_id: outcome.loser.clone(),
            ratings: (0..2)
                .map(|side| {
                    (
                        outcome.players[side].clone(),
                        wire::RatingChange {
                            before: outcome.before[side].rating,
                            after: outcome.after[side].rating,
                        },
                    )
                })
                .collect(),
        }),
    }
}
