//! The planner's answer to its owner's plain messages.

use wayfarer_protocol::Skill;

/// The planner's answer to an owner's plain message (one that names no action): it reads no free
/// text, so it says what it can do, pointing at the goal or command the words suggest. At most
/// 200 characters (a decision's reason on the wire).
pub fn answer(text: &str) -> String {
    let lower = text.to_lowercase();
    let skill = Skill::ALL
        .iter()
        .find(|s| lower.contains(&s.to_string().to_lowercase()));
    match skill {
        Some(skill) => format!(
            "I read no free text; for {skill} set a goal: kind skill, target {{skill: {skill}, level: N}}."
        ),
        None if lower.contains("bank") => {
            "I read no free text; to bank send the command `bankDeposit all`.".to_owned()
        }
        None => "I read no free text: I follow goals (skill, combat, gather, cook, bank, earn, \
                 follow, explore, idle) and commands naming an action (chopTree res-4, bankDeposit all)."
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_points_at_the_goal_or_command_the_words_suggest_within_200_characters() {
        let fishing = answer("could you do some fishing?");
        assert!(
            fishing.contains("fishing") && fishing.contains("skill"),
            "{fishing}"
        );
        assert!(answer("please bank your stuff").contains("bankDeposit all"));
        let other = answer("hello there");
        assert!(
            other.contains("goals") && other.contains("chopTree"),
            "{other}"
        );
        for text in [fishing, other, answer("constitution please")] {
            assert!(text.chars().count() <= 200, "{text}");
        }
    }
}
