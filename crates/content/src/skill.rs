//! Skill names, normalising the reference format's two spellings.

use std::fmt;

use serde::Serialize;

/// One trainable skill. Serialises as the canonical lower-case name (`"defense"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Skill {
    /// Melee accuracy.
    Attack,
    /// Melee damage.
    Strength,
    /// Damage avoidance (`defence` in some manifests).
    Defense,
    /// Hit points (`health` in NPC stats, `hitpoints` in OSRS data).
    Constitution,
    /// Ranged combat.
    Ranged,
    /// Magic combat.
    Magic,
    /// Prayer points and prayers.
    Prayer,
    /// Chopping trees.
    Woodcutting,
    /// Catching fish.
    Fishing,
    /// Lighting fires.
    Firemaking,
    /// Cooking food.
    Cooking,
    /// Mining rocks.
    Mining,
    /// Smelting and smithing metal.
    Smithing,
    /// Movement and shortcuts.
    Agility,
    /// Leather, jewellery and gems.
    Crafting,
    /// Bows and arrows.
    Fletching,
    /// Making runes.
    Runecrafting,
}

impl Skill {
    /// Every skill, in the order the character record lists them.
    pub const ALL: [Skill; 17] = [
        Skill::Attack,
        Skill::Strength,
        Skill::Defense,
        Skill::Constitution,
        Skill::Ranged,
        Skill::Magic,
        Skill::Prayer,
        Skill::Woodcutting,
        Skill::Fishing,
        Skill::Firemaking,
        Skill::Cooking,
        Skill::Mining,
        Skill::Smithing,
        Skill::Agility,
        Skill::Crafting,
        Skill::Fletching,
        Skill::Runecrafting,
    ];

    /// The canonical lower-case name (`"defense"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Skill::Attack => "attack",
            Skill::Strength => "strength",
            Skill::Defense => "defense",
            Skill::Constitution => "constitution",
            Skill::Ranged => "ranged",
            Skill::Magic => "magic",
            Skill::Prayer => "prayer",
            Skill::Woodcutting => "woodcutting",
            Skill::Fishing => "fishing",
            Skill::Firemaking => "firemaking",
            Skill::Cooking => "cooking",
            Skill::Mining => "mining",
            Skill::Smithing => "smithing",
            Skill::Agility => "agility",
            Skill::Crafting => "crafting",
            Skill::Fletching => "fletching",
            Skill::Runecrafting => "runecrafting",
        }
    }

    /// Parses a manifest skill name, accepting `defence`, `health`, `hitpoints` and any letter case.
    pub fn parse(name: &str) -> Option<Skill> {
        let lower = name.trim().to_ascii_lowercase();
        match lower.as_str() {
            "defence" => return Some(Skill::Defense),
            "health" | "hitpoints" | "hp" => return Some(Skill::Constitution),
            _ => {}
        }
        Skill::ALL.into_iter().find(|s| s.as_str() == lower)
    }
}

impl fmt::Display for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_parse_to_one_skill() {
        assert_eq!(Skill::parse("defence"), Some(Skill::Defense));
        assert_eq!(Skill::parse("defense"), Some(Skill::Defense));
        assert_eq!(Skill::parse("Health"), Some(Skill::Constitution));
        assert_eq!(Skill::parse("constitution"), Some(Skill::Constitution));
        assert_eq!(Skill::parse("sailing"), None);
        for skill in Skill::ALL {
            assert_eq!(Skill::parse(skill.as_str()), Some(skill));
        }
    }
}
