//! Quests: `quests.json`, an object keyed by quest id.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemAmount, ItemId, NpcId, QuestId, RawItemAmount, RefKind};
use crate::skill::Skill;

/// One quest.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Quest {
    /// Unique id.
    pub id: QuestId,
    /// Display name.
    pub name: String,
    /// Description (JSON escapes such as `\u2014` already decoded).
    pub description: String,
    /// `novice`, `intermediate`, `experienced`, …
    pub difficulty: String,
    /// Quest points awarded.
    pub quest_points: u32,
    /// Whether it can be done again.
    pub replayable: bool,
    /// Quests that must be complete first.
    pub required_quests: Vec<QuestId>,
    /// Skill levels needed to start.
    pub required_skills: BTreeMap<Skill, u32>,
    /// Items needed to start.
    pub required_items: Vec<ItemAmount>,
    /// NPC who gives the quest.
    pub start_npc: NpcId,
    /// Steps in order.
    pub stages: Vec<QuestStage>,
    /// Items handed over when the quest starts.
    pub start_items: Vec<ItemAmount>,
    /// Dialogue key shown when the quest starts.
    pub start_dialogue: Option<String>,
    /// Items given on completion.
    pub reward_items: Vec<ItemAmount>,
    /// XP given on completion.
    pub reward_xp: BTreeMap<Skill, f64>,
}

/// One quest step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestStage {
    /// Stage id (unique in the quest).
    pub id: String,
    /// Journal text.
    pub description: String,
    /// What must be done.
    pub objective: Objective,
}

/// What a stage asks for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Objective {
    /// Talk to an NPC.
    Dialogue {
        /// The NPC.
        npc_id: NpcId,
    },
    /// Kill a number of an NPC.
    Kill {
        /// The NPC.
        npc_id: NpcId,
        /// How many.
        count: u32,
    },
    /// Obtain a number of an item by gathering it.
    Gather {
        /// The item.
        item_id: ItemId,
        /// How many.
        count: u32,
    },
    /// Reach an area (`travel`, our extension: `target` is an area id).
    Travel {
        /// The area.
        area_id: String,
    },
    /// Produce something: an item (cooking, smithing, fletching…) or a fire.
    Interact {
        /// What is produced.
        target: InteractTarget,
        /// How many.
        count: u32,
    },
}

/// What an interact stage produces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "itemId")]
pub enum InteractTarget {
    /// Light fires (`target: "fire"`).
    Fire,
    /// Make this item.
    Item(ItemId),
}

/// A quest as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawQuest {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub difficulty: Option<String>,
    #[serde(default)]
    pub quest_points: Option<i64>,
    #[serde(default)]
    pub replayable: bool,
    #[serde(default)]
    pub requirements: RawQuestRequirements,
    pub start_npc: String,
    pub stages: Vec<RawStage>,
    #[serde(default)]
    pub on_start: Option<RawOnStart>,
    #[serde(default)]
    pub rewards: Option<RawRewards>,
}

/// `requirements` as written.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct RawQuestRequirements {
    #[serde(default)]
    pub quests: Vec<String>,
    #[serde(default)]
    pub skills: BTreeMap<String, i64>,
    #[serde(default)]
    pub items: Vec<RawRequiredItem>,
}

/// A required item: an id, or `{itemId, quantity}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum RawRequiredItem {
    Id(String),
    Amount(RawItemAmount),
}

/// A stage as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawStage {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub npc_id: Option<String>,
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub count: Option<i64>,
}

/// `onStart` as written.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawOnStart {
    #[serde(default)]
    pub items: Vec<RawItemAmount>,
    #[serde(default)]
    pub dialogue: Option<String>,
}

/// `rewards` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawRewards {
    #[serde(default)]
    pub quest_points: Option<i64>,
    #[serde(default)]
    pub items: Vec<RawItemAmount>,
    #[serde(default)]
    pub xp: BTreeMap<String, f64>,
}

/// Normalises one quest; `None` when it has a dangling reference or cannot be run.
pub(crate) fn normalise(key: &str, raw: &RawQuest, ctx: &mut Ctx<'_>) -> Option<Quest> {
    let at = |f: &str| format!("{key}.{f}");
    if !ctx.check_keyed_id("quest", &raw.id, key, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    const DROP: &str = "the quest is disabled";
    let mut ok = true;
    ok &= ctx.check_ref(RefKind::Npc, &raw.start_npc, id, &at("startNpc"), DROP);
    let mut required_quests = Vec::new();
    for (n, q) in raw.requirements.quests.iter().enumerate() {
        ok &= ctx.check_ref(
            RefKind::Quest,
            q,
            id,
            &at(&format!("requirements.quests[{n}]")),
            DROP,
        );
        required_quests.push(q.clone());
    }
    let mut required_skills = BTreeMap::new();
    for (name, level) in &raw.requirements.skills {
        let field = at(&format!("requirements.skills.{name}"));
        match ctx.skill(name, id, &field, DROP) {
            Some(skill) => {
                required_skills.insert(skill, ctx.level(id, &field, *level));
            }
            None => ok = false,
        }
    }
    let mut required_items = Vec::new();
    for (n, item) in raw.requirements.items.iter().enumerate() {
        let field = at(&format!("requirements.items[{n}]"));
        let (item_id, quantity) = match item {
            RawRequiredItem::Id(item_id) => (item_id.clone(), 1),
            RawRequiredItem::Amount(a) => (a.item_id.clone(), a.quantity),
        };
        ok &= ctx.check_ref(RefKind::Item, &item_id, id, &field, DROP);
        required_items.push(ItemAmount {
            item_id,
            quantity: ctx.quantity(id, &field, quantity),
        });
    }
    if raw.stages.is_empty() {
        ctx.invalid(id, &at("stages"), "a quest needs at least one stage");
    }
    let mut stage_ids = BTreeSet::new();
    let mut stages = Vec::new();
    for (n, s) in raw.stages.iter().enumerate() {
        let field = |f: &str| at(&format!("stages[{n}].{f}"));
        if !stage_ids.insert(s.id.as_str()) {
            ctx.duplicate(
                id,
                &field("id"),
                format!("stage `{}` is defined twice", s.id),
            );
        }
        let count = match s.count {
            Some(c) => ctx.quantity(id, &field("count"), c),
            None => 1,
        };
        let objective = match (s.kind.as_str(), &s.npc_id, &s.target) {
            ("dialogue", Some(npc), _) | ("dialogue", None, Some(npc)) => {
                let f = if s.npc_id.is_some() {
                    "npcId"
                } else {
                    "target"
                };
                ok &= ctx.check_ref(RefKind::Npc, npc, id, &field(f), DROP);
                Objective::Dialogue {
                    npc_id: npc.clone(),
                }
            }
            ("kill", _, Some(npc)) => {
                ok &= ctx.check_ref(RefKind::Npc, npc, id, &field("target"), DROP);
                Objective::Kill {
                    npc_id: npc.clone(),
                    count,
                }
            }
            ("gather", _, Some(item)) => {
                ok &= ctx.check_ref(RefKind::Item, item, id, &field("target"), DROP);
                Objective::Gather {
                    item_id: item.clone(),
                    count,
                }
            }
            ("interact", _, Some(target)) if target == "fire" => Objective::Interact {
                target: InteractTarget::Fire,
                count,
            },
            ("interact", _, Some(item)) => {
                ok &= ctx.check_ref(RefKind::Item, item, id, &field("target"), DROP);
                Objective::Interact {
                    target: InteractTarget::Item(item.clone()),
                    count,
                }
            }
            ("travel", _, Some(area)) => Objective::Travel {
                area_id: area.clone(),
            },
            ("dialogue", None, None) => {
                ctx.invalid(id, &field("npcId"), "a dialogue stage needs npcId");
                continue;
            }
            ("kill" | "gather" | "interact" | "travel", _, None) => {
                ctx.invalid(
                    id,
                    &field("target"),
                    format!("a {} stage needs target", s.kind),
                );
                continue;
            }
            (other, _, _) => {
                ctx.invalid(
                    id,
                    &field("type"),
                    format!("unknown stage type `{other}` (expected dialogue, kill, gather, interact or travel)"),
                );
                continue;
            }
        };
        stages.push(QuestStage {
            id: s.id.clone(),
            description: s.description.clone().unwrap_or_default(),
            objective,
        });
    }
    let mut items = |list: &[RawItemAmount], path: &str, ok: &mut bool| {
        let mut out = Vec::new();
        for (n, a) in list.iter().enumerate() {
            let field = at(&format!("{path}[{n}]"));
            *ok &= ctx.check_ref(
                RefKind::Item,
                &a.item_id,
                id,
                &format!("{field}.itemId"),
                DROP,
            );
            out.push(ItemAmount {
                item_id: a.item_id.clone(),
                quantity: ctx.quantity(id, &format!("{field}.quantity"), a.quantity),
            });
        }
        out
    };
    let empty = Vec::new();
    let start_items = items(
        raw.on_start.as_ref().map_or(&empty, |s| &s.items),
        "onStart.items",
        &mut ok,
    );
    let reward_items = items(
        raw.rewards.as_ref().map_or(&empty, |r| &r.items),
        "rewards.items",
        &mut ok,
    );
    let mut reward_xp = BTreeMap::new();
    if let Some(rewards) = &raw.rewards {
        for (name, xp) in &rewards.xp {
            let field = at(&format!("rewards.xp.{name}"));
            if let Some(skill) = ctx.skill(name, id, &field, "the XP reward is ignored") {
                let xp = ctx.non_negative(id, &field, *xp);
                *reward_xp.entry(skill).or_insert(0.0) += xp;
            }
        }
    }
    let quest_points = raw
        .rewards
        .as_ref()
        .and_then(|r| r.quest_points)
        .or(raw.quest_points)
        .unwrap_or(0);
    let quest_points = ctx.count(id, &at("questPoints"), quest_points);
    if !ok {
        return None;
    }
    Some(Quest {
        id: raw.id.clone(),
        name: raw.name.clone(),
        description: raw.description.clone().unwrap_or_default(),
        difficulty: raw
            .difficulty
            .clone()
            .unwrap_or_else(|| "novice".to_string()),
        quest_points,
        replayable: raw.replayable,
        required_quests,
        required_skills,
        required_items,
        start_npc: raw.start_npc.clone(),
        stages,
        start_items,
        start_dialogue: raw.on_start.as_ref().and_then(|s| s.dialogue.clone()),
        reward_items,
        reward_xp,
    })
}

/// Disables quests whose prerequisites were disabled, until nothing changes.
pub(crate) fn cascade(quests: &mut BTreeMap<QuestId, Quest>, ctx: &mut Ctx<'_>) {
    loop {
        let mut to_drop = Vec::new();
        for quest in quests.values() {
            for (n, required) in quest.required_quests.iter().enumerate() {
                if !quests.contains_key(required) && ctx.known.has(RefKind::Quest, required) {
                    to_drop.push((quest.id.clone(), n, required.clone()));
                    break;
                }
            }
        }
        if to_drop.is_empty() {
            return;
        }
        for (id, n, required) in to_drop {
            ctx.disabled_ref(
                RefKind::Quest,
                &required,
                &id,
                &format!("{id}.requirements.quests[{n}]"),
                "the quest is disabled",
            );
            quests.remove(&id);
        }
    }
}
