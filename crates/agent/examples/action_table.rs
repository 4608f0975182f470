//! Prints the action table for docs/agents.md: `cargo run -p wayfarer-agent --example action_table`.

fn main() {
    print!("{}", wayfarer_agent::docs::action_table());
}
