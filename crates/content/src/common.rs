//! Small shared types (positions, item amounts) and the normalisation context.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::report::{Code, Diagnostic, Report, Severity};

/// Item ids are snake_case strings like `bronze_hatchet`.
pub type ItemId = String;
/// NPC and mob ids, like `goblin`.
pub type NpcId = String;
/// Store ids, like `central_store`.
pub type StoreId = String;
/// Gathering node ids, like `tree_oak`.
pub type ResourceId = String;
/// Quest ids, like `goblin_slayer`.
pub type QuestId = String;
/// Prayer ids, like `thick_skin`.
pub type PrayerId = String;
/// World area ids, like `central_haven`.
pub type AreaId = String;
/// Biome ids, like `forest`.
pub type BiomeId = String;
/// Station types, like `anvil`.
pub type StationType = String;

/// A world position in world units (one tile is one unit; `y` is height).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Position {
    /// East-west.
    pub x: f64,
    /// Height.
    #[serde(default)]
    pub y: f64,
    /// North-south.
    pub z: f64,
}

/// An integer tile coordinate on the ground plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Tile {
    /// Tile column (floor of world x).
    pub x: i32,
    /// Tile row (floor of world z).
    pub z: i32,
}

impl Position {
    /// The tile holding this position (tiles are one world unit wide).
    pub fn tile(&self) -> Tile {
        Tile {
            x: self.x.floor() as i32,
            z: self.z.floor() as i32,
        }
    }
}

/// An item id with a quantity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ItemAmount {
    /// The item.
    pub item_id: ItemId,
    /// How many (at least 1).
    pub quantity: u32,
}

/// `{itemId, quantity}` as written in quests and the starter kit.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawItemAmount {
    pub item_id: String,
    #[serde(default = "one")]
    pub quantity: i64,
}

/// Serde default of 1.
pub(crate) fn one() -> i64 {
    1
}

/// Serde default of `true`.
pub(crate) fn yes() -> bool {
    true
}

/// Serde default of 1.0.
pub(crate) fn one_f() -> f64 {
    1.0
}

/// The ids every manifest defines, gathered before normalising so references can be checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Known {
    pub items: BTreeSet<String>,
    pub npcs: BTreeSet<String>,
    pub stores: BTreeSet<String>,
    pub gathering: BTreeSet<String>,
    pub quests: BTreeSet<String>,
    pub prayers: BTreeSet<String>,
    pub biomes: BTreeSet<String>,
    pub stations: BTreeSet<String>,
}

/// What a reference points at, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RefKind {
    Item,
    Npc,
    Store,
    Gathering,
    Quest,
    Prayer,
    Biome,
    Station,
}

impl RefKind {
    fn noun(self) -> &'static str {
        match self {
            RefKind::Item => "item",
            RefKind::Npc => "NPC",
            RefKind::Store => "store",
            RefKind::Gathering => "gathering resource",
            RefKind::Quest => "quest",
            RefKind::Prayer => "prayer",
            RefKind::Biome => "biome",
            RefKind::Station => "station",
        }
    }
}

impl Known {
    /// True when `id` is defined for `kind`.
    pub fn has(&self, kind: RefKind, id: &str) -> bool {
        let set = match kind {
            RefKind::Item => &self.items,
            RefKind::Npc => &self.npcs,
            RefKind::Store => &self.stores,
            RefKind::Gathering => &self.gathering,
            RefKind::Quest => &self.quests,
            RefKind::Prayer => &self.prayers,
            RefKind::Biome => &self.biomes,
            RefKind::Station => &self.stations,
        };
        set.contains(id)
    }
}

/// Normalisation context for one file: where diagnostics go and which ids exist.
pub(crate) struct Ctx<'a> {
    pub file: &'a str,
    pub report: &'a mut Report,
    pub known: &'a Known,
}

impl Ctx<'_> {
    /// Reports an impossible value (an error).
    pub fn invalid(&mut self, entry: &str, field: &str, message: impl Into<String>) {
        self.report.push(
            Diagnostic::new(Severity::Error, Code::InvalidValue, self.file, message)
                .entry(entry)
                .field(field),
        );
    }

    /// Reports a questionable value that was normalised or ignored (a warning).
    pub fn questionable(&mut self, entry: &str, field: &str, message: impl Into<String>) {
        self.report.push(
            Diagnostic::new(Severity::Warning, Code::InvalidValue, self.file, message)
                .entry(entry)
                .field(field),
        );
    }

    /// Reports a duplicate id (an error).
    pub fn duplicate(&mut self, entry: &str, field: &str, message: impl Into<String>) {
        self.report.push(
            Diagnostic::new(Severity::Error, Code::Duplicate, self.file, message)
                .entry(entry)
                .field(field),
        );
    }

    /// Checks one reference; when it is dangling, warns (saying what gets `dropped`) and returns false.
    pub fn check_ref(
        &mut self,
        kind: RefKind,
        id: &str,
        entry: &str,
        field: &str,
        dropped: &str,
    ) -> bool {
        if self.known.has(kind, id) {
            return true;
        }
        let message = format!("unknown {} `{id}`; {dropped}", kind.noun());
        self.warn_ref(Code::UnknownReference, message, id, entry, field);
        false
    }

    /// Warns that a reference names an entry that exists but was disabled.
    pub fn disabled_ref(
        &mut self,
        kind: RefKind,
        id: &str,
        entry: &str,
        field: &str,
        dropped: &str,
    ) {
        let message = format!("{} `{id}` is disabled; {dropped}", kind.noun());
        self.warn_ref(Code::DisabledReference, message, id, entry, field);
    }

    /// [`Ctx::check_ref`], and the entry named must be among the `enabled` too (else
    /// [`Ctx::disabled_ref`]).
    pub fn check_enabled_ref(
        &mut self,
        kind: RefKind,
        id: &str,
        enabled: &BTreeSet<String>,
        (entry, field): (&str, &str),
        dropped: &str,
    ) -> bool {
        if !self.check_ref(kind, id, entry, field, dropped) {
            return false;
        }
        if !enabled.contains(id) {
            self.disabled_ref(kind, id, entry, field, dropped);
            return false;
        }
        true
    }

    /// A warning about the reference to `id` in `field` of `entry`.
    fn warn_ref(&mut self, code: Code, message: String, id: &str, entry: &str, field: &str) {
        self.report.push(
            Diagnostic::new(Severity::Warning, code, self.file, message)
                .entry(entry)
                .field(field)
                .missing(id),
        );
    }

    /// Checks an id is non-empty; reports an error otherwise.
    pub fn check_id(&mut self, id: &str, field: &str) -> bool {
        if id.trim().is_empty() {
            self.invalid(id, field, "empty id");
            return false;
        }
        true
    }

    /// An entry's id (`field`) that must not be empty (false: the entry is dropped) and should
    /// equal the `key` the file gives the entry under (reported when it differs); `what` names
    /// the entry's kind in the report.
    pub fn check_keyed_id(&mut self, what: &str, id: &str, key: &str, field: &str) -> bool {
        if !self.check_id(id, field) {
            return false;
        }
        if key != id {
            self.invalid(
                id,
                field,
                format!("{what} id `{id}` differs from its key `{key}`"),
            );
        }
        true
    }

    /// A level (>= 0 in the file; 0 is read as 1), reporting negatives.
    pub fn level(&mut self, entry: &str, field: &str, raw: i64) -> u32 {
        if raw < 0 {
            self.invalid(entry, field, format!("level {raw} is negative"));
            return 1;
        }
        if raw > 120 {
            self.invalid(
                entry,
                field,
                format!("level {raw} is above the maximum of 120"),
            );
        }
        raw.clamp(1, 120) as u32
    }

    /// A non-negative count or amount, reporting negatives.
    pub fn count(&mut self, entry: &str, field: &str, raw: i64) -> u32 {
        if raw < 0 {
            self.invalid(entry, field, format!("{raw} is negative"));
            return 0;
        }
        raw.min(i64::from(u32::MAX)) as u32
    }

    /// A quantity that must be at least 1.
    pub fn quantity(&mut self, entry: &str, field: &str, raw: i64) -> u32 {
        if raw < 1 {
            self.invalid(entry, field, format!("quantity {raw} must be at least 1"));
            return 1;
        }
        raw.min(i64::from(u32::MAX)) as u32
    }

    /// A non-negative number (XP, value, weight), reporting negatives and non-finite values.
    pub fn non_negative(&mut self, entry: &str, field: &str, raw: f64) -> f64 {
        if !raw.is_finite() || raw < 0.0 {
            self.invalid(entry, field, format!("{raw} must be a non-negative number"));
            return 0.0;
        }
        raw
    }

    /// A probability in 0..=1.
    pub fn chance(&mut self, entry: &str, field: &str, raw: f64) -> f64 {
        if !(0.0..=1.0).contains(&raw) {
            self.invalid(entry, field, format!("chance {raw} is outside 0..1"));
            return raw.clamp(0.0, 1.0);
        }
        raw
    }

    /// Resolves a skill name, warning (and returning `None`) when it is not a skill.
    pub fn skill(
        &mut self,
        name: &str,
        entry: &str,
        field: &str,
        dropped: &str,
    ) -> Option<crate::Skill> {
        let skill = crate::Skill::parse(name);
        if skill.is_none() {
            self.report.push(
                Diagnostic::new(
                    Severity::Warning,
                    Code::InvalidValue,
                    self.file,
                    format!("unknown skill `{name}`; {dropped}"),
                )
                .entry(entry)
                .field(field),
            );
        }
        skill
    }
}
