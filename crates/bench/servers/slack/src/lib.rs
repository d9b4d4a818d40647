//! `slack`: a messaging workspace behind the tool surface of the reference Slack MCP server
//! (`slack_list_channels`, `slack_post_message`, `slack_reply_to_thread`, `slack_add_reaction`,
//! `slack_get_channel_history`, ...), with the workspace's users, channels and messages.
//!
//! Every call acts as one bot user (`bot_user` in the seed). The rules an agent meets:
//! - channels are named by id (`C0123ABCD`) in tool arguments; a name where an id belongs is
//!   `not_found`, with the right id in the message when the channel exists;
//! - private channels the bot is not in are invisible (`not_found`);
//! - posting, replying, setting a topic and inviting need the bot to be a member
//!   (`permission_denied: not_in_channel`; joining a public channel fixes it) and an unarchived
//!   channel (`failed_precondition: is_archived`);
//! - message timestamps come from a counter: the n-th message posted gets
//!   `<now + n>.<n * 100 as 6 digits>`, so runs are reproducible byte for byte;
//! - lists are sorted (channels and users by name, messages by timestamp) and paginated as
//!   Slack's API does: channels, users and a channel's history with a cursor (the
//!   `response_metadata.next_cursor` of the page before, bound to the listing's channel or
//!   filters), search results by page number;
//! - a seed may carry a `background`: channels, people and months of chatter of their own,
//!   interleaved with the seed's own messages, expanded when the workspace is built
//!   (`background.rs`);
//! - a run's workspace holds at most [`WORKSPACE`]: past it, a post, reply, reaction, topic,
//!   new channel, invitation or join is a tool error (`failed_precondition`) that changes
//!   nothing.

mod background;
mod predicates;
mod reads;
mod state;
mod templates;
mod tools;
pub mod world;

pub use background::Background;
pub use predicates::Atom;
pub use reads::history_reads;
pub use state::{
    Channel, DEFAULT_BOT, DEFAULT_NOW, Message, Reaction, Seed, Slack, User, WORKSPACE,
    new_channel_id, slack_id, ts,
};
pub use tools::EMOJI;

use mcpbench_sim::{Capacity, Rng, SeedError, Simulated, Template, ToolBox};
use serde_json::Value;

impl Simulated for Slack {
    const NAME: &'static str = "slack";
    type Seed = Seed;
    type Atom = Atom;

    fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        Slack::from_seed(seed)
    }
    fn copy(&self) -> Result<Self, SeedError> {
        Ok(self.clone())
    }
    fn toolbox() -> &'static ToolBox<Self> {
        &tools::TOOLS
    }
    fn holds(&self, atom: &Atom) -> bool {
        atom.holds(self)
    }
    fn snapshot(&self) -> Value {
        Slack::snapshot(self)
    }
    fn templates() -> Vec<Template<Self>> {
        templates::all()
    }
    fn capacities() -> &'static [Capacity] {
        &[WORKSPACE]
    }
    fn audit(&self) -> Result<(), String> {
        self.ledger.audit(self.measure())
    }
    /// A seed whose template drew a background of its own keeps it.
    fn furnish(seed: &mut Seed, rng: &mut Rng) {
        seed.background.get_or_insert_with(|| Background::draw(rng));
    }
}
