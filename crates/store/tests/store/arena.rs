//! The arena's ladder: a fight's row and both ratings are written with the duel's result, in its
//! transaction, exactly once.

use crate::new_character_with;
use wayfarer_store::{
    test_both_backends, ArenaFighter, ArenaResult, DuelAudit, SaveBatch, StoreError, StoredRating,
};

fn rated(rating: f64, deviation: f64) -> StoredRating {
    StoredRating {
        rating,
        deviation,
        volatility: 0.06,
    }
}

test_both_backends!(
    a_fight_result_writes_its_row_and_both_ratings_exactly_once,
    |store| {
        let a = new_character_with(&store, "Alder", vec![]).await;
        let b = new_character_with(&store, "Birch", vec![]).await;
        let (a_id, b_id) = (a.character.id.clone(), b.character.id.clone());
        assert_eq!(store.arena().rating(&a_id).await.unwrap(), None);
        let result = ArenaResult {
            fight_id: "fight-x-1".into(),
            duel_id: "duel-1".into(),
            fighters: [
                ArenaFighter {
                    id: a_id.clone(),
                    name: "Alder".into(),
                    before: rated(1500.0, 350.0),
                    after: rated(1662.3, 290.3),
                },
                ArenaFighter {
                    id: b_id.clone(),
                    name: "Birch".into(),
                    before: rated(1500.0, 350.0),
                    after: rated(1337.7, 290.3),
                },
            ],
            winner_id: a_id.clone(),
            loser_id: b_id.clone(),
            pit: 2,
            started_at_ms: 1_000,
            ended_at_ms: 5_000,
        };
        let batch = SaveBatch {
            snapshots: vec![a.clone(), b.clone()],
            duel: Some(DuelAudit {
                id: "d-arena-1".into(),
                winner_id: a_id.clone(),
                loser_id: b_id.clone(),
                items_won: vec![],
                winner_stake: vec![],
                rules: vec!["no_food".into()],
                completed_at_ms: 5_000,
                arena: Some(result.clone()),
            }),
            ..SaveBatch::default()
        };
        store.inventories().save(&batch).await.unwrap();
        assert_eq!(
            store.arena().rating(&a_id).await.unwrap(),
            Some(rated(1662.3, 290.3))
        );
        assert_eq!(store.arena().record(&a_id).await.unwrap(), (1, 0));
        assert_eq!(store.arena().record(&b_id).await.unwrap(), (0, 1));
        let fight = store.arena().fight("fight-x-1").await.unwrap().unwrap();
        assert_eq!(fight.winner_id, a_id);
        assert_eq!(fight.fighters[1].after.rating, 1337.7);
        assert_eq!(fight.pit, 2);

        // The same fight written again (even under another duel row) is refused whole: no
        // second win, no second row, the ratings as they were.
        let mut again = batch.clone();
        if let Some(duel) = again.duel.as_mut() {
            duel.id = "d-arena-2".into();
            if let Some(fight) = duel.arena.as_mut() {
                fight.fighters[0].after = rated(1800.0, 200.0);
            }
        }
        let err = store.inventories().save(&again).await.unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
        assert_eq!(store.arena().count().await.unwrap(), 1);
        assert_eq!(store.duels().count().await.unwrap(), 1);
        assert_eq!(store.arena().record(&a_id).await.unwrap(), (1, 0));
        assert_eq!(
            store.arena().rating(&a_id).await.unwrap(),
            Some(rated(1662.3, 290.3))
        );

        // A second fight: records add up, the leaderboard orders by rating.
        let mut second = batch.clone();
        if let Some(duel) = second.duel.as_mut() {
            duel.id = "d-arena-3".into();
            duel.winner_id = b_id.clone();
            duel.loser_id = a_id.clone();
            if let Some(fight) = duel.arena.as_mut() {
                fight.fight_id = "fight-x-2".into();
                fight.winner_id = b_id.clone();
                fight.loser_id = a_id.clone();
                fight.fighters[0].after = rated(1600.0, 250.0);
                fight.fighters[1].after = rated(1400.0, 250.0);
                fight.ended_at_ms = 9_000;
            }
        }
        store.inventories().save(&second).await.unwrap();
        assert_eq!(store.arena().record(&a_id).await.unwrap(), (1, 1));
        let board = store.arena().leaderboard(10).await.unwrap();
        assert_eq!(board.len(), 2);
        assert_eq!(board[0].character_id, a_id);
        assert_eq!(board[0].name, "Alder");
        assert!(!board[0].is_agent);
        assert_eq!(board[0].rating, rated(1600.0, 250.0));
        assert_eq!((board[1].wins, board[1].losses), (1, 1));
        let fights = store.arena().fights(10).await.unwrap();
        assert_eq!(
            fights
                .iter()
                .map(|f| f.fight_id.as_str())
                .collect::<Vec<_>>(),
            ["fight-x-2", "fight-x-1"]
        );
        assert_eq!(store.arena().leaderboard(1).await.unwrap().len(), 1);
    }
);
