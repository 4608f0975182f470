//! The prompt a language model gets each step, built to be small and to cache well:
//!
//! - the system text is the same for every agent and every step (the rules and the catalogue of
//!   every action with its parameters), and so is the one tool, `act` (`{"action", "params"}`):
//!   providers cache a prompt's unchanged prefix (the tools, then the system text), so only the
//!   user message is new each step;
//! - the user message is compact text, not the providers' JSON: the goal, the character, what it
//!   holds and wears, only the nearest entities of each kind (non-combat NPCs marked as such, never
//!   among the attack targets), the actions available now with the ids they take, an open
//!   dialogue or shop, the last decisions and the owner's messages, each section cut to its share
//!   of [`USER_BYTES`];
//! - entities are named by short aliases ([`Aliases`]: `p1` a player, `n3` an NPC, `r2` a
//!   resource, `g1` a ground item, `o1` an obstacle), given in order of first mention and kept for
//!   the agent's life, never by database ids (a player's is a UUID, new every run): the same
//!   episode gives the same prompts byte for byte, so a recording replays (`brain::tape`), and
//!   the ids cost no tokens. The model's answer names aliases; [`Aliases::resolve`] turns them
//!   back into ids before the action table reads them.
//!
//! Tokens are counted as [`tokens`] does (a byte count over three, rounded up): BPE tokenizers
//! average three and a half to four bytes a token on English and JSON, so this overcounts, and a
//! prompt this function holds to [`MAX_PROMPT_TOKENS`] is within that many real tokens.
//!
//! A function of its own so the runtime and the benchmark (`benches/llm.rs`) build the same one.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::OnceLock;

use serde_json::{json, Value};
use wayfarer_protocol::ws::EntityKind;

use crate::actions::{Ctx, ACTIONS};
use crate::brain::llm::Prompt;
use crate::goals::Goal;
use crate::runtime::DecisionRecord;

/// Decisions of `recent` the prompt shows, the latest first.
pub const RECENT_IN_PROMPT: usize = 5;
/// The most tokens (as [`tokens`] counts them) a prompt may take: system text, tool and user
/// message together (issue 32).
pub const MAX_PROMPT_TOKENS: usize = 1_500;
/// The user message's share, in bytes (what the system text and the tool leave, with room).
pub const USER_BYTES: usize = 2_600;
/// Entities of each kind the prompt lists, nearest first.
pub const ENTITIES_PER_KIND: usize = 6;
/// Longest text of one action's ids, one owner message, a dialogue's text.
const SNIPPET_BYTES: usize = 120;
/// The one tool's name.
pub const TOOL_NAME: &str = "act";

/// Tokens as the bench and the size bound count them: bytes over three, rounded up.
pub fn tokens(text: &str) -> usize {
    text.len().div_ceil(3)
}

/// A prompt's tokens: system text, the tool's definition and the user message.
pub fn prompt_tokens(prompt: &Prompt) -> usize {
    tokens(&prompt.system) + tokens(&prompt.tool.to_string()) + tokens(&prompt.user)
}

/// The one tool every step offers: `{"name", "description", "parameters"}`, the same bytes always.
pub fn act_tool() -> &'static Value {
    static TOOL: OnceLock<Value> = OnceLock::new();
    TOOL.get_or_init(|| {
        json!({
            "name": TOOL_NAME,
            "description": "Do one action. action: a name from the catalogue; params: its parameters. Only the actions listed under 'Now' in the state can succeed.",
            "parameters": {
                "type": "object",
                "properties": {
                    "action": {"type": "string"},
                    "params": {"type": "object"}
                },
                "required": ["action"]
            }
        })
    })
}

/// The system text: the rules and every action with its parameters (`?` optional), the same for
/// every agent and step.
pub fn system_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = String::from(
            "You play a character in Wayfarer, a multiplayer RPG, as an autonomous player. Each turn call the tool act once \
             with one action of the catalogue and its params. The state says which actions are possible now and with which ids; \
             others fail. Pursue the goal; keep yourself alive (eat when low, flee when losing).\nCatalogue:",
        );
        for a in ACTIONS {
            let params = (a.params)();
            let required: Vec<&str> = params["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let names: Vec<String> = params["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(name, _)| {
                    if required.contains(&name.as_str()) {
                        name.clone()
                    } else {
                        format!("{name}?")
                    }
                })
                .collect();
            let _ = write!(text, " {}({});", a.name, names.join(","));
        }
        text
    })
}

/// Short names for the entities the prompts of one agent show, stable for its life (an episode):
/// an entity keeps the alias it was first shown with.
#[derive(Debug, Clone, Default)]
pub struct Aliases {
    by_id: HashMap<String, String>,
    by_alias: HashMap<String, String>,
    /// Aliases given so far, by kind letter.
    given: HashMap<char, u32>,
}

impl Aliases {
    /// The alias of entity `id` of `kind`, given now when it has none.
    pub fn of(&mut self, id: &str, kind: Option<EntityKind>) -> String {
        if let Some(alias) = self.by_id.get(id) {
            return alias.clone();
        }
        let letter = match kind {
            Some(EntityKind::Player) => 'p',
            Some(EntityKind::Npc) => 'n',
            Some(EntityKind::Resource) => 'r',
            Some(EntityKind::GroundItem) => 'g',
            Some(EntityKind::Obstacle) => 'o',
            None => 'e',
        };
        let n = self.given.entry(letter).or_default();
        *n += 1;
        let alias = format!("{letter}{n}");
        self.by_id.insert(id.to_owned(), alias.clone());
        self.by_alias.insert(alias.clone(), id.to_owned());
        alias
    }

    /// `text` as the prompt shows it: the alias of an entity the model knows of (in view,
    /// remembered, or aliased before), else the text itself (an item, a recipe, a slot).
    fn show(&mut self, m: &crate::model::Model, text: &str) -> String {
        if let Some(alias) = self.by_id.get(text) {
            return alias.clone();
        }
        match m.entities.get(text).or_else(|| m.remembered.get(text)) {
            Some(e) => self.of(text, Some(e.kind())),
            None => text.to_owned(),
        }
    }

    /// `text` (an outcome's words) with every entity id in it shown as its alias.
    fn show_text(&mut self, m: &crate::model::Model, text: &str) -> String {
        let is_id = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find(is_id) {
            out.push_str(&rest[..start]);
            let word = &rest[start..];
            let end = word.find(|c: char| !is_id(c)).unwrap_or(word.len());
            out.push_str(&self.show(m, &word[..end]));
            rest = &word[end..];
        }
        out.push_str(rest);
        out
    }

    /// `value` with every entity id in it shown as its alias ([`Aliases::show`]).
    fn show_value(&mut self, m: &crate::model::Model, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.show(m, s)),
            Value::Array(list) => {
                Value::Array(list.iter().map(|v| self.show_value(m, v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.show_value(m, v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// The model's arguments with every alias turned back into its entity's id (a text that is
    /// no alias is left as it is: an unknown name is the action table's to refuse).
    pub fn resolve(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                if let Some(id) = self.by_alias.get(s.as_str()) {
                    *s = id.clone();
                }
            }
            Value::Array(list) => list.iter_mut().for_each(|v| self.resolve(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.resolve(v)),
            _ => {}
        }
    }
}

/// The prompt for this step: `ctx`'s character and state, towards `goal`, with the last
/// [`RECENT_IN_PROMPT`] of `recent` (oldest first there, latest first in the prompt) and the
/// owner's messages not yet shown, entities named by `aliases` (given new ones as needed). The
/// caller clears `owner_notes` once the prompt is sent.
pub fn build(
    ctx: Ctx<'_>,
    goal: &Goal,
    recent: &VecDeque<DecisionRecord>,
    owner_notes: &VecDeque<String>,
    aliases: &mut Aliases,
) -> Prompt {
    Prompt {
        system: system_text().to_owned(),
        user: user_text(ctx, goal, recent, owner_notes, aliases),
        tool: act_tool(),
    }
}

/// The user message: sections in order of need, each cut to what is left of [`USER_BYTES`].
fn user_text(
    ctx: Ctx<'_>,
    goal: &Goal,
    recent: &VecDeque<DecisionRecord>,
    owner_notes: &VecDeque<String>,
    aliases: &mut Aliases,
) -> String {
    let m = ctx.model;
    let me = &m.me;
    let mut out = Budget::new(USER_BYTES);
    let goal_json = goal.to_json(m);
    let progress = goal_json["progress"]
        .as_f64()
        .map(|p| format!(" ({:.0}%)", p * 100.0))
        .unwrap_or_default();
    out.line(&format!("Goal: {}{progress}", goal.description));
    let here = me.tile.into();
    let area = ctx
        .knowledge
        .area_at(here)
        .map(|a| a.name.as_str())
        .unwrap_or("?");
    let fighting = if m.in_combat() {
        let with = match m.last_attacker.as_deref() {
            Some(id) => aliases.show(m, id),
            None => "someone".to_owned(),
        };
        format!(", in combat with {with}")
    } else {
        String::new()
    };
    out.line(&format!(
        "Me: {} hp {}/{} at ({},{}) {area}, combat level {}, coins {}{fighting}",
        me.name, me.health, me.max_health, me.tile.x, me.tile.z, me.combat_level, me.coins
    ));
    let skills: Vec<String> = me
        .skills
        .iter()
        .filter(|(_, s)| s.level > 1)
        .map(|(skill, s)| format!("{skill} {}", s.level))
        .collect();
    out.line(&format!(
        "Skills (others 1): {}",
        if skills.is_empty() {
            "none".into()
        } else {
            skills.join(", ")
        }
    ));
    let mut held: Vec<(String, i64, u8)> = Vec::new();
    for s in &me.inventory {
        match held.iter_mut().find(|(id, _, _)| *id == s.item_id) {
            Some(h) => h.1 += s.quantity,
            None => held.push((s.item_id.clone(), s.quantity, s.slot)),
        }
    }
    let bag: Vec<String> = held
        .iter()
        .map(|(id, n, slot)| {
            if *n > 1 {
                format!("{id}x{n}@{slot}")
            } else {
                format!("{id}@{slot}")
            }
        })
        .collect();
    out.line(&format!(
        "Bag ({} free; item@slot): {}",
        m.free_slots(),
        bag.join(" ")
    ));
    let worn: Vec<String> = me
        .equipment
        .iter()
        .map(|(slot, e)| format!("{slot}={}", e.item_id))
        .collect();
    if !worn.is_empty() {
        out.line(&format!("Worn: {}", worn.join(" ")));
    }
    out.line(&near(ctx, aliases));
    let now: Vec<String> = ACTIONS
        .iter()
        .filter_map(|a| {
            let hint = (a.available)(ctx)?;
            let ids: Vec<String> = ids_in(&hint).iter().map(|i| aliases.show(m, i)).collect();
            Some(if ids.is_empty() {
                a.name.to_owned()
            } else {
                format!("{}[{}]", a.name, cut(&ids.join(","), SNIPPET_BYTES))
            })
        })
        .collect();
    out.line(&format!("Now: {}", now.join(" ")));
    if let Some(d) = &m.dialogue {
        let responses: Vec<String> = d
            .responses
            .iter()
            .map(|r| format!("{}={}", r.index, cut(&r.text, 60)))
            .collect();
        out.line(&format!(
            "Dialogue {}: {} | {}",
            d.npc_id,
            cut(&d.text, SNIPPET_BYTES),
            responses.join(" | ")
        ));
    }
    if let Some(shop) = &m.shop {
        let items: Vec<String> = shop
            .items
            .iter()
            .take(12)
            .map(|i| format!("{}:{}", i.item_id, i.price))
            .collect();
        out.line(&format!("Shop: {}", items.join(" ")));
    }
    if let Some(bank) = &m.bank {
        let items: Vec<String> = bank
            .iter()
            .take(12)
            .map(|b| format!("{}x{}", b.item_id, b.quantity))
            .collect();
        out.line(&format!("Bank ({}): {}", bank.len(), items.join(" ")));
    }
    let quests: Vec<String> = m
        .quests
        .iter()
        .filter(|q| q.status != "completed" && q.status != "not_started")
        .map(|q| {
            format!(
                "{} {} {}",
                q.quest_id,
                q.stage_id.as_deref().unwrap_or("-"),
                q.progress.unwrap_or(0)
            )
        })
        .collect();
    if !quests.is_empty() {
        out.line(&format!("Quests: {}", quests.join("; ")));
    }
    for d in recent.iter().rev().take(RECENT_IN_PROMPT) {
        let outcome = d
            .outcome
            .as_ref()
            .map(|o| cut(&aliases.show_text(m, &o.to_string()), 60))
            .unwrap_or_else(|| "running".into());
        let params = serde_json::from_str::<Value>(d.params.get())
            .map(|p| aliases.show_value(m, &p).to_string())
            .unwrap_or_else(|_| d.params.get().to_owned());
        out.line(&format!(
            "Did: {} {} -> {outcome}",
            d.action,
            cut(&params, 60)
        ));
    }
    for note in owner_notes.iter().rev().take(3) {
        out.line(&format!("Owner: {}", cut(note, SNIPPET_BYTES)));
    }
    out.text
}

/// The nearest entities of each kind: players, NPCs (fightable ones with their health, the others
/// marked `talk`), resources and ground items.
fn near(ctx: Ctx<'_>, aliases: &mut Aliases) -> String {
    let m = ctx.model;
    let mut parts = Vec::new();
    for (kind, label) in [
        (EntityKind::Npc, "npc"),
        (EntityKind::Resource, "res"),
        (EntityKind::GroundItem, "item"),
        (EntityKind::Player, "player"),
    ] {
        for e in m.nearest_of(kind).into_iter().take(ENTITIES_PER_KIND) {
            let what = e
                .type_id()
                .or(e.item_id())
                .or(e.name())
                .unwrap_or("?")
                .to_owned();
            let mut s = format!(
                "{label} {} {} d{}",
                aliases.of(e.id(), Some(kind)),
                cut(&what, 24),
                m.distance_to(e.x, e.z)
            );
            if kind == EntityKind::Npc {
                if e.type_id().is_some_and(|t| ctx.knowledge.is_service_npc(t))
                    || e.health().is_none()
                {
                    s.push_str(" talk");
                } else if let (Some(h), Some(max)) = (e.health(), e.max_health()) {
                    let _ = write!(s, " hp{h}/{max}");
                }
            }
            if e.depleted == Some(true) {
                s.push_str(" depleted");
            }
            if let Some(q) = e.quantity().filter(|q| *q > 1) {
                let _ = write!(s, " x{q}");
            }
            parts.push(s);
        }
    }
    format!("Near: {}", parts.join("; "))
}

/// The ids (or names) an action's availability hint carries, in order.
fn ids_in(hint: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_ids(hint, &mut out);
    out
}

fn collect_ids(value: &Value, out: &mut Vec<String>) {
    match value {
        // In an object, its id (the first id-like key) or else what its lists hold; a bare
        // number or text beside them is a note (a limit, a range), not an id.
        Value::Object(map) => {
            for key in [
                "id", "targetId", "recipeId", "itemId", "spellId", "slot", "index",
            ] {
                if let Some(v) = map.get(key) {
                    out.push(match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    });
                    return;
                }
            }
            for v in map.values().filter(|v| v.is_array() || v.is_object()) {
                collect_ids(v, out);
            }
        }
        Value::Array(list) => list.iter().for_each(|v| collect_ids(v, out)),
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        _ => {}
    }
}

/// `text` cut to at most `max` bytes at a character boundary, marked with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Lines appended while they fit; a line that does not fit is cut to the room left, and nothing
/// after it is added.
struct Budget {
    text: String,
    max: usize,
}

impl Budget {
    fn new(max: usize) -> Budget {
        Budget {
            text: String::with_capacity(max),
            max,
        }
    }

    fn line(&mut self, line: &str) {
        let room = self.max.saturating_sub(self.text.len() + 1);
        if room < 8 {
            return;
        }
        self.text.push_str(&cut(line, room));
        self.text.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::Knowledge;
    use crate::model::Model;
    use crate::outcome::Outcome;

    fn recent(n: u64) -> VecDeque<DecisionRecord> {
        const ACTIONS: [&str; 7] = ["a0", "a1", "a2", "a3", "a4", "a5", "a6"];
        (0..n)
            .map(|i| DecisionRecord {
                number: i,
                tick: i,
                goal: None,
                action: ACTIONS[i as usize % 7],
                params: serde_json::value::to_raw_value(&json!({"targetId": "res-1"})).unwrap(),
                reason: String::new(),
                by: "planner",
                outcome: Some(Outcome::Unknown),
            })
            .collect()
    }

    #[test]
    fn the_prompt_has_the_last_five_decisions_latest_first_the_notes_and_the_one_tool() {
        let mut model = Model::default();
        model.me.name = "Ada".into();
        let knowledge = Knowledge::default();
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let goal = Goal::from_request(&json!({"kind": "idle"})).unwrap();
        let notes = VecDeque::from(["go north".to_owned()]);
        let prompt = build(ctx, &goal, &recent(7), &notes, &mut Aliases::default());
        assert!(prompt.user.contains("Me: Ada "), "{}", prompt.user);
        let did: Vec<&str> = prompt
            .user
            .lines()
            .filter_map(|l| l.strip_prefix("Did: "))
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        assert_eq!(did, ["a6", "a5", "a4", "a3", "a2"]);
        assert!(prompt.user.contains(r#"Did: a6 {"targetId":"res-1"}"#));
        assert!(prompt.user.contains("Owner: go north"));
        assert!(prompt.user.starts_with("Goal: "));
        assert_eq!(prompt.tool["name"], TOOL_NAME);
        // Every action of the table is in the catalogue, with its parameters.
        for a in ACTIONS {
            assert!(
                prompt.system.contains(&format!(" {}(", a.name)),
                "{}",
                a.name
            );
        }
        assert!(prompt.system.contains(" attackEntity(targetId);"));
    }

    #[test]
    fn make_item_is_offered_at_an_anvil_with_the_recipes_made_here() {
        use crate::making::tests::{knowledge, model, station};
        use wayfarer_protocol::Skill;
        let knowledge = knowledge();
        let goal = Goal::from_request(&json!({"kind": "idle"})).unwrap();
        let (recent, notes) = (VecDeque::new(), VecDeque::new());
        let now_line = |items: &[(&str, i64)]| {
            let model = model(
                items,
                &[(Skill::Smithing, 4)],
                vec![station("anvil-1", "anvil", 2)],
            );
            let ctx = Ctx {
                model: &model,
                knowledge: &knowledge,
            };
            let prompt = build(ctx, &goal, &recent, &notes, &mut Aliases::default());
            prompt
                .user
                .lines()
                .find_map(|l| l.strip_prefix("Now: ").map(str::to_owned))
                .unwrap()
        };
        // A hammer alone makes nothing: no makeItem.
        assert!(!now_line(&[("hammer", 1)]).contains("makeItem"));
        let now = now_line(&[("hammer", 1), ("bronze_bar", 1)]);
        assert!(
            now.contains("makeItem[smithing:bronze_sword,smithing:bronze_helmet,"),
            "{now}"
        );
    }

    /// Hundreds of entities in view (players, mobs, the bankers and shopkeepers of the knowledge's
    /// places, trees, ground items), a full bag, every skill trained, a long dialogue and owner
    /// messages: the prompt stays within [`MAX_PROMPT_TOKENS`], a non-combat NPC is never an
    /// attack target, and the tool is byte for byte the same from one step to the next.
    #[test]
    fn a_crowded_scene_stays_within_the_token_bound_with_the_same_tool_every_step() {
        use crate::making::tests::{knowledge, model};
        use wayfarer_protocol::ws::{DialogueChoice, DialogueOpen, Entity, ServerMessage};
        use wayfarer_protocol::Skill;
        let knowledge = knowledge();
        let banker = knowledge
            .places
            .iter()
            .find(|p| p.npc)
            .map(|p| p.id.clone())
            .expect("the bundled areas place NPCs");
        let entity =
            |id: String, kind: EntityKind, type_id: &str, x: i32, hp: Option<i64>| Entity {
                id,
                kind,
                x,
                z: x % 7,
                name: Some(format!("A rather long display name {type_id}")),
                health: hp,
                max_health: hp,
                item_id: (kind == EntityKind::GroundItem).then(|| "bones".into()),
                quantity: (kind == EntityKind::GroundItem).then_some(3),
                resource_type: (kind == EntityKind::Resource).then(|| "tree".into()),
                depleted: (kind == EntityKind::Resource).then_some(false),
                type_id: Some(type_id.into()),
                worn: None,
                open: None,
                side: None,
                quest: None,
            };
        let mut crowd = Vec::new();
        for n in 0..150 {
            let x = n % 30 - 15;
            crowd.push(entity(
                format!("npc-{n}"),
                EntityKind::Npc,
                "goblin",
                x + 1,
                Some(5),
            ));
            crowd.push(entity(
                format!("svc-{n}"),
                EntityKind::Npc,
                &banker,
                x,
                Some(10),
            ));
            crowd.push(entity(
                format!("res-{n}"),
                EntityKind::Resource,
                "tree_normal",
                x,
                None,
            ));
            crowd.push(entity(
                format!("gi-{n}"),
                EntityKind::GroundItem,
                "bones",
                x,
                None,
            ));
            crowd.push(entity(
                format!("p-{n}"),
                EntityKind::Player,
                "player",
                x,
                Some(10),
            ));
        }
        let items: Vec<(String, i64)> = (0..28).map(|n| (format!("bronze_item_{n}"), 1)).collect();
        let items: Vec<(&str, i64)> = items.iter().map(|(i, q)| (i.as_str(), *q)).collect();
        let levels: Vec<(Skill, i64)> = Skill::ALL.iter().map(|s| (*s, 50)).collect();
        let mut model = model(&items, &levels, crowd);
        model.apply(&ServerMessage::DialogueOpen(DialogueOpen {
            npc_id: banker.clone(),
            entity_id: "svc-0".into(),
            node_id: "greeting".into(),
            text: "A long speech. ".repeat(100),
            responses: (0..10)
                .map(|index| DialogueChoice {
                    index,
                    text: "A long answer to give. ".repeat(10),
                })
                .collect(),
        }));
        assert!(model.entities.len() >= 700, "{}", model.entities.len());
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let goal =
            Goal::from_request(&json!({"kind": "combat", "target": {"npcId": "goblin"}})).unwrap();
        let notes: VecDeque<String> = (0..10).map(|_| "x".repeat(500)).collect();
        let mut aliases = Aliases::default();
        let prompt = build(ctx, &goal, &recent(50), &notes, &mut aliases);
        let total = prompt_tokens(&prompt);
        println!(
            "crowded prompt: {total} tokens (system {}, tool {}, user {})",
            tokens(&prompt.system),
            tokens(&prompt.tool.to_string()),
            tokens(&prompt.user)
        );
        assert!(
            total <= MAX_PROMPT_TOKENS,
            "{total} tokens:\n{}\n{}",
            prompt.system,
            prompt.user
        );
        assert!(prompt.user.len() <= USER_BYTES);
        // No database id is shown: entities go by their aliases.
        for id in ["npc-", "svc-", "res-", "gi-", "p-"] {
            assert!(
                !prompt.user.contains(&format!(" {id}")),
                "{id}: {}",
                prompt.user
            );
        }
        let id_of = |alias: &str| aliases.by_alias.get(alias).cloned().unwrap_or_default();
        // The goblins are there with their health, the banker only to talk to, never to attack.
        assert!(prompt.user.contains("npc n1 "), "{}", prompt.user);
        let now = prompt
            .user
            .lines()
            .find_map(|l| l.strip_prefix("Now: "))
            .unwrap();
        let attack = now
            .split(' ')
            .find(|a| a.starts_with("attackEntity["))
            .expect("goblins to attack");
        let targets: Vec<String> = attack["attackEntity[".len()..]
            .trim_end_matches(']')
            .split(',')
            .filter(|a| !a.ends_with('…'))
            .map(id_of)
            .collect();
        assert!(
            !targets.is_empty() && targets.iter().all(|t| t.starts_with("npc-")),
            "{attack}: {targets:?}"
        );
        for line in prompt.user.lines().filter(|l| l.starts_with("Near: ")) {
            for part in line.split("; ") {
                let alias = part.split(' ').nth(1).unwrap_or_default();
                if id_of(alias).starts_with("svc-") {
                    assert!(part.ends_with(" talk"), "{part}");
                }
            }
        }
        // Another step, another scene: the same system text and tool, byte for byte.
        let calm = crate::making::tests::model(&[("logs", 1)], &[], vec![]);
        let other = build(
            Ctx {
                model: &calm,
                knowledge: &knowledge,
            },
            &goal,
            &VecDeque::new(),
            &VecDeque::new(),
            &mut Aliases::default(),
        );
        assert_ne!(other.user, prompt.user);
        assert_eq!(other.system, prompt.system);
        assert_eq!(other.tool.to_string(), prompt.tool.to_string());
        assert!(prompt_tokens(&other) < total);
    }

    #[test]
    fn aliases_are_given_in_order_kept_for_the_episode_and_resolved_back_to_ids() {
        let mut aliases = Aliases::default();
        let player = "0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b";
        assert_eq!(aliases.of(player, Some(EntityKind::Player)), "p1");
        assert_eq!(aliases.of("npc-17", Some(EntityKind::Npc)), "n1");
        assert_eq!(aliases.of("res-3", Some(EntityKind::Resource)), "r1");
        assert_eq!(aliases.of("npc-4", Some(EntityKind::Npc)), "n2");
        // The same entity keeps its alias.
        assert_eq!(aliases.of(player, Some(EntityKind::Player)), "p1");
        let mut answer = json!({"targetId": "p1", "targetIds": ["n2", "r1"], "itemId": "logs", "slot": 3, "x": "r9"});
        aliases.resolve(&mut answer);
        let model = crate::model::Model::default();
        assert_eq!(
            aliases.show_text(&model, &format!("defeated Sparrer ({player}), res-3 npc-9")),
            "defeated Sparrer (p1), r1 npc-9"
        );
        assert_eq!(
            answer,
            json!({"targetId": player, "targetIds": ["npc-4", "res-3"], "itemId": "logs", "slot": 3, "x": "r9"})
        );
    }
}
