//! Talking to NPCs (`interact`) and their dialogue trees (CONTRACT.md section 8).
//!
//! An NPC with a `dialogue` opens it: the entry node (or the quest override for the player's quest
//! status) is sent as `dialogue:open` with the responses whose conditions hold, numbered by their
//! index in the node as written. `dialogue:respond` re-checks the chosen response, runs its effects
//! and shows the next node; a node without responses to show is sent and the dialogue ends at once
//! (`dialogue:close` `end`). Effects run on the server: `openBank`, `openStore`, `openTanner`,
//! `startQuest`, `completeQuest`, `giveItem`/`takeItem` (one inventory transaction for a response's
//! item effects) and `teleport`. If an effect is refused (a quest's requirements, no room, items
//! missing) the effects after it do not run and the dialogue ends.
//!
//! The dialogue closes when the player is more than [`DIALOGUE_RANGE_TILES`] from the NPC
//! (`walked_away`), fights or is attacked (`combat`), trades (`trade`), dies (`died`), the NPC is
//! gone (`walked_away`), or the client closes it (`client`). An NPC without a dialogue says nothing
//! but its services: a banker opens the bank, a shopkeeper its store, a priest prays with you, a
//! tanner offers its tanning (`make:options`).

use wayfarer_content::{Condition, DialogueNode, Effect, QuestStatus};
use wayfarer_protocol::text::quoted;
use wayfarer_protocol::ws::{codes, DialogueChoice, DialogueOpen, EntityKind, TilePos};

use crate::actions::{Flow, Intent};
use crate::entities::Handle;
use crate::events::Event;
use crate::flows::FlowKind;
use crate::quests::Trigger;
use crate::world::World;

/// How far (Chebyshev) a player may stand from the NPC before the dialogue closes.
pub const DIALOGUE_RANGE_TILES: u32 = 2;

/// The dialogue a player has open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpenDialogue {
    /// The NPC's entity.
    pub npc: Handle,
    /// Its wire id (`npc-12`).
    pub entity_id: String,
    /// Its content id (`old_marta`).
    pub npc_id: String,
    /// The node shown.
    pub node_id: String,
    /// The indices of the responses shown.
    pub shown: Vec<u32>,
}

/// Why a dialogue closed (the wire's `reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    /// A node without responses was reached (or an effect ended it).
    End,
    /// The player walked more than 2 tiles away (or the NPC is gone).
    WalkedAway,
    /// The player fights or is attacked.
    Combat,
    /// The player is trading.
    Trade,
    /// The player died.
    Died,
    /// The client closed it.
    Client,
}

impl CloseReason {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            CloseReason::End => "end",
            CloseReason::WalkedAway => "walked_away",
            CloseReason::Combat => "combat",
            CloseReason::Trade => "trade",
            CloseReason::Died => "died",
            CloseReason::Client => "client",
        }
    }
}

impl World {
    /// Player `index`, next to the intent's NPC (or altar), talks to it.
    pub(crate) fn interact(
        &mut self,
        index: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let Some(body) = self.entities.get(intent.target) else {
            return Flow::Done;
        };
        if body.wire.kind == EntityKind::Obstacle {
            return self.cross_obstacle(index, intent, events);
        }
        if body.wire.kind == EntityKind::Resource {
            if body.wire.resource_type.as_deref() == Some(crate::prayer::ALTAR) {
                self.pray_at_altar(index, events);
            } else if !self.offer_station(index, intent.target, events) {
                let id = self.players[index].id.clone();
                Self::reject(
                    &id,
                    codes::INVALID_TARGET,
                    "you cannot talk to that",
                    intent.reference,
                    events,
                );
            }
            return Flow::Done;
        }
        let name = body.wire.name.clone().unwrap_or_else(|| "They".into());
        let npc_id = body.wire.type_id.clone().unwrap_or_default();
        let entity_id = body.wire.id.clone();
        let content = self.content.clone();
        let npc = content.npcs.get(npc_id.as_str());
        self.quest_trigger(index, Trigger::Talk(&npc_id), events);
        if let Some(dialogue) = npc.and_then(|n| n.dialogue.as_ref()) {
            let entry = self.entry_node(index, dialogue);
            self.players[index].dialogue = Some(Box::new(OpenDialogue {
                npc: intent.target,
                entity_id,
                npc_id,
                node_id: entry.clone(),
                shown: Vec::new(),
            }));
            self.show_node(index, &entry, events);
            return Flow::Done;
        }
        // No dialogue: the NPC's services speak for it.
        self.narrate(index, crate::game_messages::nothing_to_say(&name), events);
        if self
            .npcs
            .iter()
            .any(|n| n.handle == intent.target && self.is_banker(n))
        {
            self.players[index].dirty.bank = true;
        }
        let priest = npc.is_some_and(|n| n.services.iter().any(|s| s == crate::prayer::ALTAR));
        if priest {
            self.pray_at_altar(index, events);
        }
        if let Some(store_id) = self.store_of(intent.target) {
            self.open_shop(index, intent.target, store_id, events);
        }
        if npc.is_some_and(|n| n.tans_hides()) {
            self.offer_station(index, intent.target, events);
        }
        Flow::Done
    }

    /// The entry node for player `index`: a quest override for the player's status (checked
    /// ready-to-complete, then in-progress, then completed; the first quest that matches), else the
    /// tree's entry node.
    fn entry_node(&self, index: usize, dialogue: &wayfarer_content::Dialogue) -> String {
        for status in [
            QuestStatus::ReadyToComplete,
            QuestStatus::InProgress,
            QuestStatus::Completed,
        ] {
            for (quest, over) in &dialogue.quest_overrides {
                if self.quest_status(index, quest) != status {
                    continue;
                }
                let node = match status {
                    QuestStatus::ReadyToComplete => &over.ready_to_complete,
                    QuestStatus::InProgress => &over.in_progress,
                    _ => &over.completed,
                };
                if let Some(node) = node {
                    return node.clone();
                }
            }
        }
        dialogue.entry_node_id.clone()
    }

    /// Whether `condition` holds for player `index`.
    fn holds(&self, index: usize, condition: &Condition) -> bool {
        let player = &self.players[index];
        match condition {
            Condition::HasItem { item_id, quantity } => {
                player.inventory.count(item_id) >= u64::from(*quantity)
            }
            Condition::LacksItem { item_id } => {
                player.inventory.count(item_id) == 0
                    && !player.equipment.iter().any(|(_, s)| &s.item_id == item_id)
            }
            Condition::Skill { skill, level } => u32::from(player.skills.level(*skill)) >= *level,
            Condition::QuestStatus { quest_id, status } => {
                self.quest_status(index, quest_id) == *status
            }
            Condition::QuestPoints(n) => self.quest_points(index) >= *n,
        }
    }

    /// The open dialogue's tree node `node_id`, cloned.
    fn dialogue_node(&self, index: usize, node_id: &str) -> Option<DialogueNode> {
        let open = self.players[index].dialogue.as_ref()?;
        self.content
            .npcs
            .get(open.npc_id.as_str())?
            .dialogue
            .as_ref()?
            .node(node_id)
            .cloned()
    }

    /// Shows node `node_id` of player `index`'s open dialogue: its effects run, then
    /// `dialogue:open` with the responses that hold; without any, the dialogue ends.
    fn show_node(&mut self, index: usize, node_id: &str, events: &mut Vec<Event>) {
        let Some(node) = self.dialogue_node(index, node_id) else {
            return self.close_dialogue(index, CloseReason::End, events);
        };
        let mut ended = false;
        if !node.effects.is_empty() {
            ended = !self.run_effects(index, &node.effects, events).0;
        }
        let shown: Vec<u32> = if ended {
            Vec::new()
        } else {
            node.responses
                .iter()
                .filter(|r| r.conditions.iter().all(|c| self.holds(index, c)))
                .map(|r| r.index)
                .collect()
        };
        let Some(open) = self.players[index].dialogue.as_mut() else {
            return;
        };
        open.node_id = node.id.clone();
        open.shown = shown.clone();
        let view = DialogueOpen {
            npc_id: open.npc_id.clone(),
            entity_id: open.entity_id.clone(),
            node_id: node.id.clone(),
            text: node.text.clone(),
            responses: node
                .responses
                .iter()
                .filter(|r| shown.contains(&r.index))
                .map(|r| DialogueChoice {
                    index: r.index,
                    text: r.text.clone(),
                })
                .collect(),
        };
        events.push(Event::DialogueOpened {
            to: self.players[index].id.clone(),
            view,
        });
        if shown.is_empty() {
            self.close_dialogue(index, CloseReason::End, events);
        }
    }

    /// Ends player `index`'s dialogue, telling the client why.
    pub(crate) fn close_dialogue(
        &mut self,
        index: usize,
        reason: CloseReason,
        events: &mut Vec<Event>,
    ) {
        if let Some(open) = self.players[index].dialogue.take() {
            events.push(Event::DialogueClosed {
                to: self.players[index].id.clone(),
                npc_id: open.npc_id,
                reason,
            });
        }
    }

    /// `dialogue:respond`.
    pub(crate) fn respond(
        &mut self,
        id: &str,
        npc: &str,
        choice: u32,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        let Some(open) = self.players[index].dialogue.clone() else {
            return Self::reject(
                id,
                codes::INVALID_DIALOGUE,
                "no dialogue is open",
                reference,
                events,
            );
        };
        if open.npc_id != npc && open.entity_id != npc {
            return Self::reject(
                id,
                codes::INVALID_DIALOGUE,
                format!("the open dialogue is not with {}", quoted(npc)),
                reference,
                events,
            );
        }
        let response = self
            .dialogue_node(index, &open.node_id)
            .and_then(|n| n.responses.into_iter().find(|r| r.index == choice))
            .filter(|r| open.shown.contains(&r.index));
        let Some(response) = response else {
            return Self::reject(
                id,
                codes::INVALID_DIALOGUE,
                format!("response {choice} is not one of those shown"),
                reference,
                events,
            );
        };
        // What was shown may no longer hold (an item dropped meanwhile).
        if !response.conditions.iter().all(|c| self.holds(index, c)) {
            return Self::reject(
                id,
                codes::INVALID_DIALOGUE,
                "that answer is no longer possible",
                reference,
                events,
            );
        }
        let (ok, next) = self.run_effects(index, &response.effects, events);
        if !ok {
            return self.close_dialogue(index, CloseReason::End, events);
        }
        if self.players[index].dialogue.is_none() {
            return;
        }
        let next = next.unwrap_or(response.next_node_id);
        self.show_node(index, &next, events);
    }

    /// Runs effects for player `index`; false when refused (nothing of them happens then, but
    /// for a refused `openStore` or `openTanner`, which come after the rest). First the quest
    /// effects are checked (requirements, ready to complete); then every item change of the
    /// effects (`takeItem`, `giveItem`, a started quest's `onStart` items, a completed quest's
    /// reward items) is made in one inventory transaction, all or nothing; then the rest runs in
    /// order. Also returns the node a started quest names to show next (`onStart.dialogue`),
    /// when the open tree has it.
    fn run_effects(
        &mut self,
        index: usize,
        effects: &[Effect],
        events: &mut Vec<Event>,
    ) -> (bool, Option<String>) {
        let id = self.players[index].id.clone();
        for effect in effects {
            let why = match effect {
                Effect::StartQuest(q) => self.why_not_start(index, q),
                Effect::CompleteQuest(q) => self.why_not_complete(index, q),
                _ => None,
            };
            if let Some(why) = why {
                self.system_message(Some(&id), why, events);
                return (false, None);
            }
        }
        if !self.item_effects(index, effects) {
            self.system_message(
                Some(&id),
                "You do not have what is needed, or the inventory space for it.".into(),
                events,
            );
            return (false, None);
        }
        let (npc, npc_id) = match &self.players[index].dialogue {
            Some(open) => (Some(open.npc), open.npc_id.clone()),
            None => (None, String::new()),
        };
        let content = self.content.clone();
        let mut next = None;
        for effect in effects {
            match effect {
                Effect::GiveItem { .. } | Effect::TakeItem { .. } => {}
                Effect::OpenBank => self.players[index].dirty.bank = true,
                Effect::OpenStore(store) => {
                    let store = store.clone().or_else(|| npc.and_then(|n| self.store_of(n)));
                    match (store, npc) {
                        (Some(store), Some(keeper)) => self.open_shop(index, keeper, store, events),
                        _ => {
                            self.system_message(
                                Some(&id),
                                "There is nothing to buy here.".into(),
                                events,
                            );
                            return (false, None);
                        }
                    }
                }
                Effect::OpenTanner => {
                    // The tanning recipes are offered; the player chooses what and how many.
                    if !npc.is_some_and(|tanner| self.offer_station(index, tanner, events)) {
                        self.system_message(
                            Some(&id),
                            "There is nothing to tan here.".into(),
                            events,
                        );
                        return (false, None);
                    }
                }
                Effect::StartQuest(quest) => {
                    self.begin_quest(index, quest, &npc_id, events);
                    let start = content
                        .quests
                        .get(quest)
                        .and_then(|q| q.start_dialogue.clone());
                    if let Some(node) = start {
                        if self.dialogue_node(index, &node).is_some() {
                            next = Some(node);
                        }
                    }
                }
                Effect::CompleteQuest(quest) => {
                    if let Some(quest) = content.quests.get(quest) {
                        self.finish_quest(index, quest, true, events);
                    }
                }
                Effect::Teleport { x, z } => {
                    let tile = self.walkable_near(TilePos { x: *x, z: *z });
                    let player = &mut self.players[index];
                    player.walk.clear();
                    player.intent = None;
                    self.place_player(index, tile);
                }
            }
        }
        (true, next)
    }

    /// Every item change of `effects` (see [`World::run_effects`]) in one inventory transaction:
    /// all or nothing. Takes come first, so what is taken makes room for what is given.
    fn item_effects(&mut self, index: usize, effects: &[Effect]) -> bool {
        let content = self.content.clone();
        let mut changes: Vec<(bool, String, u32, &'static str)> = Vec::new();
        for effect in effects {
            match effect {
                Effect::GiveItem { item_id, quantity } => {
                    changes.push((true, item_id.clone(), *quantity, "dialogue"))
                }
                Effect::TakeItem { item_id, quantity } => {
                    changes.push((false, item_id.clone(), *quantity, "dialogue"))
                }
                Effect::StartQuest(q) => {
                    for item in content.quests.get(q).map_or(&[][..], |q| &q.start_items) {
                        changes.push((true, item.item_id.clone(), item.quantity, "questStart"));
                    }
                }
                Effect::CompleteQuest(q) => {
                    for item in content.quests.get(q).map_or(&[][..], |q| &q.reward_items) {
                        changes.push((true, item.item_id.clone(), item.quantity, "questReward"));
                    }
                }
                _ => {}
            }
        }
        if changes.is_empty() {
            return true;
        }
        let stackings: Vec<_> = changes
            .iter()
            .map(|(_, i, _, _)| self.stacking(i))
            .collect();
        let done = self.players[index].inventory.apply(|tx| {
            for (give, item, quantity, _) in &changes {
                if !give {
                    tx.remove_item(item, *quantity)?;
                }
            }
            for ((give, item, quantity, _), stacking) in changes.iter().zip(&stackings) {
                if *give {
                    tx.add(item, *quantity, *stacking)?;
                }
            }
            Ok(())
        });
        if done.is_err() {
            return false;
        }
        let player = &mut self.players[index];
        player.dirty.inventory = true;
        player.dirty.save_now = true;
        for (give, item, quantity, reason) in &changes {
            let kind = if *give {
                FlowKind::Entered
            } else {
                FlowKind::Left
            };
            self.flow_by(index, kind, reason, item, *quantity);
        }
        true
    }

    /// The actions phase for dialogues: each open one closes when the player walked away (or the
    /// NPC is gone), fights or is attacked, or trades.
    pub(crate) fn advance_dialogues(&mut self, events: &mut Vec<Event>) {
        for index in 0..self.players.len() {
            let Some(open) = self.players[index].dialogue.as_ref() else {
                continue;
            };
            let npc = open.npc;
            let reason = if self.in_trade(&self.players[index].id) {
                Some(CloseReason::Trade)
            } else if self.players[index]
                .intent
                .as_ref()
                .is_some_and(|i| i.kind.is_attack())
                || !self.attackers_of(index).is_empty()
            {
                Some(CloseReason::Combat)
            } else {
                match self.distance_from(index, npc) {
                    Some(d) if d <= DIALOGUE_RANGE_TILES => None,
                    _ => Some(CloseReason::WalkedAway),
                }
            };
            if let Some(reason) = reason {
                self.close_dialogue(index, reason, events);
            }
        }
    }

    /// `dialogue:close` from the client (anything open with that NPC, or any when `npc` is empty).
    pub(crate) fn dialogue_closed_by_client(
        &mut self,
        id: &str,
        npc: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        match &self.players[index].dialogue {
            Some(open) if npc.is_empty() || open.npc_id == npc || open.entity_id == npc => {
                self.close_dialogue(index, CloseReason::Client, events)
            }
            _ => Self::reject(
                id,
                codes::INVALID_DIALOGUE,
                "no dialogue with that NPC is open",
                reference,
                events,
            ),
        }
    }

    /// The dialogue node a player has open: (NPC content id, node id, shown response indices).
    pub fn player_dialogue(&self, player: &str) -> Option<(String, String, Vec<u32>)> {
        let index = *self.player_index.get(player)?;
        let open = self.players[index].dialogue.as_ref()?;
        Some((
            open.npc_id.clone(),
            open.node_id.clone(),
            open.shown.clone(),
        ))
    }
}
