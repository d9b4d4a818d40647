//! What the backgrounds of every server draw from: the people of an account's history beside
//! the task (a mailbox's correspondents, a tracker's reporters, a shop's customers). These
//! names belong to no template, so that a background never answers for the task's own people;
//! `mcpbench-tasks` holds a test that no template's goal names one of them.

use crate::rng::Rng;
use std::collections::BTreeSet;

/// First names of background people; no template draws any of them.
pub const FIRST_NAMES: &[&str] = &[
    "Beatriz", "Henrik", "Ingrid", "Lukas", "Rafael", "Solveig", "Tobias", "Yara", "Zofia", "Elif",
    "Pavel", "Nkechi", "Aurelio", "Camille", "Bogdan", "Chiyo", "Matteo", "Vesna", "Idris",
    "Anouk", "Emeka", "Teodor", "Rui", "Lasse",
];

/// Family names of background people; no template draws any of them.
pub const LAST_NAMES: &[&str] = &[
    "Moura",
    "Solberg",
    "Carvalho",
    "Falk",
    "Quiroga",
    "Marchetti",
    "Krug",
    "Nassar",
    "Wojcik",
    "Demir",
    "Okonkwo",
    "Virtanen",
    "Roux",
    "Volkov",
    "Kobayashi",
    "Ricci",
    "Dahl",
    "Karimi",
    "Lindgren",
    "Abara",
];

/// A background person: (first name, family name).
pub fn person(rng: &mut Rng) -> (&'static str, &'static str) {
    (*rng.pick(FIRST_NAMES), *rng.pick(LAST_NAMES))
}

/// How many minutes before "now" a background record is dated: weighted to the recent past as
/// real accounts are (two in five in the last `recent_days`), the rest spread over `days`, so
/// that a task's own records, dated in the recent past too, sit among them.
pub fn minutes_ago(rng: &mut Rng, recent_days: i64, days: i64) -> i64 {
    let span = if rng.chance(2, 5) { recent_days } else { days };
    rng.range(30, span.max(1) * 24 * 60)
}

/// Whether two ids of the same form differ in one character only (`msg-1042`, `msg-1043`): a
/// background keeps such ids away from the task's own, so that one slip of a digit never names
/// a record that exists.
pub fn one_slip_apart(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).filter(|(x, y)| x != y).count() == 1
}

/// A background id `form(n)` for a number `n` drawn from `lo..=hi`: of the same form as the
/// task's own ids and among them, but not yet `taken` (which it then joins) and never one slip
/// away from any of `own`. The range must hold well more free numbers than a background asks.
pub fn fresh_id<S: AsRef<str>>(
    rng: &mut Rng,
    taken: &mut BTreeSet<String>,
    own: &[S],
    (lo, hi): (i64, i64),
    form: impl Fn(i64) -> String,
) -> String {
    loop {
        let id = form(rng.range(lo, hi));
        if !taken.contains(&id) && !own.iter().any(|o| one_slip_apart(o.as_ref(), &id)) {
            taken.insert(id.clone());
            return id;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pools_hold_no_name_twice() {
        for pool in [FIRST_NAMES, LAST_NAMES] {
            let mut seen = std::collections::BTreeSet::new();
            assert!(pool.iter().all(|n| seen.insert(n)), "{pool:?}");
        }
    }

    #[test]
    fn a_slip_is_one_character() {
        assert!(one_slip_apart("msg-1042", "msg-1043"));
        assert!(one_slip_apart("msg-1042", "msg-1942"));
        assert!(!one_slip_apart("msg-1042", "msg-1053"));
        assert!(!one_slip_apart("msg-1042", "msg-1042"));
        assert!(!one_slip_apart("msg-1042", "msg-10420"));
    }
}
