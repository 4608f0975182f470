//! Auto-retaliate: a player attacked while idle, or while gathering or making, turns on the
//! attacker, as in the classic games; a walk, a fight already under way or another deliberate
//! action (talking, picking up, using an item, following) is left alone. On by default, switched
//! with `player:action {action: "auto_retaliate", enabled}` and kept with the character.

use crate::actions::{Intent, IntentKind};
use crate::entities::Handle;
use crate::world::World;

/// Whether a player attacked now turns on the attacker: the setting is on, they are not walking,
/// and they are doing nothing or only a skill.
pub(crate) fn turns_on_attacker(on: bool, walking: bool, intent: Option<&Intent>) -> bool {
    on && !walking && intent.is_none_or(|i| matches!(i.kind, IntentKind::Gather | IntentKind::Make))
}

impl World {
    /// Whether player `player` has auto-retaliate on, when online.
    pub fn player_auto_retaliate(&self, player: &str) -> Option<bool> {
        let &index = self.player_index.get(player)?;
        Some(self.players[index].auto_retaliate)
    }

    /// `auto_retaliate`: on or off, reported (and so saved) with the player's stats.
    pub(crate) fn set_auto_retaliate(&mut self, index: usize, on: bool) {
        let player = &mut self.players[index];
        if player.auto_retaliate != on {
            player.auto_retaliate = on;
            player.dirty.stats = true;
        }
    }

    /// Whether player `index`, attacked now, turns on the attacker (decided before the attack
    /// stops what they were making).
    pub(crate) fn would_retaliate(&self, index: usize) -> bool {
        let player = &self.players[index];
        turns_on_attacker(
            player.auto_retaliate,
            player.walk.is_moving(),
            player.intent.as_ref(),
        )
    }

    /// Player `index` attacks `attacker` back, when they may attack it at all (an attack they
    /// could not have started themselves is not started for them, and no refusal is told).
    pub(crate) fn retaliate(&mut self, index: usize, attacker: Handle) {
        let Some(victim) = self.victim(attacker) else {
            return;
        };
        if self.attack_refusal(index, victim).is_some() {
            return;
        }
        self.set_intent(index, attacker, IntentKind::Attack, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doing(kind: IntentKind) -> Intent {
        Intent {
            target: 0,
            kind,
            reference: None,
            approach: None,
            engaged: true,
            next_at: 0,
        }
    }

    #[test]
    fn idle_and_skilling_players_turn_on_their_attacker() {
        assert!(turns_on_attacker(true, false, None));
        assert!(turns_on_attacker(
            true,
            false,
            Some(&doing(IntentKind::Gather))
        ));
        assert!(turns_on_attacker(
            true,
            false,
            Some(&doing(IntentKind::Make))
        ));
    }

    #[test]
    fn walking_fighting_deliberate_actions_and_the_setting_off_are_left_alone() {
        assert!(!turns_on_attacker(false, false, None), "off");
        assert!(!turns_on_attacker(true, true, None), "walking");
        assert!(
            !turns_on_attacker(true, true, Some(&doing(IntentKind::Gather))),
            "walking to a tree"
        );
        for kind in [
            IntentKind::Attack,
            IntentKind::Cast,
            IntentKind::Pickup,
            IntentKind::UseOn { slot: 0 },
            IntentKind::Interact,
            IntentKind::Follow,
        ] {
            assert!(
                !turns_on_attacker(true, false, Some(&doing(kind))),
                "{kind:?}"
            );
        }
    }
}
