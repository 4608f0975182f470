//! Data survives a restart on SQLite (the file in the world directory) and on PostgreSQL.

use wayfarer_store::{NewCharacter, NewUser};

use crate::support::{both_databases, AppOptions, FreshDatabase, TestApp};

async fn restart_keeps_data(db: FreshDatabase) {
    // On SQLite, the server's own file in the world directory, as a deployment has it.
    let sqlite = db.url.starts_with("sqlite:");
    let app = TestApp::spawn_with(AppOptions {
        database: (!sqlite).then_some(db),
        ..Default::default()
    })
    .await;
    let user = app
        .store()
        .users()
        .create(&NewUser {
            name: "Keeper".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut character = app
        .store()
        .characters()
        .create(&NewCharacter {
            account_id: user.id.clone(),
            name: "Keeper".into(),
            position: Some([3.5, 0.0, 4.5]),
        })
        .await
        .unwrap();
    character.coins = 1234;
    character.position = [40.5, 0.0, 41.5];
    app.store().characters().save(&character).await.unwrap();
    let open_session = app
        .store()
        .sessions()
        .open(&character.id, &user.id, Some("127.0.0.1"))
        .await
        .unwrap();
    // A login records the account's last login with the session.
    let user = app.store().users().get(&user.id).await.unwrap().unwrap();
    assert!(user.last_login_at_ms.is_some());

    let stopped = app.stop().await;
    if sqlite {
        assert!(stopped.world_dir.join("wayfarer.db").exists());
    }
    let (app, _stopped) = stopped.restart().await;
    assert_eq!(app.get("/status").await.status(), 200);
    let loaded = app
        .store()
        .characters()
        .get(&character.id)
        .await
        .unwrap()
        .expect("character survives the restart");
    assert_eq!(loaded, character);
    assert_eq!(app.store().users().get(&user.id).await.unwrap(), Some(user));
    // A session left open by the previous run is closed at start.
    let sessions = app
        .store()
        .sessions()
        .for_character(&character.id)
        .await
        .unwrap();
    let session = sessions.iter().find(|s| s.id == open_session).unwrap();
    assert_eq!(session.close_reason.as_deref(), Some("crash_recovered"));
}

both_databases!(restart_keeps_data, |db| restart_keeps_data(db));
