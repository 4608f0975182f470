//! Prayers: `prayers.json`.

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, PrayerId, RefKind};

/// One prayer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prayer {
    /// Unique id.
    pub id: PrayerId,
    /// Display name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Icon key.
    pub icon: Option<String>,
    /// Prayer level needed.
    pub level: u32,
    /// `defensive`, `offensive`, …
    pub category: String,
    /// Drain rate (higher drains faster).
    pub drain_effect: u32,
    /// Multiplier on attack (1.0 = none).
    pub attack_multiplier: f64,
    /// Multiplier on strength.
    pub strength_multiplier: f64,
    /// Multiplier on defence.
    pub defense_multiplier: f64,
    /// Multiplier on the rate health regenerates (`bonuses.healthRegenMultiplier`, a Wayfarer
    /// extension: 2 is the classic Rapid Heal).
    pub health_regen_multiplier: f64,
    /// Prayers switched off when this one is switched on (undefined ones are dropped).
    pub conflicts: Vec<PrayerId>,
}

/// `prayers.json`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawPrayersFile {
    pub prayers: Vec<RawPrayer>,
}

/// A prayer as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawPrayer {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub icon: Option<String>,
    pub level: i64,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub drain_effect: Option<i64>,
    #[serde(default)]
    pub bonuses: RawPrayerBonuses,
    #[serde(default)]
    pub conflicts: Vec<String>,
}

/// `bonuses` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawPrayerBonuses {
    #[serde(default)]
    pub attack_multiplier: Option<f64>,
    #[serde(default)]
    pub strength_multiplier: Option<f64>,
    #[serde(default, alias = "defenceMultiplier")]
    pub defense_multiplier: Option<f64>,
    #[serde(default)]
    pub health_regen_multiplier: Option<f64>,
}

/// Normalises one prayer, dropping conflicts with undefined prayers.
pub(crate) fn normalise(raw: &RawPrayer, index: usize, ctx: &mut Ctx<'_>) -> Option<Prayer> {
    let at = |f: &str| format!("prayers[{index}].{f}");
    if !ctx.check_id(&raw.id, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    let mut conflicts = Vec::new();
    for (n, other) in raw.conflicts.iter().enumerate() {
        if ctx.check_ref(
            RefKind::Prayer,
            other,
            id,
            &at(&format!("conflicts[{n}]")),
            "the conflict is ignored",
        ) {
            conflicts.push(other.clone());
        }
    }
    let mut multiplier = |name: &str, value: Option<f64>| {
        let value = value.unwrap_or(1.0);
        if !value.is_finite() || value <= 0.0 {
            ctx.invalid(
                id,
                &at(&format!("bonuses.{name}")),
                format!("multiplier {value} must be positive"),
            );
            return 1.0;
        }
        value
    };
    let attack_multiplier = multiplier("attackMultiplier", raw.bonuses.attack_multiplier);
    let strength_multiplier = multiplier("strengthMultiplier", raw.bonuses.strength_multiplier);
    let defense_multiplier = multiplier("defenseMultiplier", raw.bonuses.defense_multiplier);
    let health_regen_multiplier =
        multiplier("healthRegenMultiplier", raw.bonuses.health_regen_multiplier);
    Some(Prayer {
        id: raw.id.clone(),
        name: raw.name.clone(),
        description: raw.description.clone().unwrap_or_default(),
        icon: raw.icon.clone(),
        level: ctx.level(id, &at("level"), raw.level),
        category: raw
            .category
            .clone()
            .unwrap_or_else(|| "defensive".to_string()),
        drain_effect: ctx.count(id, &at("drainEffect"), raw.drain_effect.unwrap_or(1)),
        attack_multiplier,
        strength_multiplier,
        defense_multiplier,
        health_regen_multiplier,
        conflicts,
    })
}
