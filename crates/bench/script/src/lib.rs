//! The generator-aware baseline, `script`: the strongest agent without a model we can write
//! knowing the public families as well as anyone who has read this repository. It stands for
//! the adversary of rule 10 (docs/tasks.md): on the public sets it shows what knowing the
//! generator buys; on a private month drawn from families it was not written against, it must
//! pass almost nothing, or the month ranks scripts rather than models.
//!
//! - `recognize`: every goal wording of every public family as a regular expression (its
//!   text, its choices as alternatives, its slots as captures), so a goal names its family and
//!   hands over the values its slots hold;
//! - `slots`: those texts read back into the family's values, through the family's own
//!   filters (`{$price | euros}`);
//! - `harvest`: the records the servers answer with, matched to what the goal described;
//! - `hints`: the author's own knowledge of some families (`hints.json`), jq over the
//!   family's names and what a tool answered;
//! - `schema`: a postgres database's table and column names, listed and described, for the
//!   families that write their statements in them;
//! - `play`: the family's first reference followed call by call with what is known, the rest
//!   guessed, errors that sound passing retried blindly, a fallback's first choice tried
//!   before its second.
//!
//! A goal it does not recognise is played by the heuristic agent ([`mcpbench_heuristic`]), as
//! a script would fall back on matching words. It knows the public pack as built into it
//! (`mcpbench_pack::public_files`), never a task's references, world or predicate.

mod harvest;
mod hints;
mod play;
mod recognize;
mod schema;
mod slots;

pub use recognize::{Recognition, Recognizer};

use mcpbench_heuristic::{ToolInfo, Tools};
use mcpbench_pack::Pack;
use std::sync::{Arc, LazyLock};

/// The public pack, its recognizer and the author's hints, built once.
pub struct Script {
    pack: Pack,
    lib: String,
    recognizer: Recognizer,
    /// Per family of the pack, in its order.
    hints: Vec<Vec<hints::Hint>>,
}

static PUBLIC: LazyLock<Arc<Script>> = LazyLock::new(|| {
    let pack = Pack::from_files(mcpbench_pack::public_files())
        .unwrap_or_else(|e| panic!("the public pack built in: {e}"));
    Arc::new(Script::new(pack))
});

impl Script {
    /// The script written against the public pack (built into this crate).
    pub fn public() -> Arc<Script> {
        PUBLIC.clone()
    }

    /// The script written against `pack`'s families.
    pub fn new(pack: Pack) -> Self {
        let recognizer = Recognizer::new(&pack);
        let lib = (pack.files.iter())
            .find(|f| f.name == "lib.jq")
            .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
            .unwrap_or_default();
        let hints = hints::of(&pack, &lib);
        Self {
            pack,
            lib,
            recognizer,
            hints,
        }
    }

    /// The pack's family `id`.
    pub fn family(&self, id: &str) -> Option<&mcpbench_pack::Family> {
        (self.pack.families.iter())
            .find(|f| f.family.id == id)
            .map(|f| &f.family)
    }

    /// The pack's own jq definitions (`lib.jq`).
    pub fn lib(&self) -> &str {
        &self.lib
    }

    pub fn recognizer(&self) -> &Recognizer {
        &self.recognizer
    }

    /// Works on `goal` with `tools`, making at most `budget` calls through `env`, and gives the
    /// final answer.
    pub fn solve(
        &self,
        goal: &str,
        tools: &[ToolInfo],
        budget: u32,
        env: &mut (impl Tools + ?Sized),
    ) -> Option<String> {
        // The wording that reads the most of the goal into slots is the likeliest.
        let found = self.recognizer.recognize(goal);
        let best = found.iter().max_by_key(|r| r.slots.len());
        let family =
            best.and_then(|r| (self.pack.families.iter()).position(|f| f.family.id == r.family));
        match (best, family) {
            (Some(r), Some(k)) => play::Play {
                family: &self.pack.families[k].family,
                hints: &self.hints[k],
                tools,
                budget,
                env,
            }
            .run(&r.slots),
            _ => mcpbench_heuristic::solve(goal, tools, budget, env),
        }
    }
}

/// Whether the script passes `task`, played in process under the rules agents meet (as
/// `tasks stats` plays the heuristic agent).
pub fn passes(task: &mcpbench_tasks::Task) -> bool {
    let script = Script::public();
    mcpbench_tasks::agent_passes(task, |goal, tools, budget, env| {
        script.solve(goal, tools, budget, env)
    })
}
