//! Recipe ids (CONTRACT.md section 9) over the bundled and the reference files: unique, of the
//! rule's shape (`<skill>:<output>`, a suffix only where an output repeats within a skill), and
//! independent of which other recipes survive loading.

use std::collections::BTreeSet;

use wayfarer_content::{load_bundled, Content, ManifestSet, Recipe, RecipeKind};

use crate::reference_dir;

/// What a generated id names after its prefix: the output, or the logs for firemaking.
fn named(recipe: &Recipe) -> &str {
    match (&recipe.output, recipe.inputs.first()) {
        (Some(output), _) => &output.item_id,
        (None, Some(input)) => &input.item_id,
        (None, None) => "",
    }
}

fn assert_ids_follow_the_rule(content: &Content) {
    let mut seen = BTreeSet::new();
    for recipe in &content.recipes {
        assert!(seen.insert(recipe.id.as_str()), "{} twice", recipe.id);
        let base = format!("{}:{}", recipe.kind.id_prefix(), named(recipe));
        let repeated = content
            .recipes
            .iter()
            .filter(|r| r.kind.id_prefix() == recipe.kind.id_prefix() && named(r) == named(recipe))
            .count()
            > 1;
        if repeated {
            let first = recipe.inputs.first().map_or("", |i| i.item_id.as_str());
            assert_eq!(recipe.id, format!("{base}:{first}"));
        } else {
            assert_eq!(recipe.id, base);
        }
    }
}

#[test]
fn bundled_recipe_ids_are_unique_and_follow_the_rule() {
    let content = load_bundled();
    assert_ids_follow_the_rule(&content);
    let ids: BTreeSet<&str> = content.recipes.iter().map(|r| r.id.as_str()).collect();
    for id in [
        "smithing:bronze_dagger",
        "smithing:bronze_bar",
        "cooking:shrimp",
        "firemaking:oak_logs",
        "fletching:arrow_shaft:logs",
        "fletching:arrow_shaft:oak_logs",
        "crafting:leather_body",
        "runecrafting:air_rune",
        "tanning:leather",
    ] {
        assert!(ids.contains(id), "{id} in {ids:?}");
    }
}

#[test]
fn reference_recipe_ids_are_unique_and_follow_the_rule() {
    let Some(dir) = reference_dir() else { return };
    let set = ManifestSet::read_dir(&dir).expect("readable");
    let (content, _) = Content::from_files(&set).expect("warnings only");
    assert_ids_follow_the_rule(&content);
    let ids: BTreeSet<&str> = content.recipes.iter().map(|r| r.id.as_str()).collect();
    for id in [
        "smithing:bronze_sword",
        "crafting:gold_ring",
        "crafting:sapphire",
        "fletching:arrow_shaft:magic_logs",
        "tanning:green_dragon_leather",
    ] {
        assert!(ids.contains(id), "{id} in {ids:?}");
    }
}

#[test]
fn a_recipe_keeps_its_id_when_a_recipe_of_the_same_output_is_dropped() {
    let mut set = wayfarer_content::bundled();
    let path = "items/resources.json";
    let items: Vec<serde_json::Value> =
        serde_json::from_slice(&set.files[path]).expect("an item array");
    let without_oak: Vec<_> = items
        .into_iter()
        .filter(|i| i["id"] != "oak_logs")
        .collect();
    set.insert(path, serde_json::to_string(&without_oak).expect("json"));
    let (content, _) = Content::from_files(&set).expect("warnings only");
    let shafts: Vec<&str> = content
        .recipes_of(RecipeKind::Fletching)
        .filter(|r| r.id.starts_with("fletching:arrow_shaft"))
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(shafts, ["fletching:arrow_shaft:logs"]);
}
