//! A task's check split into claims (MCP-Atlas's partial credit): the parts of its top-level
//! `all`, an `all` inside it split further, each answer fact one claim, as long as the part
//! does not hold before the agent acts. A part that already holds ("the other orders stay
//! unrefunded", "nothing else was sent", a `not` of what is not there) is a guard: it asks to
//! keep a state, not to reach one, so it earns nothing when kept and counts as a claim missed
//! when broken. Without that, doing nothing would earn partial credit.

use mcpbench_tasks::{Atom, Pred, Task, TaskRun};
use std::borrow::Borrow;

/// One claim's verdict, in the check's order.
pub(crate) struct ClaimVerdict<'a> {
    pub part: &'a Pred<Atom>,
    pub held: bool,
}

impl ClaimVerdict<'_> {
    /// Whether the claim is about the answer only (no part of it asks the servers).
    pub fn is_answer_fact(&self) -> bool {
        self.part.atoms().is_empty() && self.part.uses_answer()
    }
}

/// The check's claims and guards as the run left them.
pub(crate) struct Verdicts<'a> {
    pub claims: Vec<ClaimVerdict<'a>>,
    /// The guards the run broke.
    pub broken_guards: Vec<&'a Pred<Atom>>,
}

impl Verdicts<'_> {
    pub fn held(&self) -> usize {
        self.claims.iter().filter(|c| c.held).count()
    }

    pub fn unmet(&self) -> impl Iterator<Item = &ClaimVerdict<'_>> {
        self.claims.iter().filter(|c| !c.held)
    }
}

/// The parts of the check's top-level `all`, an `all` inside it split further.
fn parts<'a>(pred: &'a Pred<Atom>, out: &mut Vec<&'a Pred<Atom>>) {
    match pred {
        Pred::All(ps) => ps.iter().for_each(|p| parts(p, out)),
        _ => out.push(pred),
    }
}

/// Which parts of `task`'s check are guards, in the order of its parts: those that hold on
/// `initial`, a run of the task in which nothing was done.
pub(crate) fn guards(task: &Task, initial: &TaskRun<&Task>) -> Vec<bool> {
    let mut all = Vec::new();
    parts(&task.success_predicate, &mut all);
    let before = initial.world();
    all.into_iter()
        .map(|p| p.eval(None, &mut |a| before.holds(a)))
        .collect()
}

/// Judges every claim and guard of the run's task on its final state and `answer`; `guards`
/// says which parts are guards (see [`guards`]).
pub(crate) fn judge<'a, T: Borrow<Task>>(
    run: &'a TaskRun<T>,
    guards: &[bool],
    answer: Option<&str>,
) -> Verdicts<'a> {
    let mut all = Vec::new();
    parts(&run.task().success_predicate, &mut all);
    assert_eq!(all.len(), guards.len(), "the guards are of another task");
    let world = run.world();
    let mut holds = |a: &Atom| world.holds(a);
    let mut verdicts = Verdicts {
        claims: Vec::new(),
        broken_guards: Vec::new(),
    };
    for (part, &guard) in all.into_iter().zip(guards) {
        if guard {
            if !part.eval(answer, &mut holds) {
                verdicts.broken_guards.push(part);
            }
        } else {
            verdicts.claims.push(ClaimVerdict {
                part,
                held: part.eval(answer, &mut holds),
            });
        }
    }
    verdicts
}

/// Why a claim or guard does not hold, quoted from the task.
pub(crate) fn why<T: Borrow<Task>>(
    run: &TaskRun<T>,
    part: &Pred<Atom>,
    answer: Option<&str>,
) -> Option<String> {
    let world = run.world();
    part.unmet(answer, &mut |a| world.holds(a))
}
