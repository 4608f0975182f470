//! What the agent knows of the quests: who gives each and its stages in order, read from the
//! public `quests.json` (only those fields: the rest of a quest, and the dialogues that run it,
//! are the server's). The player's own status in each comes from `quest:list` / `quest:update`
//! (the model's `quests`); the planner puts the two together (`planner::questing`).

use serde_json::Value;
use wayfarer_content::{InteractTarget, Objective, Quest};

/// One stage's objective, as far as the planner acts on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Talk to this NPC.
    Talk(String),
    /// Gather this many of an item.
    Gather(String, u32),
    /// Make this many of an item (cooking, smithing…).
    Make(String, u32),
    /// Kill this many of an NPC.
    Kill(String, u32),
    /// Anything else (travel, fires): the planner does not pursue it.
    Other,
}

/// A quest's giver and stages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestFacts {
    pub id: String,
    pub start_npc: String,
    /// Stage ids and objectives, in order.
    pub stages: Vec<(String, Step)>,
}

impl QuestFacts {
    /// From the content's loaded quest.
    pub fn of(quest: &Quest) -> QuestFacts {
        let stages = quest
            .stages
            .iter()
            .map(|s| {
                let step = match &s.objective {
                    Objective::Dialogue { npc_id } => Step::Talk(npc_id.to_string()),
                    Objective::Gather { item_id, count } => {
                        Step::Gather(item_id.to_string(), *count)
                    }
                    Objective::Interact {
                        target: InteractTarget::Item(item),
                        count,
                    } => Step::Make(item.to_string(), *count),
                    Objective::Kill { npc_id, count } => Step::Kill(npc_id.to_string(), *count),
                    _ => Step::Other,
                };
                (s.id.clone(), step)
            })
            .collect();
        QuestFacts {
            id: quest.id.to_string(),
            start_npc: quest.start_npc.to_string(),
            stages,
        }
    }

    /// The stage with id `stage`, and its index.
    pub fn stage(&self, stage: &str) -> Option<(usize, &Step)> {
        self.stages
            .iter()
            .enumerate()
            .find(|(_, (id, _))| id == stage)
            .map(|(i, (_, step))| (i, step))
    }

    /// Every item the quest's stages gather or make.
    pub fn items(&self) -> impl Iterator<Item = &str> {
        self.stages.iter().filter_map(|(_, s)| match s {
            Step::Gather(item, _) | Step::Make(item, _) => Some(item.as_str()),
            _ => None,
        })
    }
}

/// The quests of a `quests.json` (an object by id, or a list); an unreadable file or entry gives
/// nothing for it (the agent then does no quests, as before it read them).
pub fn read(bytes: &[u8]) -> Vec<QuestFacts> {
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        tracing::warn!("quests.json is unreadable: no quests known");
        return Vec::new();
    };
    let entries: Vec<&Value> = match &value {
        Value::Object(map) => map.values().collect(),
        Value::Array(list) => list.iter().collect(),
        _ => Vec::new(),
    };
    entries.into_iter().filter_map(read_one).collect()
}

fn read_one(quest: &Value) -> Option<QuestFacts> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let count = |v: &Value| {
        v.get("count")
            .and_then(Value::as_u64)
            .map_or(1, |c| c.clamp(1, u64::from(u32::MAX)) as u32)
    };
    let stages = quest
        .get("stages")?
        .as_array()?
        .iter()
        .map(|s| {
            let target = text(s, "target");
            let step = match (s.get("type").and_then(Value::as_str), target) {
                (Some("dialogue"), target) => {
                    text(s, "npcId").or(target).map_or(Step::Other, Step::Talk)
                }
                (Some("gather"), Some(item)) => Step::Gather(item, count(s)),
                (Some("interact"), Some(item)) if item != "fire" => Step::Make(item, count(s)),
                (Some("kill"), Some(npc)) => Step::Kill(npc, count(s)),
                _ => Step::Other,
            };
            Some((text(s, "id")?, step))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(QuestFacts {
        id: text(quest, "id")?,
        start_npc: text(quest, "startNpc")?,
        stages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_quests_read_from_the_file_as_the_content_loads_them() {
        let bundled = wayfarer_content::bundled();
        let read = read(bundled.files.get("quests.json").expect("quests.json"));
        let content = wayfarer_content::load_bundled();
        let mut loaded: Vec<QuestFacts> = content.quests.values().map(QuestFacts::of).collect();
        let mut read = read;
        read.sort_by(|a, b| a.id.cmp(&b.id));
        loaded.sort_by(|a, b| a.id.cmp(&b.id));
        assert_eq!(read, loaded);
        let first = read.iter().find(|q| q.id == "first_catch").unwrap();
        assert_eq!(first.start_npc, "old_marta");
        assert_eq!(
            first
                .stages
                .iter()
                .map(|(_, s)| s.clone())
                .collect::<Vec<_>>(),
            [
                Step::Talk("old_marta".into()),
                Step::Gather("raw_shrimp".into(), 5),
                Step::Make("shrimp".into(), 5),
                Step::Talk("old_marta".into()),
            ]
        );
        assert!(super::read(b"not json").is_empty());
    }
}
