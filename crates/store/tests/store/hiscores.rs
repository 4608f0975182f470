use std::collections::BTreeMap;

use wayfarer_protocol::Skill;
use wayfarer_store::{test_both_backends, SaveBatch, SkillLevel, Store};

use crate::new_character_with;

/// Saves `name`'s woodcutting XP as reached at `at`.
async fn reach(store: &Store, name: &str, xp: i64, at: i64) -> String {
    let mut snapshot = new_character_with(store, name, vec![]).await;
    snapshot
        .character
        .skills
        .insert(Skill::Woodcutting, SkillLevel { level: 2, xp });
    snapshot.xp_reached_at.insert(Skill::Woodcutting, at);
    store
        .inventories()
        .save(&SaveBatch {
            snapshots: vec![snapshot.clone()],
            ..SaveBatch::default()
        })
        .await
        .unwrap();
    snapshot.character.id
}

async fn rank(store: &Store, id: &str) -> i64 {
    let character = store.characters().get(id).await.unwrap().unwrap();
    let skills: BTreeMap<Skill, (i64, i64)> = character
        .skills
        .iter()
        .map(|(s, l)| (*s, (l.level, l.xp)))
        .collect();
    store
        .hiscores()
        .standings(id, &skills, &BTreeMap::new())
        .await
        .unwrap()[&Skill::Woodcutting]
        .rank
}

test_both_backends!(ranks_go_by_xp_then_by_who_reached_it_first, |store| {
    let late = reach(&store, "Late", 100, 2_000).await;
    let early = reach(&store, "Early", 100, 1_000).await;
    let best = reach(&store, "Best", 150, 5_000).await;
    let idle = new_character_with(&store, "Idle", vec![])
        .await
        .character
        .id;
    assert_eq!(rank(&store, &best).await, 1);
    assert_eq!(rank(&store, &early).await, 2, "same XP, reached first");
    assert_eq!(rank(&store, &late).await, 3);
    assert_eq!(rank(&store, &idle).await, 4);
    // Reaching more later moves a character up and dates the new XP.
    reach_again(&store, &late, 200, 9_000).await;
    assert_eq!(rank(&store, &late).await, 1);
    assert_eq!(rank(&store, &best).await, 2);
    // Every skill has a standing; an untouched skill ranks everyone by creation, one each.
    let character = store.characters().get(&idle).await.unwrap().unwrap();
    let skills = character
        .skills
        .iter()
        .map(|(s, l)| (*s, (l.level, l.xp)))
        .collect();
    let all = store
        .hiscores()
        .standings(&idle, &skills, &BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(all.len(), Skill::ALL.len());
    assert_eq!(all[&Skill::Fishing].rank, 4, "created last");
});

async fn reach_again(store: &Store, id: &str, xp: i64, at: i64) {
    let mut snapshot = wayfarer_store::CharacterSnapshot {
        character: store.characters().get(id).await.unwrap().unwrap(),
        inventory: vec![],
        equipment: vec![],
        bank: vec![],
        quests: vec![],
        xp_reached_at: BTreeMap::new(),
    };
    snapshot
        .character
        .skills
        .insert(Skill::Woodcutting, SkillLevel { level: 3, xp });
    snapshot.xp_reached_at.insert(Skill::Woodcutting, at);
    store
        .inventories()
        .save(&SaveBatch {
            snapshots: vec![snapshot],
            ..SaveBatch::default()
        })
        .await
        .unwrap();
}
