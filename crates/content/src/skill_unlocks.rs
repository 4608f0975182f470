//! Skill unlocks: `skill-unlocks.json` (served at `/api/data/skill-unlocks`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::common::Ctx;
use crate::skill::Skill;

/// One thing a skill level unlocks (interface specification 2.2).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SkillUnlock {
    /// Level needed.
    pub level: u32,
    /// What is unlocked.
    pub description: String,
    /// `item`, `ability`, `area`, `quest` or `activity`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// The unlock types the interface specification allows.
pub const UNLOCK_TYPES: [&str; 5] = ["item", "ability", "area", "quest", "activity"];

/// `skill-unlocks.json`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawSkillUnlocksFile {
    pub skills: BTreeMap<String, Vec<RawSkillUnlock>>,
}

/// An unlock as written.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawSkillUnlock {
    pub level: i64,
    pub description: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// Normalises the unlock set: skill names canonicalised, lists sorted by level.
pub(crate) fn normalise(
    raw: &RawSkillUnlocksFile,
    ctx: &mut Ctx<'_>,
) -> BTreeMap<Skill, Vec<SkillUnlock>> {
    let mut out: BTreeMap<Skill, Vec<SkillUnlock>> = BTreeMap::new();
    for (name, list) in &raw.skills {
        let Some(skill) = ctx.skill(
            name,
            name,
            &format!("skills.{name}"),
            "its unlocks are ignored",
        ) else {
            continue;
        };
        if out.contains_key(&skill) {
            ctx.duplicate(
                name,
                &format!("skills.{name}"),
                format!("skill `{skill}` is listed twice"),
            );
        }
        let entries = out.entry(skill).or_default();
        for (n, unlock) in list.iter().enumerate() {
            let field = format!("skills.{name}[{n}]");
            if !UNLOCK_TYPES.contains(&unlock.kind.as_str()) {
                ctx.invalid(
                    name,
                    &format!("{field}.type"),
                    format!(
                        "unlock type `{}` is not one of {}",
                        unlock.kind,
                        UNLOCK_TYPES.join(", ")
                    ),
                );
            }
            entries.push(SkillUnlock {
                level: ctx.level(name, &format!("{field}.level"), unlock.level),
                description: unlock.description.clone(),
                kind: unlock.kind.clone(),
            });
        }
        entries.sort_by_key(|u| u.level);
    }
    out
}
