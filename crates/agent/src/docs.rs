//! The action table as Markdown, for docs/agents.md (a test checks the file holds exactly this,
//! so the documentation cannot drift from the table).

use crate::actions::ACTIONS;

/// Marks around the generated table in docs/agents.md.
pub const BEGIN: &str = "<!-- action table: generated from crates/agent/src/actions.rs -->";
/// See [`BEGIN`].
pub const END: &str = "<!-- end of action table -->";

/// A parameter's type in words: its `type`, or its `oneOf` alternatives (`integer or "all"`).
fn kind_of(spec: &serde_json::Value) -> String {
    if let Some(kind) = spec.get("type").and_then(|t| t.as_str()) {
        return kind.to_owned();
    }
    let alternatives: Vec<String> = spec
        .get("oneOf")
        .and_then(|o| o.as_array())
        .into_iter()
        .flatten()
        .map(|alt| match alt.get("const") {
            Some(value) => value.to_string(),
            None => kind_of(alt),
        })
        .collect();
    if alternatives.is_empty() {
        "any".to_owned()
    } else {
        alternatives.join(" or ")
    }
}

/// The table: name, category, parameters, description.
pub fn action_table() -> String {
    let mut out =
        String::from("| action | kind | parameters | what it does |\n|---|---|---|---|\n");
    for action in ACTIONS {
        let schema = (action.params)();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(|r| r.as_array())
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
            .collect();
        let params: Vec<String> = schema
            .get("properties")
            .and_then(|p| p.as_object())
            .into_iter()
            .flatten()
            .map(|(name, spec)| {
                let kind = kind_of(spec);
                let optional = if required.contains(&name.as_str()) {
                    ""
                } else {
                    "?"
                };
                format!("`{name}{optional}`: {kind}")
            })
            .collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            action.name,
            action.category,
            if params.is_empty() {
                "—".to_owned()
            } else {
                params.join(", ")
            },
            action.description
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_agents_md_holds_the_table_as_generated() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/agents.md");
        let doc = std::fs::read_to_string(path).expect("docs/agents.md exists");
        let start = doc.find(BEGIN).expect("the begin mark") + BEGIN.len();
        let end = doc.find(END).expect("the end mark");
        assert_eq!(
            doc[start..end].trim(),
            action_table().trim(),
            "docs/agents.md's action table is stale: paste `action_table()` between the marks"
        );
    }

    #[test]
    fn the_table_names_the_22_actions_of_the_specification() {
        for name in [
            "moveTo",
            "followEntity",
            "stopMovement",
            "explore",
            "approachEntity",
            "navigateTo",
            "attackEntity",
            "changeCombatStyle",
            "flee",
            "chopTree",
            "catchFish",
            "lightFire",
            "cookFood",
            "equipItem",
            "useItem",
            "dropItem",
            "pickupItem",
            "chatMessage",
            "bankDeposit",
            "bankWithdraw",
            "setGoal",
            "idle",
        ] {
            assert!(ACTIONS.iter().any(|a| a.name == name), "{name} is missing");
        }
        let mut names: Vec<&str> = ACTIONS.iter().map(|a| a.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ACTIONS.len(), "names are unique");
    }
}
