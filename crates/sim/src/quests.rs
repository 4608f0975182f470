//! Quests (`quests.json`): each player's quest log, starting and completing quests (from dialogue
//! effects), stage progress fed by the game's own events, rewards, and XP lamps.
//!
//! Rules (`docs/mechanics.md`, "Quests"):
//! - a quest starts from a `startQuest:<id>` effect: its requirements (quests completed, skill
//!   levels, items held) are checked, and its `onStart` items given in the same inventory
//!   transaction as the start (no room: not started); a first stage that is a dialogue with the
//!   NPC the player talks to is done by starting;
//! - stages are done in order; only the current stage counts events: `kill` (the player's kill of
//!   that NPC), `gather` (units of that item gathered), `interact` (units of that item made by
//!   cooking, smelting, smithing, crafting or fletching, or fires lit for `fire`), `dialogue`
//!   (opening a dialogue with that NPC), `travel` (entering that area);
//! - a quest whose last stage is a dialogue is `ready_to_complete` on that stage and completes
//!   from a `completeQuest:<id>` effect; one whose last stage is anything else completes when the
//!   stage is done;
//! - completing grants the rewards once, in one inventory transaction (no room: not completed), and
//!   the record is saved at once; a replayable quest may then be started again (its quest points
//!   count once).

use std::collections::BTreeMap;

use wayfarer_content::{InteractTarget, Objective, Quest, QuestStatus, Skill};

use crate::events::Event;
use crate::flows::FlowKind;
use crate::skills::Xp;
use crate::world::World;

/// One quest of a player's log, as saved and restored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestRecord {
    /// The quest.
    pub quest_id: String,
    /// `InProgress` or `Completed` (a ready quest is in progress on its last stage).
    pub status: QuestStatus,
    /// The current stage's id (in progress).
    pub stage_id: Option<String>,
    /// Count towards the current stage.
    pub progress: u32,
    /// Times completed.
    pub completions: u32,
}

/// A player's progress in one quest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QuestEntry {
    /// Current stage index (`None`: not in progress).
    pub stage: Option<usize>,
    /// Count towards the current stage.
    pub progress: u32,
    /// Times completed.
    pub completions: u32,
}

/// Everything a player has started or done, by quest id.
pub(crate) type QuestLog = BTreeMap<String, QuestEntry>;

/// What happened in the game that a stage may count.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Trigger<'a> {
    /// Killed an NPC of this content id.
    Kill(&'a str),
    /// Gathered this many of an item.
    Gather(&'a str, u32),
    /// Made this many of an item.
    Make(&'a str, u32),
    /// Lit a fire.
    Fire,
    /// Opened a dialogue with an NPC of this content id.
    Talk(&'a str),
    /// Is in this area.
    Travel(&'a str),
}

/// The rewards of a completion, for `quest:complete`.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestRewards {
    /// Quest points added (0 for a replay).
    pub quest_points: u32,
    /// Items given.
    pub items: Vec<(String, u32)>,
    /// XP given, by skill.
    pub xp: Vec<(Skill, f64)>,
}

/// The status of `entry` in `quest`.
pub(crate) fn status_of(quest: &Quest, entry: Option<&QuestEntry>) -> QuestStatus {
    match entry {
        None => QuestStatus::NotStarted,
        Some(QuestEntry {
            stage: Some(stage), ..
        }) => {
            let last = quest.stages.len().saturating_sub(1);
            let final_dialogue = quest
                .stages
                .last()
                .is_some_and(|s| matches!(s.objective, Objective::Dialogue { .. }));
            if *stage >= last && final_dialogue {
                QuestStatus::ReadyToComplete
            } else {
                QuestStatus::InProgress
            }
        }
        Some(QuestEntry { completions, .. }) if *completions > 0 => QuestStatus::Completed,
        Some(_) => QuestStatus::NotStarted,
    }
}

/// How many units of `trigger` count towards `objective`.
fn counts(objective: &Objective, trigger: Trigger<'_>) -> u32 {
    match (objective, trigger) {
        (Objective::Kill { npc_id, .. }, Trigger::Kill(killed)) if npc_id == killed => 1,
        (Objective::Gather { item_id, .. }, Trigger::Gather(got, n)) if item_id == got => n,
        (
            Objective::Interact {
                target: InteractTarget::Item(item_id),
                ..
            },
            Trigger::Make(made, n),
        ) if item_id == made => n,
        (
            Objective::Interact {
                target: InteractTarget::Fire,
                ..
            },
            Trigger::Fire,
        ) => 1,
        (Objective::Dialogue { npc_id }, Trigger::Talk(npc)) if npc_id == npc => 1,
        (Objective::Travel { area_id }, Trigger::Travel(area)) if area_id == area => 1,
        _ => 0,
    }
}

/// The count a stage asks for (1 for dialogue and travel stages).
pub fn stage_count(objective: &Objective) -> u32 {
    match objective {
        Objective::Kill { count, .. }
        | Objective::Gather { count, .. }
        | Objective::Interact { count, .. } => (*count).max(1),
        Objective::Dialogue { .. } | Objective::Travel { .. } => 1,
    }
}

impl World {
    /// Player `index`'s status in quest `quest_id` (`NotStarted` for a quest content lacks).
    pub(crate) fn quest_status(&self, index: usize, quest_id: &str) -> QuestStatus {
        match self.content.quests.get(quest_id) {
            Some(quest) => status_of(quest, self.players[index].quests.get(quest_id)),
            None => QuestStatus::NotStarted,
        }
    }

    /// Player `index`'s quest points: those of every quest completed at least once.
    pub(crate) fn quest_points(&self, index: usize) -> u32 {
        self.players[index]
            .quests
            .iter()
            .filter(|(_, e)| e.completions > 0)
            .filter_map(|(id, _)| self.content.quests.get(id))
            .map(|q| q.quest_points)
            .sum()
    }

    /// The record of quest `quest_id` for player `index`, as events and saves carry it.
    pub(crate) fn quest_record(&self, index: usize, quest_id: &str) -> Option<QuestRecord> {
        let entry = self.players[index].quests.get(quest_id)?;
        let quest = self.content.quests.get(quest_id);
        let status = match quest {
            Some(q) => status_of(q, Some(entry)),
            None if entry.stage.is_some() => QuestStatus::InProgress,
            None => QuestStatus::Completed,
        };
        Some(QuestRecord {
            quest_id: quest_id.to_owned(),
            status,
            stage_id: entry
                .stage
                .and_then(|s| quest.and_then(|q| q.stages.get(s)).map(|s| s.id.clone())),
            progress: entry.progress,
            completions: entry.completions,
        })
    }

    fn push_quest_update(&mut self, index: usize, quest_id: &str, events: &mut Vec<Event>) {
        if let Some(record) = self.quest_record(index, quest_id) {
            let count = self
                .content
                .quests
                .get(quest_id)
                .zip(self.players[index].quests.get(quest_id))
                .and_then(|(q, e)| e.stage.and_then(|s| q.stages.get(s)))
                .map_or(0, |s| stage_count(&s.objective));
            events.push(Event::QuestUpdated {
                to: self.players[index].id.clone(),
                record,
                count,
            });
        }
    }

    /// Why player `index` may not start `quest` now, if it may not.
    fn start_refusal(&self, index: usize, quest: &Quest) -> Option<String> {
        match self.quest_status(index, &quest.id) {
            QuestStatus::InProgress | QuestStatus::ReadyToComplete => {
                return Some(format!("You have already started {}.", quest.name))
            }
            QuestStatus::Completed if !quest.replayable => {
                return Some(format!("You have already completed {}.", quest.name))
            }
            _ => {}
        }
        for required in &quest.required_quests {
            if self.quest_status(index, required) != QuestStatus::Completed {
                let name = self
                    .content
                    .quests
                    .get(required)
                    .map_or(required.as_str(), |q| q.name.as_str());
                return Some(format!("You need to complete {name} first."));
            }
        }
        let player = &self.players[index];
        for (skill, level) in &quest.required_skills {
            if u32::from(player.skills.level(*skill)) < *level {
                return Some(format!(
                    "You need a {} level of {level} to start {}.",
                    crate::items::skill_title(*skill),
                    quest.name
                ));
            }
        }
        for item in &quest.required_items {
            if player.inventory.count(&item.item_id) < u64::from(item.quantity) {
                return Some(format!(
                    "You need {} × {} to start {}.",
                    item.quantity, item.item_id, quest.name
                ));
            }
        }
        None
    }

    /// Why player `index` may not start quest `quest_id` now (content lacks it, already started or
    /// done, requirements unmet), if it may not.
    pub(crate) fn why_not_start(&self, index: usize, quest_id: &str) -> Option<String> {
        match self.content.quests.get(quest_id) {
            None => Some("That quest is not available.".into()),
            Some(quest) => self.start_refusal(index, quest),
        }
    }

    /// Why player `index` may not complete quest `quest_id` now, if it may not.
    pub(crate) fn why_not_complete(&self, index: usize, quest_id: &str) -> Option<String> {
        match self.content.quests.get(quest_id) {
            None => Some("That quest is not available.".into()),
            Some(_) if self.quest_status(index, quest_id) == QuestStatus::ReadyToComplete => None,
            Some(quest) => Some(format!(
                "You have not finished what {} asks yet.",
                quest.name
            )),
        }
    }

    /// Starts quest `quest_id` for player `index` (checked with [`World::why_not_start`]; its
    /// `onStart` items already given in the response's inventory transaction). `npc` is the
    /// content id of the NPC talked to: a first dialogue stage with them is done by starting.
    pub(crate) fn begin_quest(
        &mut self,
        index: usize,
        quest_id: &str,
        npc: &str,
        events: &mut Vec<Event>,
    ) {
        let content = self.content.clone();
        let Some(quest) = content.quests.get(quest_id) else {
            return;
        };
        let first_done = quest.stages.first().is_some_and(
            |s| matches!(&s.objective, Objective::Dialogue { npc_id } if npc_id == npc),
        );
        let completions = self.players[index]
            .quests
            .get(quest_id)
            .map_or(0, |e| e.completions);
        let player = &mut self.players[index];
        player.quests.insert(
            quest_id.to_owned(),
            QuestEntry {
                stage: Some(usize::from(first_done).min(quest.stages.len().saturating_sub(1))),
                progress: 0,
                completions,
            },
        );
        player.dirty.save_now = true;
        self.narrate(
            index,
            crate::game_messages::quest_started(&quest.name),
            events,
        );
        self.push_quest_update(index, quest_id, events);
    }

    /// Grants `quest`'s rewards once and marks it completed: items in one inventory transaction
    /// (no room: nothing happens; `items_given` when the caller's transaction already added them),
    /// then XP; the record is saved at once.
    pub(crate) fn finish_quest(
        &mut self,
        index: usize,
        quest: &Quest,
        items_given: bool,
        events: &mut Vec<Event>,
    ) -> bool {
        let id = self.players[index].id.clone();
        let items: Vec<(String, u32)> = quest
            .reward_items
            .iter()
            .map(|i| (i.item_id.clone(), i.quantity))
            .collect();
        if !items_given && !self.give_items(index, &items, "questReward") {
            self.system_message(
                Some(&id),
                format!(
                    "You need more inventory space for the reward of {}.",
                    quest.name
                ),
                events,
            );
            return false;
        }
        let first_time = self.players[index]
            .quests
            .get(&quest.id)
            .is_none_or(|e| e.completions == 0);
        let player = &mut self.players[index];
        let entry = player.quests.entry(quest.id.clone()).or_insert(QuestEntry {
            stage: None,
            progress: 0,
            completions: 0,
        });
        entry.stage = None;
        entry.progress = 0;
        entry.completions += 1;
        player.dirty.save_now = true;
        for (skill, xp) in &quest.reward_xp {
            self.grant_xp(index, *skill, Xp::from_f64(*xp), events);
        }
        self.push_quest_update(index, &quest.id, events);
        events.push(Event::QuestCompleted {
            to: id.clone(),
            quest_id: quest.id.clone(),
            rewards: QuestRewards {
                quest_points: if first_time { quest.quest_points } else { 0 },
                items,
                xp: quest.reward_xp.iter().map(|(s, x)| (*s, *x)).collect(),
            },
            quest_points: self.quest_points(index),
        });
        self.narrate(
            index,
            crate::game_messages::quest_completed(&quest.name),
            events,
        );
        true
    }

    /// `quest:abandon`: player `id` gives up quest `quest_id` in progress (refused with
    /// `invalid_action` when it is not in progress).
    pub(crate) fn abandon_quest(
        &mut self,
        id: &str,
        quest_id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        let started = self.players[index]
            .quests
            .get(quest_id)
            .is_some_and(|e| e.stage.is_some());
        if !started {
            return Self::reject(
                id,
                wayfarer_protocol::ws::codes::INVALID_ACTION,
                "you have not started that quest",
                reference,
                events,
            );
        }
        let content = self.content.clone();
        // The start's items, as far as they are held (a stack taken from wherever it lies).
        for item in content
            .quests
            .get(quest_id)
            .map_or(&[][..], |q| q.start_items.as_slice())
        {
            let held = self.players[index].inventory.count(&item.item_id);
            let take = u32::try_from(held.min(u64::from(item.quantity))).unwrap_or(0);
            if take == 0 {
                continue;
            }
            let player = &mut self.players[index];
            if player.inventory.remove_item(&item.item_id, take).is_ok() {
                player.dirty.inventory = true;
                self.flow_by(index, FlowKind::Left, "questAbandoned", &item.item_id, take);
            }
        }
        let player = &mut self.players[index];
        let completions = player.quests.get(quest_id).map_or(0, |e| e.completions);
        if completions == 0 {
            player.quests.remove(quest_id);
        } else if let Some(entry) = player.quests.get_mut(quest_id) {
            entry.stage = None;
            entry.progress = 0;
        }
        player.dirty.save_now = true;
        let name = content
            .quests
            .get(quest_id)
            .map_or(quest_id, |q| q.name.as_str());
        self.narrate(index, crate::game_messages::quest_abandoned(name), events);
        let record = self
            .quest_record(index, quest_id)
            .unwrap_or_else(|| QuestRecord {
                quest_id: quest_id.to_owned(),
                status: QuestStatus::NotStarted,
                stage_id: None,
                progress: 0,
                completions: 0,
            });
        events.push(Event::QuestUpdated {
            to: self.players[index].id.clone(),
            record,
            count: 0,
        });
    }

    /// Adds every `(item, quantity)` to player `index`'s inventory in one transaction: all or
    /// nothing. Counted as entering the world under `reason`.
    pub(crate) fn give_items(
        &mut self,
        index: usize,
        items: &[(String, u32)],
        reason: &'static str,
    ) -> bool {
        if items.is_empty() {
            return true;
        }
        let stackings: Vec<_> = items.iter().map(|(i, _)| self.stacking(i)).collect();
        let done = self.players[index].inventory.apply(|tx| {
            for ((item, quantity), stacking) in items.iter().zip(&stackings) {
                tx.add(item, *quantity, *stacking)?;
            }
            Ok(())
        });
        if done.is_err() {
            return false;
        }
        self.players[index].dirty.inventory = true;
        for (item, quantity) in items {
            self.flow_by(index, FlowKind::Entered, reason, item, *quantity);
        }
        true
    }

    /// Counts a game event towards the current stage of each of player `index`'s quests in
    /// progress.
    pub(crate) fn quest_trigger(
        &mut self,
        index: usize,
        trigger: Trigger<'_>,
        events: &mut Vec<Event>,
    ) {
        if self.players[index].quests.is_empty() {
            return;
        }
        let content = self.content.clone();
        let active: Vec<String> = self.players[index]
            .quests
            .iter()
            .filter(|(_, e)| e.stage.is_some())
            .map(|(id, _)| id.clone())
            .collect();
        for quest_id in active {
            let Some(quest) = content.quests.get(&quest_id) else {
                continue;
            };
            let Some(entry) = self.players[index].quests.get_mut(&quest_id) else {
                continue;
            };
            let Some(stage_index) = entry.stage else {
                continue;
            };
            let Some(stage) = quest.stages.get(stage_index) else {
                continue;
            };
            let last = stage_index + 1 == quest.stages.len();
            if last && matches!(stage.objective, Objective::Dialogue { .. }) {
                // The final dialogue completes through `completeQuest`.
                continue;
            }
            let n = counts(&stage.objective, trigger);
            if n == 0 {
                continue;
            }
            let needed = stage_count(&stage.objective);
            entry.progress = entry.progress.saturating_add(n).min(needed);
            let mut finished = false;
            if entry.progress >= needed {
                entry.progress = 0;
                if last {
                    finished = true;
                } else {
                    entry.stage = Some(stage_index + 1);
                }
            }
            if finished {
                if !self.finish_quest(index, quest, false, events) {
                    // No room for the reward: the stage stays done, waiting at its count.
                    if let Some(entry) = self.players[index].quests.get_mut(&quest_id) {
                        entry.progress = needed;
                    }
                    self.push_quest_update(index, &quest_id, events);
                }
            } else {
                self.push_quest_update(index, &quest_id, events);
            }
        }
    }

    /// The actions phase for `travel` stages: each player whose current stage asks for an area
    /// and who stands in it.
    pub(crate) fn advance_travel(&mut self, events: &mut Vec<Event>) {
        let content = self.content.clone();
        for index in 0..self.players.len() {
            let wanted: Vec<String> = self.players[index]
                .quests
                .iter()
                .filter_map(|(q, e)| Some((content.quests.get(q)?, e.stage?)))
                .filter_map(|(q, s)| match &q.stages.get(s)?.objective {
                    Objective::Travel { area_id } => Some(area_id.clone()),
                    _ => None,
                })
                .collect();
            if wanted.is_empty() {
                continue;
            }
            let Some(tile) = self.tile_of(self.players[index].handle) else {
                continue;
            };
            for area_id in wanted {
                let inside = content
                    .areas
                    .get(&area_id)
                    .is_some_and(|a| a.covers_tile(tile.x, tile.z));
                if inside {
                    self.quest_trigger(index, Trigger::Travel(&area_id), events);
                }
            }
        }
    }

    /// Every quest of content with player `index`'s status, for `quest:list`.
    pub(crate) fn quest_list(&self, index: usize) -> Vec<(String, String, Option<QuestRecord>)> {
        self.content
            .quests
            .values()
            .map(|q| {
                (
                    q.id.clone(),
                    q.name.clone(),
                    self.quest_record(index, &q.id),
                )
            })
            .collect()
    }

    /// `inventory:use` of an XP lamp on `skill`: its XP to that skill, the lamp used up.
    pub(crate) fn rub_lamp(
        &mut self,
        index: usize,
        slot: usize,
        xp: f64,
        consume: bool,
        skill: Skill,
        events: &mut Vec<Event>,
    ) {
        if consume {
            let Ok(stack) = self.players[index].inventory.remove(slot, 1) else {
                return;
            };
            self.players[index].dirty.inventory = true;
            self.players[index].dirty.save_now = true;
            self.flow_by(index, FlowKind::Left, "rubbed", &stack.item_id, 1u32);
        }
        self.grant_xp(index, skill, Xp::from_f64(xp), events);
    }

    /// A player's quest log as records (for tests and `player:sync`).
    pub fn player_quests(&self, player: &str) -> Option<Vec<QuestRecord>> {
        let index = *self.player_index.get(player)?;
        Some(
            self.players[index]
                .quests
                .keys()
                .filter_map(|q| self.quest_record(index, q))
                .collect(),
        )
    }

    /// A player's quest points.
    pub fn player_quest_points(&self, player: &str) -> Option<u32> {
        let index = *self.player_index.get(player)?;
        Some(self.quest_points(index))
    }
}

/// The quest log of saved records (records of quests content lacks are kept as they are, so a
/// content change does not erase them; a stage content no longer has restarts the quest's
/// first stage).
pub(crate) fn log_from(records: Vec<QuestRecord>, content: &wayfarer_content::Content) -> QuestLog {
    let mut log = QuestLog::new();
    for r in records {
        let stage = match r.status {
            QuestStatus::InProgress | QuestStatus::ReadyToComplete => {
                let at = content.quests.get(&r.quest_id).and_then(|q| {
                    q.stages
                        .iter()
                        .position(|s| Some(&s.id) == r.stage_id.as_ref())
                });
                Some(at.unwrap_or(0))
            }
            _ => None,
        };
        log.insert(
            r.quest_id,
            QuestEntry {
                stage,
                progress: if stage.is_some() { r.progress } else { 0 },
                completions: r.completions,
            },
        );
    }
    log
}
