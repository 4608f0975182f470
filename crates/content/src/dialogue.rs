//! Dialogue trees (the `dialogue` of `npcs.json`) with the reference game's newer fields: quest
//! overrides of the entry node, effects on nodes and responses, and conditions on responses
//! (CONTRACT.md section 8; `../shared/reference-content/SCHEMAS.md`, "Dialogue trees").
//!
//! Conditions and effects are strings in the file; they are read here into [`Condition`] and
//! [`Effect`], so an unknown one is a content error at load (a response carrying it is dropped:
//! never shown, never silently true).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemId, QuestId, RefKind};
use crate::skill::Skill;

/// A conversation tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Dialogue {
    /// First node.
    pub entry_node_id: String,
    /// All nodes.
    pub nodes: Vec<DialogueNode>,
    /// Entry nodes by quest and the player's status in it.
    pub quest_overrides: BTreeMap<QuestId, QuestOverride>,
}

impl Dialogue {
    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&DialogueNode> {
        self.nodes.iter().find(|n| n.id == id)
    }
}

/// Entry nodes used while the player's quest is in a status (checked in the order
/// `ready_to_complete`, `in_progress`, `completed`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct QuestOverride {
    /// While the quest is in progress (and not ready to complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_progress: Option<String>,
    /// When every stage before the final dialogue is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_to_complete: Option<String>,
    /// Once completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed: Option<String>,
}

/// One line the NPC says, with the player's choices.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogueNode {
    /// Node id.
    pub id: String,
    /// What the NPC says.
    pub text: String,
    /// Player choices; none ends the conversation.
    pub responses: Vec<DialogueResponse>,
    /// Run when the node is shown.
    pub effects: Vec<Effect>,
}

/// One player choice.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogueResponse {
    /// Its index among the node's responses as written (stable: hidden responses leave gaps).
    pub index: u32,
    /// What the player says.
    pub text: String,
    /// Node shown next.
    pub next_node_id: String,
    /// All must hold for the response to be shown.
    pub conditions: Vec<Condition>,
    /// Run when the response is chosen.
    pub effects: Vec<Effect>,
}

/// A player's status in a quest, as conditions and overrides name it, as the store keeps it, and
/// as REST and the socket show it: the one place its names are written.
/// A quest without a record is [`QuestStatus::NotStarted`] (its `Default`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum QuestStatus {
    /// Never started.
    #[default]
    NotStarted,
    /// Started, stages left before the final dialogue.
    InProgress,
    /// Every stage before the final dialogue done.
    ReadyToComplete,
    /// Done (a replayable quest may be started again).
    Completed,
}

impl QuestStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            QuestStatus::NotStarted => "not_started",
            QuestStatus::InProgress => "in_progress",
            QuestStatus::ReadyToComplete => "ready_to_complete",
            QuestStatus::Completed => "completed",
        }
    }

    /// Reads a wire name.
    pub fn parse(name: &str) -> Option<QuestStatus> {
        Some(match name {
            "not_started" => QuestStatus::NotStarted,
            "in_progress" => QuestStatus::InProgress,
            "ready_to_complete" => QuestStatus::ReadyToComplete,
            "completed" => QuestStatus::Completed,
            _ => return None,
        })
    }
}

/// A condition on a response (CONTRACT.md section 8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub enum Condition {
    /// `hasItem:<itemId>[:<qty>]`: holds at least that many (inventory).
    HasItem {
        /// The item.
        item_id: ItemId,
        /// How many (default 1).
        quantity: u32,
    },
    /// `lacksItem:<itemId>`: holds none (inventory or worn).
    LacksItem {
        /// The item.
        item_id: ItemId,
    },
    /// `skill:<skill>:<level>`: the skill is at least that level.
    Skill {
        /// The skill.
        skill: Skill,
        /// The level.
        level: u32,
    },
    /// `questStatus:<questId>:<status>`.
    QuestStatus {
        /// The quest.
        quest_id: QuestId,
        /// The status it must be in.
        status: QuestStatus,
    },
    /// `questPoints:<n>`: at least that many quest points.
    QuestPoints(u32),
}

/// A server action of a node or response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub enum Effect {
    /// `openBank`.
    OpenBank,
    /// `openStore[:<storeId>]` (alias `openShop`): the NPC's own store when none is named.
    OpenStore(Option<String>),
    /// `openTanner`: tans the hides the player holds and can pay for (`recipes/tanning.json`).
    OpenTanner,
    /// `startQuest:<questId>`.
    StartQuest(QuestId),
    /// `completeQuest:<questId>`.
    CompleteQuest(QuestId),
    /// `giveItem:<itemId>[:<qty>]` (our extension).
    GiveItem {
        /// The item.
        item_id: ItemId,
        /// How many (default 1).
        quantity: u32,
    },
    /// `takeItem:<itemId>[:<qty>]` (our extension).
    TakeItem {
        /// The item.
        item_id: ItemId,
        /// How many (default 1).
        quantity: u32,
    },
    /// `teleport:<x>:<z>` (our extension): the player to that tile (or the nearest walkable one).
    Teleport {
        /// Tile x.
        x: i32,
        /// Tile z.
        z: i32,
    },
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::HasItem { item_id, quantity } => write!(f, "hasItem:{item_id}:{quantity}"),
            Condition::LacksItem { item_id } => write!(f, "lacksItem:{item_id}"),
            Condition::Skill { skill, level } => write!(f, "skill:{}:{level}", skill.as_str()),
            Condition::QuestStatus { quest_id, status } => {
                write!(f, "questStatus:{quest_id}:{}", status.as_str())
            }
            Condition::QuestPoints(n) => write!(f, "questPoints:{n}"),
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Effect::OpenBank => write!(f, "openBank"),
            Effect::OpenStore(None) => write!(f, "openStore"),
            Effect::OpenStore(Some(id)) => write!(f, "openStore:{id}"),
            Effect::OpenTanner => write!(f, "openTanner"),
            Effect::StartQuest(id) => write!(f, "startQuest:{id}"),
            Effect::CompleteQuest(id) => write!(f, "completeQuest:{id}"),
            Effect::GiveItem { item_id, quantity } => write!(f, "giveItem:{item_id}:{quantity}"),
            Effect::TakeItem { item_id, quantity } => write!(f, "takeItem:{item_id}:{quantity}"),
            Effect::Teleport { x, z } => write!(f, "teleport:{x}:{z}"),
        }
    }
}

impl From<Condition> for String {
    fn from(c: Condition) -> String {
        c.to_string()
    }
}

impl From<Effect> for String {
    fn from(e: Effect) -> String {
        e.to_string()
    }
}

fn amount(text: Option<&str>) -> Result<u32, String> {
    match text {
        None => Ok(1),
        Some(t) => match t.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!("`{t}` is not a quantity of at least 1")),
        },
    }
}

impl Condition {
    /// Reads one condition (no `&`).
    pub fn parse(text: &str) -> Result<Condition, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let bad = || {
            format!("`{text}` is not a condition (hasItem:<item>[:<qty>], lacksItem:<item>, skill:<skill>:<level>, questStatus:<quest>:<status>, questPoints:<n>)")
        };
        Ok(match parts.as_slice() {
            ["hasItem", item] | ["hasItem", item, _] if !item.is_empty() => Condition::HasItem {
                item_id: (*item).to_owned(),
                quantity: amount(parts.get(2).copied())?,
            },
            ["lacksItem", item] if !item.is_empty() => Condition::LacksItem {
                item_id: (*item).to_owned(),
            },
            ["skill", skill, level] => Condition::Skill {
                skill: Skill::parse(skill).ok_or_else(|| format!("unknown skill `{skill}`"))?,
                level: level
                    .parse()
                    .map_err(|_| format!("`{level}` is not a level"))?,
            },
            ["questStatus", quest, status] if !quest.is_empty() => Condition::QuestStatus {
                quest_id: (*quest).to_owned(),
                status: QuestStatus::parse(status).ok_or_else(|| {
                    format!("unknown quest status `{status}` (not_started, in_progress, ready_to_complete, completed)")
                })?,
            },
            ["questPoints", n] => Condition::QuestPoints(
                n.parse()
                    .map_err(|_| format!("`{n}` is not a number of quest points"))?,
            ),
            _ => return Err(bad()),
        })
    }
}

impl Effect {
    /// Reads one effect (no `&`).
    pub fn parse(text: &str) -> Result<Effect, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let bad = || {
            format!("`{text}` is not an effect (openBank, openStore[:<store>], openShop, openTanner, startQuest:<quest>, completeQuest:<quest>, giveItem:<item>[:<qty>], takeItem:<item>[:<qty>], teleport:<x>:<z>)")
        };
        Ok(match parts.as_slice() {
            ["openBank"] => Effect::OpenBank,
            ["openStore" | "openShop"] => Effect::OpenStore(None),
            ["openStore" | "openShop", store] if !store.is_empty() => {
                Effect::OpenStore(Some((*store).to_owned()))
            }
            ["openTanner"] => Effect::OpenTanner,
            ["startQuest", quest] if !quest.is_empty() => Effect::StartQuest((*quest).to_owned()),
            ["completeQuest", quest] if !quest.is_empty() => {
                Effect::CompleteQuest((*quest).to_owned())
            }
            ["giveItem", item] | ["giveItem", item, _] if !item.is_empty() => Effect::GiveItem {
                item_id: (*item).to_owned(),
                quantity: amount(parts.get(2).copied())?,
            },
            ["takeItem", item] | ["takeItem", item, _] if !item.is_empty() => Effect::TakeItem {
                item_id: (*item).to_owned(),
                quantity: amount(parts.get(2).copied())?,
            },
            ["teleport", x, z] => Effect::Teleport {
                x: x.parse().map_err(|_| format!("`{x}` is not a tile x"))?,
                z: z.parse().map_err(|_| format!("`{z}` is not a tile z"))?,
            },
            _ => return Err(bad()),
        })
    }
}

/// `dialogue` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawDialogue {
    pub entry_node_id: String,
    pub nodes: Vec<RawNode>,
    #[serde(default)]
    pub quest_overrides: BTreeMap<String, QuestOverride>,
}

/// A node as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawNode {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub responses: Vec<RawResponse>,
    #[serde(default)]
    pub effect: Option<String>,
}

/// A response as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawResponse {
    pub text: String,
    pub next_node_id: String,
    #[serde(default)]
    pub effect: Option<String>,
    #[serde(default)]
    pub condition: Option<String>,
}

/// Reads `&`-joined effects, checking what they refer to; `None` (reported) when one is unknown
/// or refers to something that does not exist.
fn effects(text: Option<&str>, npc: &str, field: &str, ctx: &mut Ctx<'_>) -> Option<Vec<Effect>> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Some(Vec::new());
    };
    let mut out = Vec::new();
    for part in text.split('&').map(str::trim) {
        let effect = match Effect::parse(part) {
            Ok(e) => e,
            Err(message) => {
                ctx.invalid(npc, field, message);
                return None;
            }
        };
        const DROP: &str = "the response (or node effect) is dropped";
        let ok = match &effect {
            Effect::OpenStore(Some(store)) => {
                ctx.check_ref(RefKind::Store, store, npc, field, DROP)
            }
            Effect::StartQuest(q) | Effect::CompleteQuest(q) => {
                ctx.check_ref(RefKind::Quest, q, npc, field, DROP)
            }
            Effect::GiveItem { item_id, .. } | Effect::TakeItem { item_id, .. } => {
                ctx.check_ref(RefKind::Item, item_id, npc, field, DROP)
            }
            _ => true,
        };
        if !ok {
            return None;
        }
        out.push(effect);
    }
    Some(out)
}

/// Reads `&`-joined conditions; `None` (reported as an error) when one is unknown.
fn conditions(
    text: Option<&str>,
    npc: &str,
    field: &str,
    ctx: &mut Ctx<'_>,
) -> Option<Vec<Condition>> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Some(Vec::new());
    };
    let mut out = Vec::new();
    for part in text.split('&').map(str::trim) {
        let condition = match Condition::parse(part) {
            Ok(c) => c,
            Err(message) => {
                ctx.invalid(npc, field, message);
                return None;
            }
        };
        const DROP: &str = "the response is dropped";
        let ok = match &condition {
            Condition::HasItem { item_id, .. } | Condition::LacksItem { item_id } => {
                ctx.check_ref(RefKind::Item, item_id, npc, field, DROP)
            }
            Condition::QuestStatus { quest_id, .. } => {
                ctx.check_ref(RefKind::Quest, quest_id, npc, field, DROP)
            }
            _ => true,
        };
        if !ok {
            return None;
        }
        out.push(condition);
    }
    Some(out)
}

/// Normalises a dialogue: node ids unique, links and overrides leading to existing nodes,
/// conditions and effects read (a response with one that cannot be read is dropped).
pub(crate) fn normalise(d: &RawDialogue, npc: &str, path: &str, ctx: &mut Ctx<'_>) -> Dialogue {
    let mut ids = BTreeSet::new();
    for (n, node) in d.nodes.iter().enumerate() {
        if !ids.insert(node.id.as_str()) {
            ctx.duplicate(
                npc,
                &format!("{path}.nodes[{n}].id"),
                format!("dialogue node `{}` is defined twice", node.id),
            );
        }
    }
    if !ids.contains(d.entry_node_id.as_str()) {
        ctx.invalid(
            npc,
            &format!("{path}.entryNodeId"),
            format!("entry node `{}` does not exist", d.entry_node_id),
        );
    }
    let mut nodes = Vec::new();
    for (n, node) in d.nodes.iter().enumerate() {
        let mut responses = Vec::new();
        for (r, response) in node.responses.iter().enumerate() {
            let at = format!("{path}.nodes[{n}].responses[{r}]");
            if !ids.contains(response.next_node_id.as_str()) {
                ctx.invalid(
                    npc,
                    &format!("{at}.nextNodeId"),
                    format!("dialogue node `{}` does not exist", response.next_node_id),
                );
                continue;
            }
            let Some(conditions) = conditions(
                response.condition.as_deref(),
                npc,
                &format!("{at}.condition"),
                ctx,
            ) else {
                continue;
            };
            let Some(effects) = effects(
                response.effect.as_deref(),
                npc,
                &format!("{at}.effect"),
                ctx,
            ) else {
                continue;
            };
            responses.push(DialogueResponse {
                index: r as u32,
                text: response.text.clone(),
                next_node_id: response.next_node_id.clone(),
                conditions,
                effects,
            });
        }
        let effects = effects(
            node.effect.as_deref(),
            npc,
            &format!("{path}.nodes[{n}].effect"),
            ctx,
        )
        .unwrap_or_default();
        nodes.push(DialogueNode {
            id: node.id.clone(),
            text: node.text.clone(),
            responses,
            effects,
        });
    }
    let mut quest_overrides = BTreeMap::new();
    for (quest, over) in &d.quest_overrides {
        let at = format!("{path}.questOverrides.{quest}");
        if !ctx.check_ref(RefKind::Quest, quest, npc, &at, "the override is ignored") {
            continue;
        }
        let mut ok = true;
        for (name, node) in [
            ("in_progress", &over.in_progress),
            ("ready_to_complete", &over.ready_to_complete),
            ("completed", &over.completed),
        ] {
            if let Some(node) = node {
                if !ids.contains(node.as_str()) {
                    ctx.invalid(
                        npc,
                        &format!("{at}.{name}"),
                        format!("dialogue node `{node}` does not exist"),
                    );
                    ok = false;
                }
            }
        }
        if ok {
            quest_overrides.insert(quest.clone(), over.clone());
        }
    }
    Dialogue {
        entry_node_id: d.entry_node_id.clone(),
        nodes,
        quest_overrides,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_and_effects_read_and_print_back() {
        for text in [
            "hasItem:coins:100",
            "lacksItem:bronze_sword",
            "skill:attack:10",
            "questStatus:goblin_slayer:ready_to_complete",
            "questPoints:3",
        ] {
            assert_eq!(Condition::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            Condition::parse("hasItem:logs").unwrap(),
            Condition::HasItem {
                item_id: "logs".into(),
                quantity: 1
            }
        );
        for text in [
            "openBank",
            "openStore",
            "openStore:general",
            "openTanner",
            "startQuest:q",
            "completeQuest:q",
            "giveItem:logs:2",
            "takeItem:logs:1",
            "teleport:-3:12",
        ] {
            assert_eq!(Effect::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(Effect::parse("openShop").unwrap(), Effect::OpenStore(None));
    }

    #[test]
    fn a_quest_status_has_one_name_as_text_and_in_serde() {
        for status in [
            QuestStatus::NotStarted,
            QuestStatus::InProgress,
            QuestStatus::ReadyToComplete,
            QuestStatus::Completed,
        ] {
            assert_eq!(QuestStatus::parse(status.as_str()), Some(status));
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::Value::from(status.as_str())
            );
        }
        assert_eq!(QuestStatus::default().as_str(), "not_started");
        assert_eq!(QuestStatus::parse("done"), None);
    }

    #[test]
    fn unknown_conditions_and_effects_are_errors() {
        for bad in [
            "hasGold:5",
            "skill:juggling:3",
            "questStatus:q:half_done",
            "hasItem:",
            "hasItem:coins:0",
            "questPoints:x",
            "",
        ] {
            assert!(Condition::parse(bad).is_err(), "{bad}");
        }
        for bad in ["openVault", "startQuest", "teleport:1", "giveItem:logs:-1"] {
            assert!(Effect::parse(bad).is_err(), "{bad}");
        }
    }
}
