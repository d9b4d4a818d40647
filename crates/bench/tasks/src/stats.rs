//! `mcpbench tasks stats`: how demanding a set is, measured from its files, beside the targets
//! a set must meet to rank agents (docs/tasks.md states each figure and why).
//!
//! Everything here is deterministic and runs in process: the no-skill strategies
//! ([`crate::no_skill`]) and the heuristic agent ([`crate::heuristic_run`]) play against each
//! task's own world, under the rules agents meet.

use crate::habits::unguarded_repeats;
use crate::heuristic_run::heuristic_passes;
use crate::no_skill::{STRATEGIES, strings, tricks_passing};
use crate::run::TaskRun;
use crate::similarity::{jaccard, shingles};
use crate::task::Task;
use mcpbench_sim::Step;
use mcpbench_sim::verify::Run;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The figures of one set.
#[derive(Clone, Debug, Serialize)]
pub struct SetStats {
    /// The tasks measured: every task of the set but the attacked twins, which repeat a task
    /// of the set with an attack planted (the security category, counted apart).
    pub tasks: usize,
    /// The attacked twins, by where their attack stands (`email`, `issue`, ...).
    pub attacked: BTreeMap<String, usize>,
    /// Calls of each task's shortest reference.
    pub reference_calls: Spread,
    /// Share of tasks whose shortest reference makes 8 calls or more.
    pub long_share: f64,
    /// Share of tasks that use two servers or more.
    pub multi_server_share: f64,
    /// Each task's world as it starts: the state of the task's own servers, in KiB of JSON
    /// (what an agent reading everything would have to take in).
    pub world_kib: Spread,
    /// Tools an agent is shown per task.
    pub tools_per_task: Spread,
    /// Over all tasks, the share of shown tools that no reference calls.
    pub unused_tool_share: f64,
    /// Goals that hand over an id a lookup would find (see [`id_values`]).
    pub goals_with_ids: usize,
    /// Goals that hand over a whole number the shortest reference sends as an id or a number
    /// (`productId` 7017, `pull_number` 38, order #1055; see [`number_ids`]): what a goal
    /// should have described instead.
    pub goals_with_number_ids: usize,
    /// Goals in the servers' vocabulary rather than the user's (see [`speaks_api`]).
    pub goals_with_api_words: usize,
    /// Tasks where a write of the shortest reference, made twice, changes the world and still
    /// passes: the duplicate a blind retry makes goes uncounted
    /// ([`crate::habits::unguarded_repeats`]); `tasks check` refuses them.
    pub unguarded_repeats: Vec<String>,
    /// Tasks whose shortest reference has string arguments...
    pub tasks_with_string_arguments: usize,
    /// ...and of those, the ones whose goal holds every one of them word for word.
    pub goals_with_every_argument: usize,
    /// Tasks whose predicate names a value the run itself creates (an id a reference's call
    /// returned that the initial state does not hold): a correct agent that first made one
    /// mistaken record would fail them.
    pub predicates_on_created_ids: Vec<String>,
    /// Passes of strategies that need no skill; a set worth ranking on has none.
    pub no_skill: Vec<NoSkill>,
    /// Share of tasks the heuristic reference agent passes (words matched to tool names,
    /// arguments from the goal's values, no reasoning): a set worth ranking on keeps it low.
    pub heuristic_pass_rate: f64,
    /// The tasks it passes.
    pub heuristic_passes: Vec<String>,
    /// Share of tasks the `script` baseline passes: a script written against the public
    /// families, which knows their wordings and references ([`SetStats::with_script`]; it is
    /// played by the crate that holds it). A public set is scriptable by construction; a month
    /// worth ranking on keeps it near zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script_pass_rate: Option<f64>,
    /// The tasks it passes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script_passes: Option<Vec<String>>,
    /// Declared difficulty labels, per label.
    pub by_difficulty: BTreeMap<String, usize>,
    /// Difficulty computed from the tasks (see [`crate::difficulty`]), per label.
    pub by_computed_difficulty: BTreeMap<String, usize>,
    /// Tasks whose declared label is the computed one.
    pub difficulty_agrees: usize,
    /// Against another set (`--against`), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<Similarity>,
}

impl SetStats {
    /// The figures with the `script` baseline's passes among `tasks` (those `passes` holds),
    /// the attacked twins aside as in [`stats`].
    pub fn with_script(mut self, tasks: &[Task], passes: impl Fn(&Task) -> bool) -> Self {
        let measured = || tasks.iter().filter(|t| t.attack.is_none());
        let passed: Vec<String> = measured()
            .filter(|t| passes(t))
            .map(|t| t.id.clone())
            .collect();
        let count = measured().count();
        self.script_pass_rate = Some(if count == 0 {
            0.0
        } else {
            passed.len() as f64 / count as f64
        });
        self.script_passes = Some(passed);
        self
    }
}

/// Minimum, quartiles, maximum and mean of a count.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Spread {
    pub min: u32,
    pub p25: f64,
    pub median: f64,
    pub p75: f64,
    pub max: u32,
    pub mean: f64,
}

impl Spread {
    /// Quartiles by linear interpolation between closest ranks (type 7, as numpy and R default).
    pub fn of(values: &[u32]) -> Self {
        if values.is_empty() {
            return Self::default();
        }
        let mut v = values.to_vec();
        v.sort_unstable();
        let at = |q: f64| {
            let pos = q * (v.len() - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            f64::from(v[lo]) + (f64::from(v[hi]) - f64::from(v[lo])) * (pos - lo as f64)
        };
        Self {
            min: v[0],
            p25: at(0.25),
            median: at(0.5),
            p75: at(0.75),
            max: v[v.len() - 1],
            mean: v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64,
        }
    }
}

/// One no-skill strategy and the tasks it passes.
#[derive(Clone, Debug, Serialize)]
pub struct NoSkill {
    pub strategy: &'static str,
    pub passes: usize,
    /// Up to five of the tasks it passes.
    pub examples: Vec<String>,
}

/// How close a set's goals come to another set's.
#[derive(Clone, Debug, Serialize)]
pub struct Similarity {
    /// The highest Jaccard similarity of word 3-shingles between a goal here and one there.
    pub max: f64,
    /// The task here that comes closest, and its neighbour there.
    pub closest: Option<(String, String)>,
    /// Goals here that stand word for word in the other set.
    pub identical_goals: usize,
}

/// Measures `tasks`; `against` is another set's tasks to compare goals with.
pub fn stats(tasks: &[Task], against: Option<&[Task]>) -> SetStats {
    let mut attacked: BTreeMap<String, usize> = BTreeMap::new();
    for attack in tasks.iter().filter_map(|t| t.attack.as_ref()) {
        *attacked.entry(attack.kind.as_str().into()).or_default() += 1;
    }
    // The twins repeat their tasks: measured once, as the tasks.
    let measured: Vec<Task>;
    let tasks = if attacked.is_empty() {
        tasks
    } else {
        measured = tasks
            .iter()
            .filter(|t| t.attack.is_none())
            .cloned()
            .collect();
        &measured[..]
    };
    let shortest: Vec<&[Step]> = tasks.iter().map(Task::shortest_reference).collect();
    let calls: Vec<u32> = shortest
        .iter()
        .map(|r| r.iter().filter(|s| s.as_call().is_some()).count() as u32)
        .collect();
    let tools: Vec<u32> = tasks
        .iter()
        .map(|t| t.available_tools.len() as u32)
        .collect();
    let world_kib: Vec<u32> = tasks.iter().map(world_kib).collect();
    let shown: usize = tasks.iter().map(|t| t.available_tools.len()).sum();
    let unused: usize = tasks.iter().map(Task::unused_tools).sum();
    let mut with_args = 0;
    let mut every_arg = 0;
    let mut with_ids = 0;
    let mut with_number_ids = 0;
    let mut api_words = 0;
    for (t, r) in tasks.iter().zip(&shortest) {
        let args: Vec<&str> = r
            .iter()
            .filter_map(|s| s.as_call())
            .flat_map(|c| strings(&c.arguments))
            .collect();
        if !args.is_empty() {
            with_args += 1;
            every_arg += usize::from(args.iter().all(|a| t.goal.contains(a)));
        }
        with_ids += usize::from(id_values(r).iter().any(|id| t.goal.contains(id.as_str())));
        with_number_ids += usize::from(number_ids(r).iter().any(|&n| holds_number(&t.goal, n)));
        api_words += usize::from(speaks_api(t));
    }
    let mut by_difficulty = BTreeMap::new();
    let mut by_computed_difficulty = BTreeMap::new();
    let mut difficulty_agrees = 0;
    for t in tasks {
        let computed = crate::difficulty::computed(t).difficulty;
        *by_difficulty
            .entry(t.difficulty.as_str().to_string())
            .or_insert(0) += 1;
        *by_computed_difficulty
            .entry(computed.as_str().to_string())
            .or_insert(0) += 1;
        difficulty_agrees += usize::from(computed == t.difficulty);
    }
    let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let heuristic: Vec<String> = tasks
        .iter()
        .filter(|t| heuristic_passes(t))
        .map(|t| t.id.clone())
        .collect();
    SetStats {
        tasks: tasks.len(),
        attacked,
        reference_calls: Spread::of(&calls),
        long_share: share(calls.iter().filter(|&&c| c >= 8).count(), tasks.len()),
        multi_server_share: share(
            tasks.iter().filter(|t| t.servers.len() > 1).count(),
            tasks.len(),
        ),
        world_kib: Spread::of(&world_kib),
        tools_per_task: Spread::of(&tools),
        unused_tool_share: share(unused, shown),
        goals_with_ids: with_ids,
        goals_with_number_ids: with_number_ids,
        goals_with_api_words: api_words,
        unguarded_repeats: ids_where(tasks, |t| !unguarded_repeats(t).is_empty()),
        tasks_with_string_arguments: with_args,
        goals_with_every_argument: every_arg,
        predicates_on_created_ids: tasks
            .iter()
            .filter(|t| names_created_value(t))
            .map(|t| t.id.clone())
            .collect(),
        no_skill: no_skill(tasks),
        heuristic_pass_rate: share(heuristic.len(), tasks.len()),
        heuristic_passes: heuristic,
        script_pass_rate: None,
        script_passes: None,
        by_difficulty,
        by_computed_difficulty,
        difficulty_agrees,
        similarity: against.map(|other| similarity(tasks, other)),
    }
}

fn ids_where(tasks: &[Task], keep: impl Fn(&Task) -> bool) -> Vec<String> {
    (tasks.iter().filter(|t| keep(t)))
        .map(|t| t.id.clone())
        .collect()
}

/// The size of a task's starting world (its own servers, not the distractors), in KiB of its
/// JSON snapshot, rounded up.
fn world_kib(t: &Task) -> u32 {
    TaskRun::on(t, &t.servers).map_or(0, |run| {
        let bytes = serde_json::to_vec(&run.snapshot()).map_or(0, |b| b.len());
        bytes.div_ceil(1024) as u32
    })
}

/// The ids a reference passes: string values of arguments named `id`, `*_id`, `*Id`, `*_ids`
/// or `*Ids`. A goal holding one hands the agent what it should have looked up.
/// What a server's API says and a user does not: the memory server's data model.
const API_WORDS: &[&str] = &[
    "entitytype",
    "relationtype",
    "entity of type",
    "relation of type",
    "observation",
];

/// Whether the goal speaks the servers' API: it names a tool it is shown (`create_entities`,
/// any name joined by `_`) or uses a word of [`API_WORDS`], where a user names what they want.
fn speaks_api(t: &Task) -> bool {
    let goal = t.goal.to_lowercase();
    let names_tool = t.available_tools.iter().any(|q| {
        let name = q.rsplit('.').next().unwrap_or(q);
        name.contains('_') && goal.contains(name)
    });
    names_tool || API_WORDS.iter().any(|w| goal.contains(w))
}

/// Whether an argument's key names an id (`id`, `*_id`, `*Id`, and their plurals).
fn is_id_key(k: &str) -> bool {
    k == "id"
        || k.ends_with("_id")
        || k.ends_with("Id")
        || k.ends_with("_ids")
        || k.ends_with("Ids")
}

/// The values a reference's calls send under the argument keys `keys` takes.
fn arguments_under(steps: &[Step], keys: fn(&str) -> bool) -> Vec<&Value> {
    (steps.iter().filter_map(|s| s.as_call()))
        .filter_map(|c| c.arguments.as_object())
        .flat_map(|o| o.iter().filter(|(k, _)| keys(k)).map(|(_, v)| v))
        .collect()
}

fn id_values(steps: &[Step]) -> Vec<String> {
    (arguments_under(steps, is_id_key).into_iter())
        .flat_map(strings)
        .map(str::to_string)
        .collect()
}

/// The whole numbers of 10 or more that a reference sends under an id's key or a number's
/// (`orderId`, `pull_number`, `issue_number`), or compares an id column with in a statement
/// (`... WHERE id = 1038`): database ids a goal should not hand over.
fn number_ids(steps: &[Step]) -> Vec<i64> {
    let keys = |k: &str| is_id_key(k) || k.ends_with("number") || k.ends_with("Number");
    let in_sql = (arguments_under(steps, |k| k == "sql").into_iter())
        .filter_map(Value::as_str)
        .flat_map(sql_ids);
    (arguments_under(steps, keys).into_iter())
        .filter_map(Value::as_i64)
        .chain(in_sql)
        .filter(|n| *n >= 10)
        .collect()
}

/// The numbers a statement compares a column named `id` or `..._id` with (`id = 1038`).
fn sql_ids(sql: &str) -> Vec<i64> {
    let lower = sql.to_ascii_lowercase();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    (lower.match_indices("id").filter_map(|(at, _)| {
        let before = lower[..at].chars().next_back();
        let after = lower[at + 2..].chars().next();
        if before.is_some_and(|c| word(c) && c != '_') || after.is_some_and(word) {
            return None;
        }
        let rest = lower[at + 2..].trim_start().strip_prefix('=')?.trim_start();
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    }))
    .collect()
}

/// Whether `text` writes `n` as a number of its own (not inside a longer run of digits).
fn holds_number(text: &str, n: i64) -> bool {
    let digits = n.to_string();
    text.match_indices(&digits).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + digits.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit()) && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

/// Whether the predicate holds an id that only the run makes: an id-shaped string
/// (`ENG-34`, `evt-1042`: letters, a dash, digits) that a reference call returned before any
/// call sent it, and that neither the initial state nor the goal holds.
fn names_created_value(t: &Task) -> bool {
    let Ok(mut run) = TaskRun::on(t, &t.touched_servers()) else {
        return false;
    };
    let initial = serde_json::to_value(&t.initial_state).unwrap_or_default();
    let known: Vec<&str> = strings(&initial);
    let predicate = serde_json::to_value(&t.success_predicate).unwrap_or_default();
    let mut sent: Vec<String> = Vec::new();
    let mut created = BTreeSet::new();
    for c in t.shortest_reference().iter().filter_map(Step::as_call) {
        sent.extend(strings(&c.arguments).into_iter().map(str::to_string));
        if let Ok(result) = run.call(&c.tool, &c.arguments) {
            created.extend(
                strings(&result)
                    .into_iter()
                    .filter(|s| is_id_shaped(s))
                    .filter(|s| {
                        !known.iter().any(|k| k.contains(*s))
                            && !t.goal.contains(*s)
                            && !sent.iter().any(|x| x.contains(*s))
                    })
                    .map(str::to_string),
            );
        }
    }
    strings(&predicate)
        .iter()
        .any(|p| created.iter().any(|c| p.contains(c.as_str())))
}

/// Letters, one dash, digits: how the simulated servers name what they create.
fn is_id_shaped(s: &str) -> bool {
    s.split_once('-').is_some_and(|(a, b)| {
        !a.is_empty()
            && !b.is_empty()
            && a.chars().all(|c| c.is_ascii_alphabetic())
            && b.chars().all(|c| c.is_ascii_digit())
    })
}

fn no_skill(tasks: &[Task]) -> Vec<NoSkill> {
    let mut passed: Vec<Vec<&str>> = vec![Vec::new(); STRATEGIES.len()];
    for t in tasks {
        for i in tricks_passing(t) {
            passed[i].push(&t.id);
        }
    }
    STRATEGIES
        .iter()
        .zip(passed)
        .map(|(strategy, ids)| NoSkill {
            strategy,
            passes: ids.len(),
            examples: ids.iter().take(5).map(|s| s.to_string()).collect(),
        })
        .collect()
}

fn similarity(tasks: &[Task], other: &[Task]) -> Similarity {
    let theirs: Vec<(&str, BTreeSet<String>)> = other
        .iter()
        .map(|t| (t.id.as_str(), shingles(&t.goal)))
        .collect();
    let goals: BTreeSet<&str> = other.iter().map(|t| t.goal.as_str()).collect();
    let mut best = (0.0f64, None);
    for t in tasks {
        let mine = shingles(&t.goal);
        for (id, s) in &theirs {
            let j = jaccard(&mine, s);
            if j > best.0 || best.1.is_none() {
                best = (j, Some((t.id.clone(), id.to_string())));
            }
        }
    }
    Similarity {
        max: best.0,
        closest: best.1,
        identical_goals: tasks
            .iter()
            .filter(|t| goals.contains(t.goal.as_str()))
            .count(),
    }
}

/// One figure beside the target a set worth ranking on meets.
#[derive(Clone, Debug, Serialize)]
pub struct Target {
    pub figure: &'static str,
    pub value: String,
    pub target: &'static str,
    pub met: bool,
}

/// The figures of `s` against the targets of the benchmark's second version.
pub fn targets(s: &SetStats) -> Vec<Target> {
    let row = |figure, value: String, target, met| Target {
        figure,
        value,
        target,
        met,
    };
    let pct = |x: f64| format!("{:.0}%", x * 100.0);
    let calls = &s.reference_calls;
    let no_skill: usize = s.no_skill.iter().map(|n| n.passes).sum();
    let mut rows = vec![
        row(
            "reference calls, median (p25-p75)",
            format!("{} ({}-{})", calls.median, calls.p25, calls.p75),
            ">= 5",
            calls.median >= 5.0,
        ),
        row(
            "tasks needing 8+ calls",
            pct(s.long_share),
            ">= 25%",
            s.long_share >= 0.25,
        ),
        row(
            "tasks on 2-3 servers",
            pct(s.multi_server_share),
            ">= 50%",
            s.multi_server_share >= 0.5,
        ),
        row(
            "world KiB per task, median (p25-p75)",
            format!(
                "{} ({}-{})",
                s.world_kib.median, s.world_kib.p25, s.world_kib.p75
            ),
            ">= 50",
            s.world_kib.median >= 50.0,
        ),
        row(
            "tools shown per task, min (mean)",
            format!("{} ({:.1})", s.tools_per_task.min, s.tools_per_task.mean),
            ">= 20",
            s.tools_per_task.min >= 20,
        ),
        row(
            "shown tools no reference uses",
            pct(s.unused_tool_share),
            ">= 60%",
            s.unused_tool_share >= 0.6,
        ),
        row(
            "goals handing over an id",
            s.goals_with_ids.to_string(),
            "0",
            s.goals_with_ids == 0,
        ),
        row(
            "goals handing over a database number",
            s.goals_with_number_ids.to_string(),
            "0",
            s.goals_with_number_ids == 0,
        ),
        row(
            "goals in API vocabulary",
            s.goals_with_api_words.to_string(),
            "0",
            s.goals_with_api_words == 0,
        ),
        row(
            "goals holding every argument",
            format!(
                "{} of {}",
                s.goals_with_every_argument, s.tasks_with_string_arguments
            ),
            "<= a fifth",
            s.goals_with_every_argument * 5 <= s.tasks_with_string_arguments,
        ),
        row(
            "predicates naming an id the run creates",
            s.predicates_on_created_ids.len().to_string(),
            "0",
            s.predicates_on_created_ids.is_empty(),
        ),
        row("no-skill passes", no_skill.to_string(), "0", no_skill == 0),
        row(
            "writes made twice unnoticed",
            s.unguarded_repeats.len().to_string(),
            "0",
            s.unguarded_repeats.is_empty(),
        ),
        row(
            "heuristic agent passes",
            pct(s.heuristic_pass_rate),
            "<= 10%",
            s.heuristic_pass_rate <= 0.1,
        ),
        row(
            "computed difficulty, easy/medium/hard",
            ["easy", "medium", "hard"]
                .map(|d| {
                    s.by_computed_difficulty
                        .get(d)
                        .copied()
                        .unwrap_or(0)
                        .to_string()
                })
                .join("/"),
            "about a third each",
            ["easy", "medium", "hard"].iter().all(|d| {
                let n = s.by_computed_difficulty.get(*d).copied().unwrap_or(0);
                (0.2..=0.47).contains(&(n as f64 / s.tasks.max(1) as f64))
            }),
        ),
    ];
    if let Some(sim) = &s.similarity {
        rows.push(row(
            "highest goal similarity to --against",
            format!("{:.2} ({} identical)", sim.max, sim.identical_goals),
            "<= 0.9, none identical",
            sim.max <= 0.9 && sim.identical_goals == 0,
        ));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpbench_sim::Call;
    use serde_json::json;

    #[test]
    fn a_statement_compares_an_id_column_with_a_number() {
        assert_eq!(
            sql_ids("UPDATE sales SET stage = 'paid' WHERE id = 1038"),
            [1038]
        );
        assert_eq!(
            sql_ids("DELETE FROM t WHERE client_id=12 AND paid = 3"),
            [12]
        );
        assert!(sql_ids("SELECT idle = 5, grid = 7 FROM t").is_empty());
    }

    #[test]
    fn a_number_handed_over_is_one_a_reference_sends_as_an_id() {
        let call = |args: Value| {
            Step::Call(Call {
                tool: "shop.get_order".into(),
                arguments: args,
            })
        };
        let steps = [
            call(json!({"orderId": 1055, "limit": 50})),
            call(json!({"owner": "acme", "pull_number": 38, "id": 7})),
        ];
        assert_eq!(number_ids(&steps), [1055, 38]);
        assert!(holds_number("the total of order #1055?", 1055));
        assert!(!holds_number("order 10550 is not it", 1055));
        assert!(!holds_number("no number here", 38));
    }
}
