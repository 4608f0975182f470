//! The action table as Markdown, for docs/agents.md (a test checks the file holds exactly this,
//! so the documentation cannot drift from the table).

use crate::actions::ACTIONS;

/// Marks around the generated table in docs/agents.md.
pub const BEGIN: &str = "<!-- action table: generated from crates/agent/src/actions.rs -->";
/// See [`BEGIN`].
pub const END: &str = "<!-- end of action table -->";

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
                let kind = spec.get("type").and_then(|t| t.as_str()).unwrap_or("any");
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
