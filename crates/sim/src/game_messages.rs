//! The game's narration (CONTRACT.md section 9): what a player is told in words of what they
//! started, finished or failed, as `chat:message {channel:"game"}` to that player alone. Refusals (a
//! command that could not be carried out) stay on `system` or are `error`s.
//!
//! Every text is here, worded from content's names (lower-cased inside a sentence, as the genre
//! writes them: "You get some oak logs."), never from ids. A text is built only when its event
//! happens, for the one player told, so nothing is formatted for players who get nothing. Making,
//! cooking and firemaking word theirs beside the making code; every line, theirs and these, is sent by
//! `World::narrate` (`narration.rs`). Level-ups are not narrated here: `skill:xp`
//! carries `leveledUp` and the client says it.

use std::borrow::Cow;

use wayfarer_content::Skill;

use crate::inventory::InventoryError;
use crate::world::World;

impl World {
    /// Content's name for an item (the id with spaces for one content no longer has).
    pub(crate) fn item_called<'a>(&'a self, item_id: &'a str) -> Cow<'a, str> {
        match self.content.items.get(item_id) {
            Some(item) => Cow::Borrowed(item.name.as_str()),
            None => Cow::Owned(item_id.replace('_', " ")),
        }
    }

    /// Content's name for a store (its id with spaces when content lacks it).
    pub(crate) fn store_called<'a>(&'a self, store_id: &'a str) -> Cow<'a, str> {
        match self.content.stores.get(store_id) {
            Some(store) => Cow::Borrowed(store.name.as_str()),
            None => Cow::Owned(store_id.replace('_', " ")),
        }
    }

    /// A display name of player `index` (their character's name).
    pub(crate) fn player_called(&self, index: usize) -> &str {
        self.entities
            .get(self.players[index].handle)
            .and_then(|b| b.wire.name.as_deref())
            .unwrap_or("Someone")
    }

    /// The name NPC `n` goes by in the world (its placement's, as its entity shows it).
    pub(crate) fn npc_called(&self, n: usize) -> &str {
        match &self.npcs[n].origin {
            crate::npcs::Origin::Fixed(p) => &p.name,
            crate::npcs::Origin::Mob(p) => &p.name,
        }
    }

    /// An inventory error in words, items by name (the error's own text names ids).
    pub(crate) fn inventory_words(&self, err: &InventoryError) -> String {
        match err {
            InventoryError::StackLimit {
                item_id,
                max_quantity,
            } => format!(
                "a stack of {} holds at most {max_quantity}",
                self.item_called(item_id.as_str())
            ),
            InventoryError::NotEnough {
                item_id,
                wanted,
                held,
            } => format!(
                "you have {held} {}, not {wanted}",
                self.item_called(item_id.as_str())
            ),
            other => other.to_string(),
        }
    }
}

/// A name as it reads inside a sentence.
fn lower(name: &str) -> String {
    name.to_lowercase()
}

/// `n` and the noun, singular for one.
fn count(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Gathering begins next to the node (`node`: its content name).
pub(crate) fn gathering_started(skill: Skill, node: &str) -> String {
    match skill {
        Skill::Woodcutting => format!("You swing your axe at the {}.", lower(node)),
        Skill::Mining => format!("You swing your pickaxe at the {}.", lower(node)),
        Skill::Fishing => "You attempt to catch some fish.".to_owned(),
        _ => format!("You start gathering from the {}.", lower(node)),
    }
}

/// A gathering success put `item` (its content name) in the inventory.
pub(crate) fn gathered(skill: Skill, item: &str) -> String {
    match skill {
        Skill::Mining => format!("You manage to mine some {}.", lower(item)),
        Skill::Fishing => format!("You catch some {}.", lower(item)),
        _ => format!("You get some {}.", lower(item)),
    }
}

/// Gathering stops: no room for another `item`.
pub(crate) fn too_full_for(item: &str) -> String {
    format!(
        "Your inventory is too full to hold any more {}.",
        lower(item)
    )
}

/// The player's success used the node up.
pub(crate) fn node_depleted(skill: Skill, node: &str) -> String {
    match skill {
        Skill::Woodcutting => format!("You cut down the {}.", lower(node)),
        Skill::Mining => format!("The {} has run out of ore.", lower(node)),
        Skill::Fishing => format!("The {} has run dry.", lower(node)),
        _ => format!("The {} is used up.", lower(node)),
    }
}

/// The fishing spot a player fished moved away.
pub(crate) fn fishing_spot_moved() -> String {
    "The fishing spot has moved.".to_owned()
}

/// Food eaten; `healed` is what it gave back (nothing at full health).
pub(crate) fn ate(food: &str, healed: i64) -> String {
    if healed > 0 {
        format!(
            "You eat the {}. It heals {}.",
            lower(food),
            count(healed as u64, "hitpoint", "hitpoints")
        )
    } else {
        format!("You eat the {}.", lower(food))
    }
}

/// Bones buried.
pub(crate) fn buried(bones: &str) -> String {
    format!("You bury the {}.", lower(bones))
}

/// A purchase.
pub(crate) fn bought(quantity: u32, item: &str, coins: u64) -> String {
    format!(
        "You buy {quantity} × {item} for {}.",
        count(coins, "coin", "coins")
    )
}

/// A sale.
pub(crate) fn sold(quantity: u32, item: &str, coins: u64) -> String {
    format!(
        "You sell {quantity} × {item} for {}.",
        count(coins, "coin", "coins")
    )
}

/// A withdrawal that got fewer than asked for: the inventory ran out of room.
pub(crate) fn withdrew_what_fits(got: u32, item: &str) -> String {
    format!("You withdraw {got} × {item}; your inventory has no room for more.")
}

/// Prayer points ran out and switched `prayers` (content names, in the order switched on) off.
pub(crate) fn prayer_ran_out(prayers: &[&str]) -> String {
    let switched = match prayers {
        [] => return "You have run out of Prayer points; you can recharge at an altar.".to_owned(),
        [one] => format!("{one} switches off"),
        [rest @ .., last] => format!("{} and {last} switch off", rest.join(", ")),
    };
    format!("You have run out of Prayer points: {switched}. You can recharge at an altar.")
}

/// An altar restored the points.
pub(crate) fn prayer_recharged() -> String {
    "You recharge your Prayer points.".to_owned()
}

/// An altar at full points.
pub(crate) fn prayer_already_full() -> String {
    "You already have full Prayer points.".to_owned()
}

/// Someone (an aggressive NPC, another player) starts a fight with the player.
pub(crate) fn attacked_by(attacker: &str) -> String {
    format!("You are attacked by {attacker}!")
}

/// The player's target died.
pub(crate) fn defeated(target: &str) -> String {
    format!("You have defeated {target}.")
}

/// The player died.
pub(crate) fn died() -> String {
    "Oh dear, you are dead!".to_owned()
}

/// What a player kept on dying (the death screen's line), each item in words: "You keep a staff
/// of air, a holy symbol and 2 coins." `None` when nothing was kept.
pub(crate) fn kept_on_death(kept: &[String]) -> Option<String> {
    let (last, rest) = kept.split_last()?;
    Some(if rest.is_empty() {
        format!("You keep {last}.")
    } else {
        format!("You keep {} and {last}.", rest.join(", "))
    })
}

/// A ranged attack stops: the quiver is empty.
pub(crate) fn out_of_arrows() -> String {
    "You have no arrows left in your quiver.".to_owned()
}

/// A quest started.
pub(crate) fn quest_started(quest: &str) -> String {
    format!("You have started a new quest: {quest}.")
}

/// A quest abandoned.
pub(crate) fn quest_abandoned(quest: &str) -> String {
    format!("You abandon {quest}.")
}

/// A quest completed.
pub(crate) fn quest_completed(quest: &str) -> String {
    format!("Congratulations! You have completed {quest}.")
}

/// Talking to an NPC without a dialogue.
pub(crate) fn nothing_to_say(npc: &str) -> String {
    format!("{npc} has nothing to say.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_read_as_sentences_with_content_names() {
        assert_eq!(
            gathering_started(Skill::Woodcutting, "Tree"),
            "You swing your axe at the tree."
        );
        assert_eq!(gathered(Skill::Woodcutting, "Logs"), "You get some logs.");
        assert_eq!(
            gathered(Skill::Mining, "Copper Ore"),
            "You manage to mine some copper ore."
        );
        assert_eq!(
            too_full_for("Oak Logs"),
            "Your inventory is too full to hold any more oak logs."
        );
        assert_eq!(ate("Bread", 3), "You eat the bread. It heals 3 hitpoints.");
        assert_eq!(ate("Bread", 1), "You eat the bread. It heals 1 hitpoint.");
        assert_eq!(ate("Bread", 0), "You eat the bread.");
        assert_eq!(
            bought(5, "Bronze Arrow", 1),
            "You buy 5 × Bronze Arrow for 1 coin."
        );
        assert_eq!(sold(2, "Logs", 8), "You sell 2 × Logs for 8 coins.");
    }

    #[test]
    fn running_out_of_prayer_names_what_switches_off() {
        assert_eq!(
            prayer_ran_out(&[]),
            "You have run out of Prayer points; you can recharge at an altar."
        );
        assert_eq!(
            prayer_ran_out(&["Thick Skin"]),
            "You have run out of Prayer points: Thick Skin switches off. You can recharge at an \
             altar."
        );
        assert_eq!(
            prayer_ran_out(&["Thick Skin", "Burst of Strength", "Clarity of Thought"]),
            "You have run out of Prayer points: Thick Skin, Burst of Strength and Clarity of \
             Thought switch off. You can recharge at an altar."
        );
    }
}
