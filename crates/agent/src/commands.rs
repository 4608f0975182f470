//! An owner's command as text: an action of the table and its arguments. The server's quick actions
//! (`GET …/quick-actions`) write them space-separated (`chopTree res-44`, `bankDeposit all`,
//! `cookFood 3 res-9`); a person or a script may also write JSON (`chopTree {"targetId":"res-44"}`)
//! or `name=value` pairs. All three read into the same structured parameters, so a command runs as
//! it was offered.

use serde_json::{json, Map, Value};

use crate::actions::{self, ActionDef};

/// The parameters the space-separated words of an action fill, in order: the shapes the server's
/// quick actions write (`server::agents::quick_actions`), one row per action that takes them.
const POSITIONAL: &[(&str, &[&str])] = &[
    ("useItem", &["slot", "targetSlot"]),
    ("chopTree", &["targetId"]),
    ("catchFish", &["targetId"]),
    ("mineRock", &["targetId"]),
    ("cookFood", &["slot", "targetId"]),
    ("lightFire", &["slot"]),
    ("attackEntity", &["targetId"]),
    ("talkToNpc", &["targetId"]),
    ("pickupItem", &["targetId"]),
    ("followEntity", &["targetId"]),
    ("approachEntity", &["targetId"]),
    ("eatFood", &["slot"]),
    ("buryBones", &["slot"]),
    ("equipItem", &["itemId"]),
    ("unequipItem", &["slot"]),
    ("moveTo", &["x", "z"]),
    ("navigateTo", &["x", "z"]),
    ("explore", &["areaId"]),
    ("bankWithdraw", &["itemId", "quantity"]),
    ("buyItem", &["itemId", "quantity"]),
    ("sellItem", &["itemId", "quantity"]),
    ("changeCombatStyle", &["style"]),
    ("makeItem", &["recipeId", "quantity", "targetId"]),
    ("respondDialogue", &["index"]),
    ("idle", &["ticks"]),
];

/// Reads `text` as a command: `None` when its first word is not an action (plain text), else the
/// action and its parameters, or why the arguments do not read.
pub fn parse(text: &str) -> Option<(&'static ActionDef, Result<Value, String>)> {
    let text = text.trim();
    let (name, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let def = actions::find(name)?;
    Some((def, arguments(def, rest.trim())))
}

fn arguments(def: &ActionDef, rest: &str) -> Result<Value, String> {
    if rest.is_empty() {
        return Ok(json!({}));
    }
    if rest.starts_with('{') {
        return serde_json::from_str::<Value>(rest)
            .ok()
            .filter(Value::is_object)
            .ok_or_else(|| format!("{}: the arguments are not a JSON object", def.name));
    }
    let schema = (def.params)();
    let properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let positional = POSITIONAL
        .iter()
        .find(|(n, _)| *n == def.name)
        .map_or(&[][..], |(_, p)| *p);
    let mut params = Map::new();
    let mut next = positional.iter();
    for word in rest.split_whitespace() {
        let (key, raw) = match word.split_once('=') {
            Some((key, raw)) => (key.to_owned(), raw),
            // A boolean parameter named alone is set (`bankDeposit all`).
            None if properties.get(word).is_some_and(|p| p["type"] == "boolean") => {
                params.insert(word.to_owned(), Value::Bool(true));
                continue;
            }
            None => match next.next() {
                Some(key) => ((*key).to_owned(), word),
                None => return Err(format!("{}: too many arguments ({word})", def.name)),
            },
        };
        let Some(kind) = properties.get(&key).map(|p| p["type"].clone()) else {
            return Err(format!("{}: no parameter {key}", def.name));
        };
        params.insert(key, typed(&kind, raw));
    }
    Ok(Value::Object(params))
}

/// A word as the parameter's type wants it: integers and booleans read as such, anything else
/// (or a word that does not read so) stays text, for the action's own check to judge.
fn typed(kind: &Value, raw: &str) -> Value {
    let wants = |t: &str| kind == t || kind.as_array().is_some_and(|k| k.iter().any(|x| x == t));
    if wants("integer") {
        if let Ok(n) = raw.parse::<i64>() {
            return json!(n);
        }
    }
    if wants("boolean") {
        if let Ok(b) = raw.parse::<bool>() {
            return json!(b);
        }
    }
    json!(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (&'static str, Value) {
        let (def, params) = parse(text).expect("an action");
        (def.name, params.expect("arguments that read"))
    }

    #[test]
    fn the_server_s_quick_action_commands_read_with_their_arguments() {
        assert_eq!(
            read("chopTree res-44"),
            ("chopTree", json!({"targetId": "res-44"}))
        );
        assert_eq!(
            read("bankDeposit all"),
            ("bankDeposit", json!({"all": true}))
        );
        assert_eq!(read("useItem 3"), ("useItem", json!({"slot": 3})));
        assert_eq!(
            read("cookFood 3 res-9"),
            ("cookFood", json!({"slot": 3, "targetId": "res-9"}))
        );
        assert_eq!(read("lightFire 4"), ("lightFire", json!({"slot": 4})));
        assert_eq!(
            read("attackEntity npc-7"),
            ("attackEntity", json!({"targetId": "npc-7"}))
        );
        assert_eq!(
            read("pickupItem gi-2"),
            ("pickupItem", json!({"targetId": "gi-2"}))
        );
        assert_eq!(read("idle"), ("idle", json!({})));
    }

    #[test]
    fn json_and_named_arguments_read_too_and_bad_ones_are_said() {
        assert_eq!(
            read(r#"chopTree {"targetId":"res-3"}"#),
            ("chopTree", json!({"targetId": "res-3"}))
        );
        assert_eq!(
            read("bankWithdraw itemId=bronze_hatchet quantity=1"),
            (
                "bankWithdraw",
                json!({"itemId": "bronze_hatchet", "quantity": 1})
            )
        );
        assert_eq!(read("moveTo 5 -3"), ("moveTo", json!({"x": 5, "z": -3})));
        assert!(parse("chopTree res-1 res-2").unwrap().1.is_err());
        assert!(parse("chopTree colour=red").unwrap().1.is_err());
        assert!(parse("chopTree {not json").unwrap().1.is_err());
        // Plain text is no command.
        assert!(parse("how are you doing?").is_none());
    }
}
