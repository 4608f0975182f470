//! Doing the quests on the way to the goal: a quest whose stages gather, make or kill what the
//! goal is about (First Catch for a cook of shrimp) is started with its giver, its stages done in
//! order with the goal's own skills, and handed in. The player's status in each quest comes from
//! `quest:list` / `quest:update`; the stages from the public `quests.json` (`crate::quests`).

use serde_json::json;
use wayfarer_content::RecipeKind;
use wayfarer_protocol::ws::{DialogueOpen, EntityKind};

use super::{Decision, Planner, AVOID_TICKS, NODE_APPROACH_TILES};
use crate::actions::Ctx;
use crate::goals::{Goal, GoalKind};
use crate::quests::{QuestFacts, Step};

/// Talks with a quest's NPC at one stage before the quest is put aside (the dialogue did not move
/// it on: a requirement not met, a response the planner cannot tell).
pub const QUEST_TALKS: u32 = 3;

/// Words of a response that turns a quest down or puts it off; the planner picks the first
/// response without them.
const DECLINES: [&str; 9] = [
    "later",
    "not ",
    "no thanks",
    "no,",
    "goodbye",
    "bye",
    "still working",
    "nothing",
    "never mind",
];

impl Planner {
    /// The next step of a quest that serves `goal`, if one is open to the agent.
    pub(super) fn quest_step(&mut self, ctx: Ctx<'_>, goal: &Goal, now: u64) -> Option<Decision> {
        let (quest, status, stage) = ctx.model.quests.iter().find_map(|q| {
            let facts = ctx.knowledge.quests.iter().find(|f| f.id == q.quest_id)?;
            let open = matches!(
                q.status.as_str(),
                "not_started" | "in_progress" | "ready_to_complete"
            );
            (open && serves(ctx, facts, goal) && !self.avoided(&format!("quest:{}", facts.id), now))
                .then_some((facts, q.status.as_str(), q.stage_id.as_deref()))
        })?;
        let step = match status {
            "not_started" => Step::Talk(quest.start_npc.clone()),
            _ => stage.and_then(|s| quest.stage(s)).map(|(_, s)| s.clone())?,
        };
        let key = format!("{}:{}:{}", quest.id, status, stage.unwrap_or_default());
        if self.quest_at.as_ref().is_none_or(|(k, _)| *k != key) {
            self.quest_at = Some((key, 0));
        }
        match step {
            Step::Talk(npc) => self.talk_for_quest(ctx, quest, &npc, now),
            Step::Gather(item, _) => {
                let skill = ctx
                    .knowledge
                    .nodes
                    .values()
                    .find(|n| n.yields.iter().any(|y| y.item_id == item))?
                    .skill;
                Some(self.gather(ctx, skill, now))
            }
            Step::Make(item, _) => {
                let recipe = ctx
                    .knowledge
                    .recipes
                    .iter()
                    .find(|r| r.output.as_ref().is_some_and(|o| o.item_id == item))?;
                if recipe.kind == RecipeKind::Cooking {
                    Some(self.cook(ctx, now))
                } else {
                    super::make_all(ctx, |r| r.id == recipe.id)
                }
            }
            Step::Kill(npc, _) => Some(self.fight(ctx, Some(&npc), now)),
            Step::Other => None,
        }
    }

    /// Talk to `npc` for `quest`: the one in view, else walk to where the areas place it.
    fn talk_for_quest(
        &mut self,
        ctx: Ctx<'_>,
        quest: &QuestFacts,
        npc: &str,
        now: u64,
    ) -> Option<Decision> {
        let in_view = ctx
            .model
            .nearest_of(EntityKind::Npc)
            .into_iter()
            .find(|e| e.type_id() == Some(npc));
        if let Some(e) = in_view {
            let talks = self.quest_at.as_mut().map_or(0, |(_, n)| {
                *n += 1;
                *n
            });
            if talks > QUEST_TALKS {
                // Talking does not move this quest on: leave it for a while.
                self.avoid
                    .insert(format!("quest:{}", quest.id), now + AVOID_TICKS * 10);
                self.quest_at = None;
                return None;
            }
            self.talking = Some(npc.to_owned());
            return Some(Decision::new(
                "talkToNpc",
                json!({"targetId": e.id()}),
                format!("quest {}: talking to {npc}", quest.id),
            ));
        }
        let here: wayfarer_protocol::ws::TilePos = ctx.model.me.tile.into();
        let place = ctx
            .knowledge
            .places
            .iter()
            .filter(|p| p.npc && p.id == npc)
            .min_by_key(|p| crate::model::chebyshev(here.x, here.z, p.tile.x, p.tile.z))?;
        Some(Decision::new(
            "navigateTo",
            json!({"x": place.tile.x, "z": place.tile.z, "within": NODE_APPROACH_TILES}),
            format!("quest {}: walking to {npc}", quest.id),
        ))
    }

    /// The answer in a quest NPC's dialogue the planner opened: the first response that does not
    /// decline, or closing a dialogue with nothing to answer.
    pub(super) fn quest_dialogue(&mut self, dialogue: &DialogueOpen) -> Option<Decision> {
        if self.talking.as_deref() != Some(dialogue.npc_id.as_str()) {
            return None;
        }
        let forward = dialogue.responses.iter().find(|r| {
            let text = r.text.to_lowercase();
            !DECLINES.iter().any(|d| text.contains(d))
        });
        Some(match forward {
            Some(r) => Decision::new(
                "respondDialogue",
                json!({"index": r.index}),
                format!("quest dialogue: {:?}", r.text),
            ),
            None => {
                self.talking = None;
                Decision::new("closeDialogue", json!({}), "quest dialogue: said")
            }
        })
    }
}

/// Whether `quest` is on the way to `goal`: its stages gather or make what the goal makes or
/// gathers (or the raw food of what it cooks), or kill what it fights. A skill goal takes up no
/// quest: a quest's other stages (a smithing quest's mining) would take a trainer off its skill.
fn serves(ctx: Ctx<'_>, quest: &QuestFacts, goal: &Goal) -> bool {
    let makes = |item: &str| quest.items().any(|i| i == item);
    match &goal.kind {
        GoalKind::Cook { item_id } => quest.items().any(|i| {
            let cooked = ctx.knowledge.recipes.iter().any(|r| {
                r.kind == RecipeKind::Cooking
                    && r.output.as_ref().is_some_and(|o| o.item_id == i)
                    && item_id.as_deref().is_none_or(|want| want == i)
            });
            cooked
                || item_id
                    .as_deref()
                    .is_some_and(|want| i == format!("raw_{want}"))
        }),
        GoalKind::Gather { item_id, .. } => makes(item_id),
        GoalKind::Combat {
            npc_id: Some(npc), ..
        } => quest
            .stages
            .iter()
            .any(|(_, s)| matches!(s, Step::Kill(n, _) if n == npc)),
        _ => false,
    }
}
