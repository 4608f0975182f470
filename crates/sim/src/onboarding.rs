//! What a newcomer is told (CONTRACT §13): a welcome line in the game channel on entry naming the
//! first thing to do, and each NPC's quest marker for the player who sees it (`available`,
//! `active`, `ready`), in the `added` entry the player first sees the NPC by and in a `changed`
//! entry when it changes. Both come from content (the quests and where their NPCs stand), not
//! from special cases.

use std::collections::HashMap;
use std::sync::Arc;

use wayfarer_content::{Objective, QuestStatus};
use wayfarer_protocol::ws::{AddedList, Changed, QuestMarker, TickEntities, WorldUpdate};

use crate::entities::{slot_of, Handle};
use crate::events::Event;
use crate::quests::status_of;
use crate::world::World;

/// The markers each player was last shown, by (player, NPC) handle.
pub(crate) type ShownMarkers = HashMap<(Handle, Handle), QuestMarker>;

impl World {
    /// The quest marker NPC `npc_id` shows player `index`: `ready` when a quest can be handed in
    /// to it, else `available` when one can be started with it, else `active` when one under way
    /// continues with it (its giver, or the NPC its current stage talks to); `None` otherwise.
    pub(crate) fn quest_marker(&self, index: usize, npc_id: &str) -> Option<QuestMarker> {
        let mut best: Option<QuestMarker> = None;
        let rank = |m: Option<QuestMarker>| match m {
            Some(QuestMarker::Ready) => 3,
            Some(QuestMarker::Available) => 2,
            Some(QuestMarker::Active) => 1,
            _ => 0,
        };
        for quest in self.content.quests.values() {
            let entry = self.players[index].quests.get(&quest.id);
            let talks_to = |stage: usize| {
                quest.stages.get(stage).is_some_and(
                    |s| matches!(&s.objective, Objective::Dialogue { npc_id: n } if n == npc_id),
                )
            };
            let marker = match status_of(quest, entry) {
                QuestStatus::ReadyToComplete => {
                    talks_to(quest.stages.len().saturating_sub(1)).then_some(QuestMarker::Ready)
                }
                QuestStatus::InProgress => {
                    let stage = entry.and_then(|e| e.stage).unwrap_or(0);
                    (quest.start_npc == npc_id || talks_to(stage)).then_some(QuestMarker::Active)
                }
                QuestStatus::NotStarted | QuestStatus::Completed => (quest.start_npc == npc_id
                    && self.why_not_start(index, &quest.id).is_none())
                .then_some(QuestMarker::Available),
            };
            if rank(marker) > rank(best) {
                best = marker;
            }
        }
        best
    }

    /// The NPCs that give or take part in a quest (the only ones with markers).
    fn quest_npcs(&self) -> Vec<String> {
        let mut npcs: Vec<String> = self
            .content
            .quests
            .values()
            .flat_map(|q| {
                std::iter::once(q.start_npc.clone()).chain(q.stages.iter().filter_map(|s| {
                    match &s.objective {
                        Objective::Dialogue { npc_id } => Some(npc_id.clone()),
                        _ => None,
                    }
                }))
            })
            .collect();
        npcs.sort_unstable();
        npcs.dedup();
        npcs
    }

    /// The welcome line for a newcomer: the town's name and the quest giver standing nearest the
    /// spawn whose quest has no requirements, with the way to it.
    pub(crate) fn welcome_line(&self) -> String {
        let spawn = self.layout.spawn;
        let town = self
            .content
            .areas
            .values()
            .find(|a| a.covers_tile(spawn.x, spawn.z))
            .map_or("the world", |a| a.name.as_str());
        let guide = self
            .layout
            .npcs
            .iter()
            .filter(|n| {
                self.content.quests.values().any(|q| {
                    q.start_npc == n.npc_id
                        && q.required_quests.is_empty()
                        && q.required_skills.is_empty()
                })
            })
            .min_by_key(|n| (crate::map::chebyshev(n.tile, spawn), n.key.clone()));
        match guide {
            Some(npc) => {
                let (dx, dz) = (npc.tile.x - spawn.x, npc.tile.z - spawn.z);
                let way = match (dz.signum(), dx.signum()) {
                    (-1, _) if dz.abs() >= dx.abs() => "north",
                    (1, _) if dz.abs() >= dx.abs() => "south",
                    (_, 1) => "east",
                    _ => "west",
                };
                format!(
                    "Welcome to {town}! Your first task: talk to {}, a few steps {way} of here \
                     (the ! above a head marks someone with a quest for you).",
                    npc.name
                )
            }
            None => format!("Welcome to {town}! Look around: talk to the people you meet."),
        }
    }

    /// Whether player `index` is new to the world: no XP earned in any skill and no quest
    /// started. Such a player is welcomed on entry; the first thing to do is still ahead of it.
    pub(crate) fn is_newcomer(&self, index: usize) -> bool {
        let player = &self.players[index];
        player.quests.is_empty() && player.skills == crate::skills::Skills::new()
    }

    /// Gives every quest NPC this tick's `world:update`s add their marker for the receiving
    /// player, and tells each player whose quests changed this tick about the markers that
    /// changed on the NPCs it sees (a `changed` entry, `none` when a marker went away).
    pub(crate) fn mark_quest_givers(&mut self, events: &mut Vec<Event>) {
        let givers = self.quest_npcs();
        if givers.is_empty() {
            return;
        }
        let mut quests_changed: Vec<Arc<str>> = events
            .iter()
            .filter_map(|e| match e {
                Event::QuestUpdated { to, .. } | Event::QuestCompleted { to, .. } => self
                    .player_index
                    .get(to.as_str())
                    .map(|&i| Arc::clone(&self.players[i].shared_id)),
                _ => None,
            })
            .collect();
        quests_changed.sort_unstable();
        quests_changed.dedup();
        for event in events.iter_mut() {
            let Event::View { to, update } = event else {
                continue;
            };
            // Most updates add no NPC with a quest: nothing to look up for them.
            let quest_npc_added = update.added.iter().any(|e| {
                e.kind == wayfarer_protocol::ws::EntityKind::Npc
                    && e.type_id.as_ref().is_some_and(|t| givers.contains(t))
            });
            if !quest_npc_added {
                continue;
            }
            let Some(&index) = self.player_index.get(&**to) else {
                continue;
            };
            self.mark_added(index, update, &givers);
        }
        for id in quests_changed {
            let Some(&index) = self.player_index.get(&*id) else {
                continue;
            };
            let changed = self.changed_markers(index, &givers);
            if changed.is_empty() {
                continue;
            }
            let view = events.iter_mut().find_map(|e| match e {
                Event::View { to, update } if *to == id => Some(update),
                _ => None,
            });
            match view {
                Some(update) => update.changed.extend(changed),
                None => events.push(Event::View {
                    to: id,
                    update: WorldUpdate {
                        tick: self.now(),
                        changed,
                        ..Default::default()
                    },
                }),
            }
        }
    }

    /// Rewrites `update.added` for player `index` with the markers of the quest NPCs in it: a
    /// table of its own for this one update (rare: an NPC with a quest came into view).
    fn mark_added(&mut self, index: usize, update: &mut WorldUpdate, givers: &[String]) {
        let me = self.players[index].handle;
        let mut marked: Vec<(usize, QuestMarker, Handle)> = Vec::new();
        for (n, entity) in update.added.iter().enumerate() {
            if entity.kind != wayfarer_protocol::ws::EntityKind::Npc {
                continue;
            }
            let Some(npc_id) = entity.type_id.as_deref() else {
                continue;
            };
            if !givers.iter().any(|g| g == npc_id) {
                continue;
            }
            let Some(handle) = self.entities.find(&entity.id) else {
                continue;
            };
            let marker = self.quest_marker(index, npc_id);
            self.shown_markers
                .insert((me, handle), marker.unwrap_or(QuestMarker::None));
            if let Some(marker) = marker {
                marked.push((n, marker, handle));
            }
        }
        if marked.is_empty() {
            return;
        }
        let mut table = TickEntities::default();
        let picks = update
            .added
            .iter()
            .enumerate()
            .map(|(n, entity)| match marked.iter().find(|m| m.0 == n) {
                Some(&(_, marker, _)) => {
                    let mut own = (**entity).clone();
                    own.quest = Some(marker);
                    table.push_added(Arc::new(own))
                }
                None => table.push_added(Arc::clone(entity)),
            })
            .collect();
        update.added = AddedList::picking(Arc::new(table), picks);
    }

    /// The markers of the quest NPCs player `index` sees that differ from those it was shown.
    fn changed_markers(&mut self, index: usize, givers: &[String]) -> Vec<Changed> {
        let me = self.players[index].handle;
        let shown = self.players[index].viewer.shown();
        let mut out = Vec::new();
        let npcs: Vec<(Handle, String)> = self
            .npcs
            .iter()
            .filter(|n| shown.binary_search(&slot_of(n.handle)).is_ok())
            .filter_map(|n| {
                let body = self.entities.get(n.handle)?;
                Some((n.handle, body.wire.type_id.clone()?))
            })
            .filter(|(_, npc_id)| givers.contains(npc_id))
            .collect();
        for (handle, npc_id) in npcs {
            let marker = self
                .quest_marker(index, &npc_id)
                .unwrap_or(QuestMarker::None);
            let before = self.shown_markers.insert((me, handle), marker);
            if before != Some(marker) {
                if let Some(body) = self.entities.get(handle) {
                    out.push(Changed {
                        id: body.wire.id.clone(),
                        quest: Some(marker),
                        ..Default::default()
                    });
                }
            }
        }
        out
    }

    /// Forgets the markers shown to a player who left.
    pub(crate) fn forget_markers(&mut self, player: Handle) {
        self.shown_markers.retain(|(p, _), _| *p != player);
    }
}
