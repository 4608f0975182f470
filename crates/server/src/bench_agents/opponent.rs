//! A task's scripted opponent (`opponent` in the manifest): a second player the bench itself
//! drives, so a duel task has someone to duel and a lockstep run stays the same run to run.
//!
//! It is an agent of the bench account with the `idle` goal (the planner does nothing for it but
//! its reflexes) and the bench's commands, sent as an owner's (`Control::Message`, an action of
//! the table): it accepts a challenge (or declines it, `accepts: false`), accepts each duel
//! screen with the default rules and no stake, and fights only as any player on auto-retaliate
//! does when hit. Each tick the bench steps it after the task's agents, and reads its state once
//! the step is done (nothing arrives between a step and the next tick); what that state calls for
//! is sent before its next step, whose fence puts it in the world's queue before the tick after.

use anyhow::anyhow;
use serde_json::{json, Value};
use tokio::sync::oneshot;
use wayfarer_agent::{AgentConfig, Brain, Control, Goal, Host, Login};

use super::tasks::{Opponent, Start};
use super::{entered, in_world, seed_start, step_one, Player, AGENT_WAIT};
use crate::agents::registration;
use crate::app::AppState;
use crate::characters::creation;
use crate::characters::{CharacterName, Namer};

/// The opponent and what it is to send before its next step.
pub struct Scripted {
    pub player: Player,
    accepts: bool,
    next: Option<String>,
    /// The last command sent and the duel stage it answered: the state read just after a step
    /// still shows that stage (the world takes the command in at the next tick), and it is not
    /// answered twice.
    sent: Option<(String, String)>,
}

/// Creates the opponent's character at its place and lets it into the world.
pub async fn enter(
    state: &AppState,
    account_id: &str,
    base: &str,
    opponent: &Opponent,
) -> anyhow::Result<Scripted> {
    let name = CharacterName::parse(&opponent.name, Namer::Admin)?;
    let character = creation::create(
        state,
        account_id,
        &name,
        opponent.template.as_deref(),
        creation::SERVER_LIMITS,
    )
    .await?;
    let start = Start {
        template: opponent.template.clone(),
        items: Vec::new(),
        bank: Vec::new(),
        place: Some(opponent.place),
        coins: None,
        without: opponent.without.clone(),
    };
    seed_start(state, &character.id, &start).await?;
    let (_, registered) = registration::register_character(state, account_id, &character).await?;
    let idle = Goal::from_request(&json!({"kind": "idle"})).map_err(|e| anyhow!(e))?;
    let handle = wayfarer_agent::spawn_hosted(
        AgentConfig {
            server: base.to_owned(),
            login: Login::Token(registered.token),
            goal: Some(idle),
            brain: Brain::Planner,
            label: name.as_str().to_owned(),
        },
        Host {
            http: Some(wayfarer_agent_http::client()),
            quiet: true,
            lockstep: true,
            ..Host::default()
        },
    );
    let mut player = Player {
        handle,
        character_id: character.id,
    };
    entered(&mut player).await?;
    in_world(state, &player.character_id).await?;
    Ok(Scripted {
        player,
        accepts: opponent.accepts,
        next: None,
        sent: None,
    })
}

impl Scripted {
    /// Its step for the tick just run: the command decided after the last step first, then the
    /// step, then what its state now calls for.
    pub async fn step(&mut self) -> anyhow::Result<()> {
        let control = &self.player.handle.control;
        if let Some(command) = self.next.take() {
            control
                .send(Control::Message(command))
                .await
                .map_err(|_| anyhow!("the opponent stopped"))?;
        }
        step_one(&self.player).await?;
        let (reply, state) = oneshot::channel();
        control
            .send(Control::Inspect(reply))
            .await
            .map_err(|_| anyhow!("the opponent stopped"))?;
        let state = tokio::time::timeout(AGENT_WAIT, state)
            .await
            .map_err(|_| anyhow!("the opponent did not answer within {AGENT_WAIT:?}"))?
            .map_err(|_| anyhow!("the opponent lost its connection"))?;
        let next = command_for(&state, self.accepts);
        if next != self.sent {
            self.next = next.as_ref().map(|(_, command)| command.clone());
        }
        self.sent = next;
        Ok(())
    }
}

/// What the opponent does next, from its state: answer a challenge, accept a duel screen it has
/// not accepted; nothing otherwise. With the stage it answers.
fn command_for(state: &Value, accepts: bool) -> Option<(String, String)> {
    let duel = state["availableActions"]["actions"]
        .as_array()?
        .iter()
        .find(|a| a["name"] == "duel")?;
    let with = &duel["with"];
    let stage = with["stage"].as_str()?;
    let params = match stage {
        "challenged" => json!({"step": "respond", "accept": accepts}),
        "rules" | "confirm" if with["accepted"] != json!(true) => json!({"step": "accept"}),
        _ => return None,
    };
    Some((stage.to_owned(), format!("duel {params}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(with: Value) -> Value {
        json!({"availableActions": {"actions": [{"name": "idle"}, {"name": "duel", "with": with}]}})
    }

    #[test]
    fn the_opponent_answers_a_challenge_and_accepts_each_screen_once() {
        let command = |state: &Value, accepts| command_for(state, accepts).map(|(_, c)| c);
        let challenged = offered(json!({"stage": "challenged"}));
        assert_eq!(
            command(&challenged, true).as_deref(),
            Some(r#"duel {"accept":true,"step":"respond"}"#)
        );
        assert_eq!(
            command(&challenged, false).as_deref(),
            Some(r#"duel {"accept":false,"step":"respond"}"#)
        );
        for stage in ["rules", "confirm"] {
            let open = offered(json!({"stage": stage, "accepted": false}));
            assert_eq!(
                command_for(&open, true),
                Some((stage.to_owned(), r#"duel {"step":"accept"}"#.to_owned()))
            );
            let done = offered(json!({"stage": stage, "accepted": true}));
            assert_eq!(command_for(&done, true), None);
        }
        assert_eq!(
            command_for(&offered(json!({"stage": "fighting"})), true),
            None
        );
        // No duel offered (players within reach are listed under targetIds): nothing.
        assert_eq!(
            command_for(&offered(json!({"targetIds": ["p1"]})), true),
            None
        );
        assert_eq!(command_for(&json!({}), true), None);
    }
}
