//! The skills the game has, with their wire names.

use serde::{Deserialize, Serialize};

/// One trainable skill. The wire name is the lower-case skill name (`"woodcutting"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Skill {
    Attack,
    Strength,
    Defense,
    Constitution,
    Ranged,
    Magic,
    Prayer,
    Woodcutting,
    Fishing,
    Firemaking,
    Cooking,
    Mining,
    Smithing,
    Agility,
    Crafting,
    Fletching,
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

    /// The wire and column-prefix name (`"defense"`).
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

    /// Parses a skill name in any letter case; accepts the British `defence` spelling and the
    /// `health`/`hitpoints`/`hp` names the reference content uses for constitution.
    pub fn parse(name: &str) -> Option<Skill> {
        let lower = name.trim().to_ascii_lowercase();
        match lower.as_str() {
            "defence" => return Some(Skill::Defense),
            "health" | "hitpoints" | "hp" => return Some(Skill::Constitution),
            _ => {}
        }
        Skill::ALL.into_iter().find(|s| s.as_str() == lower)
    }

    /// The level a new character starts with (constitution starts at 10, as in the genre).
    pub fn starting_level(self) -> u32 {
        match self {
            Skill::Constitution => 10,
            _ => 1,
        }
    }
}

impl std::fmt::Display for Skill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_and_parse() {
        for skill in Skill::ALL {
            let json = serde_json::to_value(skill).unwrap();
            assert_eq!(json, serde_json::Value::String(skill.as_str().into()));
            assert_eq!(Skill::parse(skill.as_str()), Some(skill));
        }
        assert_eq!(Skill::parse("Defence"), Some(Skill::Defense));
        assert_eq!(Skill::parse(" defense "), Some(Skill::Defense));
        assert_eq!(Skill::parse("Health"), Some(Skill::Constitution));
        assert_eq!(Skill::parse("hitpoints"), Some(Skill::Constitution));
        assert_eq!(Skill::parse("sailing"), None);
    }
}
