//! Friends and ignore lists over the game socket: `friend:request`, `friend:respond`,
//! `friend:remove`, `ignore:add`, `ignore:remove`, `friend:list`, and the pushes they cause
//! (`friend:list` to both sides, `friend:incoming`, `friend:status` when friends come and go).
//!
//! The lists live in the store (the repositories enforce the 99 limits and keep friendships
//! two-sided); the world only needs each player's ignored names, for chat. Messages for other
//! players travel through the world thread (`WorldInput::Notify`), which knows who is online.

use std::sync::Arc;
use wayfarer_protocol::text::quoted;

use wayfarer_protocol::ws::{
    codes, ContactEntry, FriendIncoming, FriendList, FriendStatus, ServerMessage,
};
use wayfarer_sim::Command;
use wayfarer_store::{Character, Contact, ContactLists, RequestOutcome, StoreError};

use crate::app::AppState;
use wayfarer_host::world_thread::WorldInput;

/// A social request from a player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocialRequest {
    Request(String),
    Respond { name: String, accept: bool },
    Remove(String),
    Ignore(String),
    Unignore(String),
    List,
}

/// Why a request was refused: a wire code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
}

fn refuse(code: &'static str, message: impl Into<String>) -> Refusal {
    Refusal {
        code,
        message: message.into(),
    }
}

impl From<StoreError> for Refusal {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Conflict(message) => refuse(codes::LIMIT_REACHED, message),
            StoreError::NotFound(message) => refuse(codes::NOT_FOUND, message),
            other => {
                tracing::error!(error = %other, "friends: storage failed");
                refuse("server_error", "the friends list is unavailable; try again")
            }
        }
    }
}

/// Who is asking.
pub struct Me<'a> {
    pub id: &'a str,
    pub name: &'a str,
}

/// Handles one request; on success the lists of everyone concerned have been pushed.
pub async fn handle(state: &AppState, me: Me<'_>, request: SocialRequest) -> Result<(), Refusal> {
    match request {
        SocialRequest::List => push_list(state, me.id).await?,
        SocialRequest::Request(name) => {
            let target = other(state, &me, &name).await?;
            // An ignored player's request goes nowhere, and they are not told so.
            if state.store.ignores().ignores(&target.id, me.id).await? {
                push_list(state, me.id).await?;
                return Ok(());
            }
            let outcome = state.store.friends().request(me.id, &target.id).await?;
            if outcome == RequestOutcome::Sent {
                notify(
                    state,
                    vec![target.id.clone()],
                    ServerMessage::FriendIncoming(FriendIncoming {
                        from_id: me.id.to_owned(),
                        from_name: me.name.to_owned(),
                    }),
                )
                .await;
            }
            push_list(state, me.id).await?;
            push_list(state, &target.id).await?;
        }
        SocialRequest::Respond { name, accept } => {
            let from = other(state, &me, &name).await?;
            state
                .store
                .friends()
                .respond(me.id, &from.id, accept)
                .await?;
            push_list(state, me.id).await?;
            push_list(state, &from.id).await?;
        }
        SocialRequest::Remove(name) => {
            let friend = other(state, &me, &name).await?;
            if !state.store.friends().remove(me.id, &friend.id).await? {
                return Err(refuse(
                    codes::NOT_FOUND,
                    format!("{} is not on your friends list", friend.name),
                ));
            }
            push_list(state, me.id).await?;
            push_list(state, &friend.id).await?;
        }
        SocialRequest::Ignore(name) => {
            let pest = other(state, &me, &name).await?;
            state.store.ignores().add(me.id, &pest.id).await?;
            refresh_ignored(state, me.id).await?;
            push_list(state, me.id).await?;
        }
        SocialRequest::Unignore(name) => {
            let pest = other(state, &me, &name).await?;
            state.store.ignores().remove(me.id, &pest.id).await?;
            refresh_ignored(state, me.id).await?;
            push_list(state, me.id).await?;
        }
    }
    Ok(())
}

/// Tells a player's online friends that they came online or went offline.
pub async fn announce(state: &AppState, id: &str, name: &str, online: bool) {
    match state.store.friends().list(id).await {
        Ok(friends) if !friends.is_empty() => {
            notify(
                state,
                friends.into_iter().map(|f| f.id).collect(),
                status(state, id, name, online),
            )
            .await
        }
        Ok(_) => {}
        Err(err) => tracing::warn!(character = id, error = %err, "friends: status not announced"),
    }
}

/// `friend:status` of `id` coming online or going offline (with several worlds, the world it
/// came online in).
fn status(state: &AppState, id: &str, name: &str, online: bool) -> ServerMessage {
    ServerMessage::FriendStatus(FriendStatus {
        id: id.to_owned(),
        name: name.to_owned(),
        online,
        world: state
            .cluster
            .as_ref()
            .filter(|_| online)
            .map(|c| c.world_id),
    })
}

/// The character named `name`, who is not `me`.
async fn other(state: &AppState, me: &Me<'_>, name: &str) -> Result<Character, Refusal> {
    let name = name.trim();
    let found = state
        .store
        .characters()
        .find_by_name(name)
        .await?
        .ok_or_else(|| {
            refuse(
                codes::PLAYER_NOT_FOUND,
                format!("nobody is called {}", quoted(name)),
            )
        })?;
    if found.id == me.id {
        return Err(refuse(codes::INVALID_TARGET, "that is you"));
    }
    Ok(found)
}

/// The world's copy of a player's ignored names, after a change.
async fn refresh_ignored(state: &AppState, id: &str) -> Result<(), Refusal> {
    let ignored = state.store.ignores().names(id).await?;
    state
        .world_sender
        .send(WorldInput::Sim(Command::SetIgnored {
            id: id.to_owned(),
            ignored,
        }));
    Ok(())
}

/// Sends `id` (if online) its whole list.
pub async fn push_list(state: &AppState, id: &str) -> Result<(), Refusal> {
    let list = list_of(state, id).await?;
    notify(state, vec![id.to_owned()], ServerMessage::FriendList(list)).await;
    Ok(())
}

async fn list_of(state: &AppState, id: &str) -> Result<FriendList, StoreError> {
    let lists = state.store.friends().lists(id).await?;
    friend_list(state, lists).await
}

/// The `friend:list` of a character's lists, friends marked online as they are now.
async fn friend_list(state: &AppState, lists: ContactLists) -> Result<FriendList, StoreError> {
    let entry = |c: Contact, online: Option<bool>, world: Option<i64>| ContactEntry {
        id: c.id,
        name: c.name,
        online,
        world,
    };
    let ContactLists {
        friends,
        incoming,
        outgoing,
        ignored,
    } = lists;
    // Several worlds: a friend is online when some world holds their lease (presence from the
    // shared database, so a world that just started knows it without having heard anything).
    let elsewhere = match &state.cluster {
        Some(_) => {
            let ids: Vec<String> = friends.iter().map(|c| c.id.clone()).collect();
            state.store.leases().worlds_of(&ids).await?
        }
        None => Default::default(),
    };
    let my_world = state.cluster.as_ref().map(|c| c.world_id);
    let others = |list: Vec<Contact>| list.into_iter().map(|c| entry(c, None, None)).collect();
    Ok(FriendList {
        friends: friends
            .into_iter()
            .map(|c| {
                let world = match elsewhere.get(&c.id) {
                    Some(&w) => Some(w),
                    None if state.online.is_online(&c.id) => my_world,
                    None => None,
                };
                let online = world.is_some() || state.online.is_online(&c.id);
                entry(c, Some(online), world)
            })
            .collect(),
        incoming: others(incoming),
        outgoing: others(outgoing),
        ignored: others(ignored),
    })
}

/// A character entered the world with `lists` (read once for its entry: the sim had the ignore
/// list from them): its `friend:list`, and its friends told it came online.
pub async fn entered(state: &AppState, id: &str, name: &str, lists: ContactLists) {
    let friends: Vec<String> = lists.friends.iter().map(|c| c.id.clone()).collect();
    match friend_list(state, lists).await {
        Ok(list) => notify(state, vec![id.to_owned()], ServerMessage::FriendList(list)).await,
        Err(err) => tracing::warn!(character = id, error = %err, "friends list not sent"),
    }
    if !friends.is_empty() {
        notify(state, friends, status(state, id, name, true)).await;
    }
}

/// Sends `message` to those of `to` who are online: in this world, and with several worlds in
/// whichever world they are on.
async fn notify(state: &AppState, to: Vec<String>, message: ServerMessage) {
    match &state.cluster {
        Some(cluster) => {
            cluster
                .notify_everywhere(&state.world_sender, to, message)
                .await
        }
        None => {
            state.world_sender.send(WorldInput::Notify {
                to,
                message: Arc::new(message),
            });
        }
    }
}
