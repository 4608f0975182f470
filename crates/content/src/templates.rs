//! Character templates: `templates.json`, a bundled extension of the reference format (the reference
//! game names `/api/template/*` without showing its data). A template is a way to start: the items a
//! new character holds instead of the starter kit, skill levels above the defaults, and a goal preset
//! an agent playing the character starts with (the goal shape of CONTRACT.md section 7).
//!
//! ```json
//! [{"id": "skiller", "name": "Skiller", "description": "…",
//!   "items": [{"itemId": "bronze_hatchet", "quantity": 1}],
//!   "skills": {"woodcutting": 10},
//!   "goal": {"kind": "skill", "description": "…", "target": {"skill": "woodcutting", "level": 30}}}]
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemAmount, RawItemAmount, RefKind};
use crate::Skill;

/// Highest skill level a template may give.
pub const MAX_TEMPLATE_LEVEL: u8 = 99;
/// Most items a template may give: one inventory.
pub const MAX_TEMPLATE_ITEMS: usize = 28;

/// One character template.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CharacterTemplate {
    /// Unique id (`templateId` in `POST /api/character`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// What the template is for.
    pub description: String,
    /// What the character starts holding (instead of the starter kit).
    pub items: Vec<ItemAmount>,
    /// Starting levels of the skills named; the others keep the record defaults.
    pub skills: BTreeMap<Skill, u8>,
    /// The goal an agent playing the character starts with.
    pub goal: Option<GoalPreset>,
}

/// A goal as `POST /api/agents/<id>/goal` takes it (CONTRACT.md section 7).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GoalPreset {
    /// One of [`GOAL_KINDS`].
    pub kind: String,
    /// What the goal is, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The kind's target (`{}` for kinds without one).
    pub target: serde_json::Value,
}

/// The goal kinds of CONTRACT.md section 7.
pub const GOAL_KINDS: [&str; 9] = [
    "skill", "combat", "gather", "cook", "bank", "earn", "follow", "explore", "idle",
];

/// A template as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawTemplate {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub items: Vec<RawItemAmount>,
    #[serde(default)]
    pub skills: BTreeMap<String, i64>,
    #[serde(default)]
    pub goal: Option<RawGoal>,
}

/// A goal preset as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawGoal {
    pub kind: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub target: Option<serde_json::Value>,
}

/// Normalises one template: unknown items and skills are errors (a template that silently gives less
/// than it says is worse than none), levels must be 1–99.
pub(crate) fn normalise(
    raw: &RawTemplate,
    index: usize,
    ctx: &mut Ctx<'_>,
) -> Option<CharacterTemplate> {
    let at = |f: &str| format!("[{index}].{f}");
    if !ctx.check_id(&raw.id, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    let mut ok = true;
    let mut items = Vec::new();
    for (n, item) in raw.items.iter().enumerate() {
        let field = at(&format!("items[{n}]"));
        if !ctx.check_ref(
            RefKind::Item,
            &item.item_id,
            id,
            &format!("{field}.itemId"),
            "the template is dropped",
        ) {
            ok = false;
            continue;
        }
        let quantity = ctx.count(id, &format!("{field}.quantity"), item.quantity);
        if quantity == 0 {
            ctx.invalid(
                id,
                &format!("{field}.quantity"),
                "quantity must be at least 1",
            );
            ok = false;
            continue;
        }
        items.push(ItemAmount {
            item_id: item.item_id.clone(),
            quantity,
        });
    }
    if items.len() > MAX_TEMPLATE_ITEMS {
        ctx.invalid(
            id,
            &at("items"),
            format!("at most {MAX_TEMPLATE_ITEMS} items (one inventory)"),
        );
        ok = false;
    }
    let mut skills = BTreeMap::new();
    for (name, level) in &raw.skills {
        let field = at(&format!("skills.{name}"));
        let Some(skill) = Skill::parse(name) else {
            ctx.invalid(id, &field, format!("unknown skill `{name}`"));
            ok = false;
            continue;
        };
        if !(1..=i64::from(MAX_TEMPLATE_LEVEL)).contains(level) {
            ctx.invalid(
                id,
                &field,
                format!("level {level} is outside 1–{MAX_TEMPLATE_LEVEL}"),
            );
            ok = false;
            continue;
        }
        skills.insert(skill, *level as u8);
    }
    let goal = match &raw.goal {
        None => None,
        Some(goal) => match goal_preset(goal) {
            Ok(preset) => Some(preset),
            Err(reason) => {
                ctx.invalid(id, &at("goal"), reason);
                ok = false;
                None
            }
        },
    };
    ok.then(|| CharacterTemplate {
        id: raw.id.clone(),
        name: raw.name.clone(),
        description: raw.description.clone().unwrap_or_default(),
        items,
        skills,
        goal,
    })
}

/// Checks a goal's kind and the shape of its target (CONTRACT.md section 7).
fn goal_preset(raw: &RawGoal) -> Result<GoalPreset, String> {
    if !GOAL_KINDS.contains(&raw.kind.as_str()) {
        return Err(format!(
            "unknown goal kind `{}` (kinds: {})",
            raw.kind,
            GOAL_KINDS.join(", ")
        ));
    }
    let target = raw
        .target
        .clone()
        .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
    let Some(fields) = target.as_object() else {
        return Err("a goal's target is an object".into());
    };
    let string = |name: &str| fields.get(name).and_then(|v| v.as_str());
    let positive = |name: &str| fields.get(name).and_then(|v| v.as_u64()).filter(|n| *n > 0);
    let valid = match raw.kind.as_str() {
        "skill" => {
            string("skill").and_then(Skill::parse).is_some()
                && positive("level").is_some_and(|l| l <= u64::from(MAX_TEMPLATE_LEVEL))
        }
        "gather" => string("itemId").is_some() && positive("quantity").is_some(),
        "earn" => positive("coins").is_some(),
        "follow" => string("playerName").is_some_and(|n| !n.is_empty()),
        "combat" | "cook" | "explore" | "bank" | "idle" => true,
        _ => false,
    };
    if !valid {
        return Err(format!(
            "the target {target} does not fit a `{}` goal",
            raw.kind
        ));
    }
    Ok(GoalPreset {
        kind: raw.kind.clone(),
        description: raw.description.clone(),
        target,
    })
}
