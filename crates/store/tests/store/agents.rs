use wayfarer_store::test_both_backends;

use crate::new_character;

test_both_backends!(
    registering_again_rotates_the_token_and_keeps_the_control_state,
    |store| {
        let character = new_character(&store, "Agent Ann").await;
        let account = store
            .characters()
            .get(&character)
            .await
            .unwrap()
            .unwrap()
            .account_id;
        let agents = store.agents();
        let first = agents
            .register(&account, &character, "Agent Ann")
            .await
            .unwrap();
        assert_eq!(first.character_id, character);
        assert_eq!(first.account_id, account);
        assert!(!first.paused);
        assert_eq!(first.goal, None);
        assert_eq!(
            agents.get(&first.agent_id).await.unwrap(),
            Some(first.clone())
        );

        assert!(agents
            .set_goal(&first.agent_id, Some(r#"{"kind":"idle"}"#), true)
            .await
            .unwrap());
        assert!(agents.set_paused(&first.agent_id, true).await.unwrap());
        // Paused: a goal that must wait for a resume is not written; an unconditional one is.
        assert!(!agents
            .set_goal(&first.agent_id, Some(r#"{"kind":"bank"}"#), true)
            .await
            .unwrap());

        let second = agents
            .register(&account, &character, "Agent Ann")
            .await
            .unwrap();
        assert_eq!(second.agent_id, first.agent_id, "one agent per character");
        assert_ne!(second.token_id, first.token_id, "a new token id");
        assert!(second.paused);
        assert_eq!(second.goal.as_deref(), Some(r#"{"kind":"idle"}"#));
        assert!(second.updated_at_ms >= first.updated_at_ms);

        assert!(agents.set_goal(&first.agent_id, None, false).await.unwrap());
        assert!(agents.set_paused(&first.agent_id, false).await.unwrap());
        let now = agents.for_character(&character).await.unwrap().unwrap();
        assert_eq!((now.goal, now.paused), (None, false));
        assert!(!agents.set_paused("no-such-agent", true).await.unwrap());
        assert_eq!(agents.get("no-such-agent").await.unwrap(), None);
    }
);

test_both_backends!(
    an_accounts_agents_are_listed_and_go_with_their_character,
    |store| {
        let mine = new_character(&store, "Mine").await;
        let theirs = new_character(&store, "Theirs").await;
        let account = store
            .characters()
            .get(&mine)
            .await
            .unwrap()
            .unwrap()
            .account_id;
        let other = store
            .characters()
            .get(&theirs)
            .await
            .unwrap()
            .unwrap()
            .account_id;
        let agent = store
            .agents()
            .register(&account, &mine, "Mine")
            .await
            .unwrap();
        store
            .agents()
            .register(&other, &theirs, "Theirs")
            .await
            .unwrap();
        let listed = store.agents().list_for_account(&account).await.unwrap();
        assert_eq!(listed, vec![agent.clone()]);

        // Deleting the character removes its agent (and so revokes its token).
        store.characters().delete(&mine).await.unwrap();
        assert_eq!(store.agents().get(&agent.agent_id).await.unwrap(), None);
        assert!(store
            .agents()
            .list_for_account(&account)
            .await
            .unwrap()
            .is_empty());
    }
);
