//! Combat spells: `spells.json` (CONTRACT.md section 11), our manifest in the reference files'
//! style: `{spells:[{id, name, level, type:"combat", element?, baseMaxHit, xp, runes:[{itemId,
//! quantity}], attackSpeedTicks?}]}`. Runes are items; a spell naming a rune content lacks is
//! dropped (the loader first falls back to the bundled rune items, `fallback`).

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemAmount, RawItemAmount, RefKind};

/// Spell ids, like `wind_strike`.
pub type SpellId = String;

/// Ticks between casts when a spell does not say (the genre's 3 s for standard spells).
pub const DEFAULT_CAST_TICKS: u32 = 5;

/// The one spell type there is so far.
pub const COMBAT: &str = "combat";

/// One spell.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Spell {
    /// Unique id.
    pub id: SpellId,
    /// Display name (`Wind Strike`).
    pub name: String,
    /// Magic level needed to cast it.
    pub level: u32,
    /// `combat` (the only type so far).
    pub kind: String,
    /// `air`, `water`, `earth`, `fire`, when elemental.
    pub element: Option<String>,
    /// The spell's own max hit, before equipment's magic damage bonus.
    pub base_max_hit: u32,
    /// Magic XP for a cast, whatever it hits (the damage adds 2 per point).
    pub xp: f64,
    /// Runes one cast uses up.
    pub runes: Vec<ItemAmount>,
    /// Ticks between casts.
    pub attack_speed_ticks: u32,
}

/// `spells.json`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawSpellsFile {
    pub spells: Vec<RawSpell>,
}

/// A spell as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawSpell {
    pub id: String,
    pub name: String,
    pub level: i64,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub element: Option<String>,
    pub base_max_hit: i64,
    #[serde(alias = "baseXp")]
    pub xp: f64,
    #[serde(default)]
    pub runes: Vec<RawItemAmount>,
    #[serde(default)]
    pub attack_speed_ticks: Option<i64>,
}

/// Normalises one spell; `None` when its id is empty, its type is not `combat`, or a rune is
/// not an item.
pub(crate) fn normalise(raw: &RawSpell, index: usize, ctx: &mut Ctx<'_>) -> Option<Spell> {
    let at = |f: &str| format!("spells[{index}].{f}");
    if !ctx.check_id(&raw.id, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    let kind = raw.kind.clone().unwrap_or_else(|| COMBAT.to_owned());
    if kind != COMBAT {
        // A warning: a served file may carry spell types a newer game knows.
        ctx.questionable(
            id,
            &at("type"),
            format!("spell type {kind:?} is not supported (only \"combat\"); the spell is dropped"),
        );
        return None;
    }
    let mut ok = true;
    let mut runes = Vec::new();
    for (n, rune) in raw.runes.iter().enumerate() {
        let field = at(&format!("runes[{n}]"));
        ok &= ctx.check_ref(
            RefKind::Item,
            &rune.item_id,
            id,
            &format!("{field}.itemId"),
            "the spell is dropped",
        );
        runes.push(ItemAmount {
            item_id: rune.item_id.clone(),
            quantity: ctx.quantity(id, &format!("{field}.quantity"), rune.quantity),
        });
    }
    if runes.is_empty() {
        ctx.questionable(id, &at("runes"), "the spell costs no runes");
    }
    let attack_speed_ticks = match raw.attack_speed_ticks {
        Some(ticks) => ctx.count(id, &at("attackSpeedTicks"), ticks).max(1),
        None => DEFAULT_CAST_TICKS,
    };
    let spell = Spell {
        id: raw.id.clone(),
        name: raw.name.clone(),
        level: ctx.level(id, &at("level"), raw.level),
        kind,
        element: raw.element.clone(),
        base_max_hit: ctx.count(id, &at("baseMaxHit"), raw.base_max_hit),
        xp: ctx.non_negative(id, &at("xp"), raw.xp),
        runes,
        attack_speed_ticks,
    };
    ok.then_some(spell)
}
