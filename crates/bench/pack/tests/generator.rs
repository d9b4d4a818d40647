//! The public generator's promises (the public pack's families drawn by the seeded generator):
//! determinism, balance, the shape of its tasks, and work across servers.

use mcpbench_pack::{generate_public, public_templates};
use mcpbench_sim::Rng;
use mcpbench_sim::background::{FIRST_NAMES, LAST_NAMES};
use mcpbench_tasks::{Category, Manifest, SERVERS, Task, check_tasks, write_generated};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn generate(seed: u64, count: usize) -> Vec<Task> {
    generate_public(seed, count, &[]).expect("the public families draw")
}

fn write_set(dir: &Path, set: &str, seed: u64, count: usize) -> std::io::Result<Manifest> {
    write_generated(
        dir,
        set,
        seed,
        count,
        |s, c| generate_public(s, c, &[]),
        None,
    )
}

#[test]
fn same_seed_same_tasks_other_seed_other_tasks() {
    let a = generate(42, 60);
    let b = generate(42, 60);
    let c = generate(43, 60);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let same = a.iter().zip(&c).filter(|(x, y)| x.goal == y.goal).count();
    assert!(
        same < 10,
        "another seed should give mostly other goals ({same} of 60 equal)"
    );
    let ids: BTreeSet<&String> = a.iter().map(|t| &t.id).collect();
    assert_eq!(ids.len(), a.len(), "ids are unique");
}

#[test]
fn sets_are_balanced_across_servers_categories_and_difficulties() {
    // The slots' tasks; each attacked twin stands beside its task, outside the plan.
    let mut tasks = generate(7, 200);
    tasks.retain(|t| t.attack.is_none());
    let mut per_server: BTreeMap<&str, Vec<&Task>> = BTreeMap::new();
    for t in &tasks {
        per_server.entry(t.server.as_str()).or_default().push(t);
    }
    assert_eq!(per_server.len(), SERVERS.len(), "every server has tasks");
    for (server, ts) in &per_server {
        assert_eq!(ts.len(), 200 / SERVERS.len(), "{server}");
        for c in Category::ALL {
            assert!(
                ts.iter().any(|t| t.category == c),
                "{server} has no {} task",
                c.as_str()
            );
        }
        let difficulties: BTreeSet<_> = ts.iter().map(|t| t.difficulty).collect();
        assert!(difficulties.len() >= 2, "{server} has one difficulty only");
    }
    let multi = tasks.iter().filter(|t| t.servers.len() > 1).count();
    if SERVERS.len() == 10 {
        assert!(
            multi * 100 >= 15 * tasks.len(),
            "only {multi} of 200 tasks use several servers"
        );
    }
}

#[test]
fn generated_tasks_are_valid() {
    let tasks = generate(99, 120);
    let verdicts = check_tasks(&tasks);
    let bad: Vec<String> = verdicts
        .iter()
        .flat_map(|v| v.problems.iter().map(move |p| format!("{}: {p}", v.id)))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn writing_a_set_replaces_an_earlier_set_but_never_foreign_files() {
    let dir = tempfile::tempdir().unwrap();
    write_set(dir.path(), "try-1", 1, 30).unwrap();
    let second = write_set(dir.path(), "try-2", 2, 10).unwrap();
    assert_eq!(second.set, "try-2", "the manifest names the set asked for");
    let files = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(
        files,
        second.tasks.len() + 1,
        "old tasks are gone, new ones and the manifest are there"
    );
    std::fs::write(dir.path().join("mine.json"), "{}").unwrap();
    let err = write_set(dir.path(), "try-3", 3, 10).unwrap_err();
    assert!(err.to_string().contains("mine.json"), "{err}");
    assert!(dir.path().join("mine.json").exists());
}

#[test]
fn a_set_id_that_cannot_name_a_set_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["", "../dev", "dev v2", "dev.1", "dev_1", &"x".repeat(41)] {
        let err = write_set(&dir.path().join("out"), bad, 1, 3).unwrap_err();
        assert!(err.to_string().contains("set id"), "{bad:?}: {err}");
    }
    assert!(!dir.path().join("out").exists(), "nothing was written");
    assert_eq!(mcpbench_tasks::generated_set_id(7), "generated-7");
    assert!(mcpbench_tasks::check_set_id(mcpbench_tasks::DEV_SET).is_ok());
}

/// Benchmark version 2's tool surface: every tool of the task's servers and of one to three
/// servers it does not need, at least 20 tools, most of them used by no reference.
#[test]
fn every_task_faces_whole_catalogues_and_servers_it_does_not_need() {
    let tasks = generate(11, 400);
    let mut distractor_counts = BTreeMap::new();
    let mut unused = 0usize;
    let mut shown = 0usize;
    for t in &tasks {
        let n = t.distractor_servers.len();
        assert!((1..=3).contains(&n), "{}: {n} distractor servers", t.id);
        *distractor_counts.entry(n).or_insert(0) += 1;
        for d in &t.distractor_servers {
            assert!(!t.servers.contains(d), "{}: {d} is needed", t.id);
            assert!(
                t.initial_state.servers().contains(&d.as_str()),
                "{}: the distractor {d} has a world of its own",
                t.id
            );
        }
        let whole: Vec<String> = t
            .offered_servers()
            .iter()
            .flat_map(|s| {
                mcpbench_world::catalog(s)
                    .unwrap()
                    .into_iter()
                    .map(move |tool| format!("{s}.{}", tool.name))
            })
            .collect();
        assert_eq!(t.available_tools, whole, "{}", t.id);
        assert!(t.available_tools.len() >= 20, "{}", t.id);
        unused += t.unused_tools();
        shown += t.available_tools.len();
    }
    assert_eq!(
        distractor_counts.len(),
        3,
        "one, two and three distractors all occur"
    );
    assert!(
        unused as f64 / shown as f64 >= 0.6,
        "{unused} of {shown} tools shown are used by no reference"
    );
    // The distractors and their worlds come from the seed too.
    let again = generate(11, 400);
    assert_eq!(
        serde_json::to_string(&tasks).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}

// Worlds at a real scale: backgrounds keep apart from what tasks are about (no template's goal
// names one of their people), and generated tasks carry them.

#[test]
fn no_goal_names_a_background_person() {
    let mut problems = Vec::new();
    for t in public_templates() {
        for n in 0..20u64 {
            let goal = t.try_build(&mut Rng::new(0xB6, n)).expect("a draw").goal;
            let words: Vec<&str> = goal
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            for name in FIRST_NAMES.iter().chain(LAST_NAMES) {
                if words.iter().any(|w| w.eq_ignore_ascii_case(name)) {
                    problems.push(format!("{} draw {n} names {name}: {goal}", t.id));
                }
            }
        }
    }
    problems.truncate(20);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn generated_tasks_give_their_servers_a_history() {
    let tasks = generate(5, 40);
    let mut furnished = 0;
    for t in &tasks {
        if let Some(mail) = &t.initial_state.email {
            let b = mail
                .background
                .expect("a generated mailbox has a background");
            assert!((180..=420).contains(&b.messages), "{}: {b:?}", t.id);
            furnished += 1;
        }
        if let Some(tracker) = &t.initial_state.tracker {
            let b = tracker
                .background
                .expect("a generated tracker has a background");
            assert!((100..=220).contains(&b.issues), "{}: {b:?}", t.id);
            furnished += 1;
        }
        if let Some(shop) = &t.initial_state.shop {
            let b = shop.background.expect("a generated shop has a background");
            assert!((120..=260).contains(&b.products), "{}: {b:?}", t.id);
            furnished += 1;
        }
        if let Some(db) = &t.initial_state.postgres {
            let b = db
                .background
                .expect("a generated database has a background");
            assert!((200..=500).contains(&b.rows), "{}: {b:?}", t.id);
            furnished += 1;
        }
        if let Some(fs) = &t.initial_state.filesystem {
            let b = fs
                .background
                .expect("a generated filesystem has a background");
            assert!((60..=160).contains(&b.files), "{}: {b:?}", t.id);
            furnished += 1;
        }
        if let Some(slack) = &t.initial_state.slack {
            let b = slack
                .background
                .expect("a generated workspace has a background");
            assert!((150..=400).contains(&b.messages), "{}: {b:?}", t.id);
            assert!((8..=20).contains(&b.channels) && (12..=30).contains(&b.users));
            furnished += 1;
        }
        if let Some(gh) = &t.initial_state.github {
            let b = gh
                .background
                .expect("a generated GitHub account has a history");
            assert!((100..=220).contains(&b.issues), "{}: {b:?}", t.id);
            assert!((3..=8).contains(&b.repos), "{}: {b:?}", t.id);
            furnished += 1;
        }
        if let Some(cal) = &t.initial_state.calendar {
            let b = cal
                .background
                .expect("a generated calendar has a background");
            assert!((150..=400).contains(&b.events), "{}: {b:?}", t.id);
            furnished += 1;
        }
        if let Some(mem) = &t.initial_state.memory {
            let b = mem.background.expect("a generated graph has a background");
            assert!((80..=200).contains(&b.entities), "{}: {b:?}", t.id);
            furnished += 1;
        }
    }
    assert!(furnished >= 24, "{furnished} furnished servers in 40 tasks");
}

#[test]
fn every_server_takes_part_in_two_families_across_servers() {
    for server in SERVERS {
        let n = (public_templates().iter())
            .filter(|t| t.is_multi_server() && t.servers.contains(server))
            .count();
        assert!(
            n >= 2,
            "{server} is in {n} families across servers; the generator needs at least 2 for variety"
        );
    }
}

#[test]
fn work_across_servers_takes_five_calls_or_more() {
    // Every composition slot of a set takes a family across servers, so these lengths are
    // what puts the median reference of a set at 5 calls or more.
    for t in public_templates().iter().filter(|t| t.is_multi_server()) {
        for n in 0..10u64 {
            let body = t.try_build(&mut Rng::new(0x5EED, n)).expect("a draw");
            let shortest = body.reference_solutions.iter().map(Vec::len).min();
            assert!(
                shortest.is_some_and(|calls| calls >= 5),
                "{} (draw {n}): the shortest reference takes {shortest:?} calls",
                t.id
            );
        }
    }
}

#[test]
fn a_month_drawn_apart_from_goals_in_clear_repeats_none() {
    // The goals to keep apart from: the plain month of the same seed, so every slot of the
    // month drawn apart starts on a goal it must not keep.
    let plain = generate(77, 200);
    let goals: Vec<String> = plain.iter().map(|t| t.goal.clone()).collect();
    let apart = generate_public(77, 200, &goals).expect("a month");
    assert_eq!(apart.iter().filter(|t| t.attack.is_none()).count(), 200);
    let drawn: Vec<String> = apart.iter().map(|t| t.goal.clone()).collect();
    assert!(drawn.iter().all(|g| !goals.contains(g)), "a goal repeated");
    let closest = mcpbench_tasks::closest_goal(&drawn, &goals);
    assert!(
        closest <= mcpbench_tasks::MAX_GOAL_SIMILARITY,
        "a goal comes {closest} near one to keep apart from"
    );
    let again = generate_public(77, 200, &goals).expect("a month");
    assert_eq!(again, apart, "deterministic");
}
