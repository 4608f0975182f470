//! Casting (CONTRACT.md section 11): `cast {spellId, targetId}` casts once, `autocast {spellId}`
//! makes the player's attacks cast. Both are checked when asked (the spell, the Magic level, the
//! runes: `unknown_spell`, `level_too_low`, `missing_runes`), and each cast is checked and paid
//! for again when it goes off (`engage`): the runes leave the inventory whether it hits or not,
//! those a wielded staff supplies excepted. Running out stops the attack and clears autocast.

use wayfarer_content::{EquipSlot, Skill, Spell};
use wayfarer_protocol::text::quoted;
use wayfarer_protocol::ws::codes;

use crate::actions::IntentKind;
use crate::combat::magic::runes_needed;
use crate::events::Event;
use crate::flows::FlowKind;
use crate::world::World;

/// A player's chosen spells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MagicChoice {
    /// The spell every attack casts, when chosen.
    pub autocast: Option<String>,
    /// The spell of the pending `cast` (read only while the intent is [`IntentKind::Cast`]).
    pub once: Option<String>,
}

/// Why a spell cannot be cast now: the wire code and what the player is told.
type Refusal = (&'static str, String);

impl World {
    /// The spell player `index` casts with an intent of `kind`: the one-off spell of a `cast`,
    /// else the autocast spell of an attack.
    pub(crate) fn spell_in_hand(&self, index: usize, kind: IntentKind) -> Option<&Spell> {
        let choice = &self.players[index].magic;
        let id = match kind {
            IntentKind::Cast => choice.once.as_ref(),
            IntentKind::Attack => choice.autocast.as_ref(),
            _ => None,
        }?;
        self.content.spells.get(id)
    }

    /// Why player `index` cannot cast `spell` once now (the level, then the runes), if they
    /// cannot.
    fn cast_refusal(&self, index: usize, spell: &Spell) -> Option<Refusal> {
        let player = &self.players[index];
        let level = u32::from(player.skills.level(Skill::Magic));
        if level < spell.level {
            return Some((
                codes::LEVEL_TOO_LOW,
                format!(
                    "You need a Magic level of {} to cast {}.",
                    spell.level, spell.name
                ),
            ));
        }
        let weapon = player.equipment.item(&self.content, EquipSlot::Weapon);
        let short = runes_needed(spell, weapon)
            .into_iter()
            .find(|rune| player.inventory.count(&rune.item_id) < u64::from(rune.quantity));
        short.map(|rune| {
            (
                codes::MISSING_RUNES,
                format!(
                    "You do not have enough {}s to cast {}.",
                    self.item_name(&rune.item_id),
                    spell.name
                ),
            )
        })
    }

    /// The spell with id `spell_id`, or the `unknown_spell` refusal.
    fn known_spell(&self, spell_id: &str) -> Result<&Spell, Refusal> {
        self.content.spells.get(spell_id).ok_or_else(|| {
            (
                codes::UNKNOWN_SPELL,
                format!("there is no spell {}", quoted(spell_id)),
            )
        })
    }

    /// `cast {spellId, targetId}`: checked now (the spell, then whether the target may be
    /// attacked, then the level and runes), then the player walks within casting range and casts
    /// once.
    pub(crate) fn cast(
        &mut self,
        index: usize,
        spell_id: &str,
        target: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let id = self.players[index].id.clone();
        let spell = match self.known_spell(spell_id) {
            Ok(spell) => spell,
            Err((code, message)) => return Self::reject(&id, code, message, reference, events),
        };
        // The target before the player's means: "you cannot attack that" tells more than "you
        // have no runes" when the target is oneself or gone.
        if !self.attack_allowed(index, target, IntentKind::Cast, reference, events) {
            return;
        }
        if let Some((code, message)) = self.cast_refusal(index, spell) {
            return Self::reject(&id, code, message, reference, events);
        }
        self.players[index].magic.once = Some(spell_id.to_owned());
        self.begin(index, target, IntentKind::Cast, reference, events);
    }

    /// `autocast {spellId|null}`: the spell the player's attacks cast from now on (checked for
    /// existence and level; runes are checked at each cast), or none.
    pub(crate) fn set_autocast(
        &mut self,
        index: usize,
        spell_id: Option<&str>,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let id = self.players[index].id.clone();
        let Some(spell_id) = spell_id else {
            if self.players[index].magic.autocast.take().is_some() {
                self.narrate(index, "You stop autocasting.".into(), events);
            }
            return;
        };
        let spell = match self.known_spell(spell_id) {
            Ok(spell) => spell,
            Err((code, message)) => return Self::reject(&id, code, message, reference, events),
        };
        if u32::from(self.players[index].skills.level(Skill::Magic)) < spell.level {
            let message = format!(
                "You need a Magic level of {} to cast {}.",
                spell.level, spell.name
            );
            return Self::reject(&id, codes::LEVEL_TOO_LOW, message, reference, events);
        }
        let text = format!("You will now cast {} when you attack.", spell.name);
        self.players[index].magic.autocast = Some(spell_id.to_owned());
        self.narrate(index, text, events);
    }

    /// Checks and pays for one cast of `spell` as it goes off (for an intent of `kind`): false,
    /// with the refusal, when the level or the runes are no longer there; an autocast attack
    /// that fails so also clears autocast.
    pub(crate) fn pay_for_cast(
        &mut self,
        index: usize,
        spell: &Spell,
        kind: IntentKind,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) -> bool {
        if let Some((code, message)) = self.cast_refusal(index, spell) {
            let id = self.players[index].id.clone();
            if kind == IntentKind::Attack {
                self.players[index].magic.autocast = None;
            }
            Self::reject(&id, code, message, reference, events);
            return false;
        }
        let player = &mut self.players[index];
        let weapon = player.equipment.item(&self.content, EquipSlot::Weapon);
        let runes = runes_needed(spell, weapon);
        let paid = player.inventory.apply(|tx| {
            for rune in &runes {
                tx.remove_item(&rune.item_id, rune.quantity)?;
            }
            Ok(())
        });
        if paid.is_err() {
            // Counted just above, so this cannot happen; refuse rather than cast for free.
            return false;
        }
        player.dirty.inventory = true;
        for rune in &runes {
            self.flow_by(index, FlowKind::Left, "cast", &rune.item_id, rune.quantity);
        }
        true
    }
}
