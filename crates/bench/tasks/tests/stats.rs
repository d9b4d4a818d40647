//! `tasks stats`: the figures are computed as documented; on version 1's tasks (fixtures from the
//! first dev set) the tricks pass as the audit found, and today's dev set's figures are pinned.
//! When the dev set is regenerated, these numbers change with it, and so does the README.

use mcpbench_tasks::{Spread, Step, Task, goal_similarity, load_dir, stats};
use std::path::Path;

fn dev() -> Vec<Task> {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev")).expect("dev set")
}

#[test]
fn quartiles_interpolate_between_ranks() {
    let s = Spread::of(&[4, 1, 3, 2]);
    assert_eq!((s.min, s.max), (1, 4));
    assert_eq!((s.p25, s.median, s.p75, s.mean), (1.75, 2.5, 3.25, 2.5));
    assert_eq!(Spread::of(&[]), Spread::default());
    assert_eq!(Spread::of(&[7]).median, 7.0);
}

#[test]
fn goal_similarity_is_jaccard_of_word_triples() {
    let a = "Move the audit draft into the archive folder";
    assert_eq!(goal_similarity(a, a), 1.0);
    assert_eq!(
        goal_similarity(a, &a.to_uppercase()),
        1.0,
        "case is ignored"
    );
    assert_eq!(goal_similarity(a, "Book a table for two at seven"), 0.0);
    let near = goal_similarity(a, "Move the audit draft into the trash folder");
    assert!(near > 0.2 && near < 1.0, "{near}");
}

#[test]
fn the_dev_set_measures_as_it_stands() {
    let tasks = dev();
    let s = stats(&tasks, Some(&tasks));
    assert_eq!(s.tasks, 200, "the attacked twins are measured apart");
    assert_eq!(s.attacked.values().sum::<usize>(), 23);
    assert_eq!((s.reference_calls.median, s.reference_calls.max), (5.0, 15));
    assert_eq!(
        s.long_share, 0.4,
        "the long templates across servers need 8 calls or more"
    );
    assert_eq!(
        s.multi_server_share, 0.6,
        "three fifths of the tasks span 2-3 servers"
    );
    // Worlds at a real scale: every server holds a history beside the task's records.
    assert_eq!(
        (s.world_kib.min, s.world_kib.p25, s.world_kib.median),
        (5, 46.75, 75.0),
        "KiB of starting state per task"
    );
    // Version 2's tool surface: whole catalogues and one to three servers not needed.
    assert_eq!((s.tools_per_task.min, s.tools_per_task.max), (24, 80));
    assert!((s.tools_per_task.mean - 51.3).abs() < 0.05);
    assert!(s.unused_tool_share >= 0.9, "{}", s.unused_tool_share);
    assert_eq!(s.tasks_with_string_arguments, 197);
    assert_eq!(s.goals_with_every_argument, 36);
    assert_eq!(
        s.goals_with_ids, 0,
        "version 2's goals name things, not ids"
    );
    assert_eq!(
        s.goals_with_api_words, 0,
        "goals say what the user wants, not the servers' words for it"
    );
    let computed: Vec<usize> = ["easy", "medium", "hard"]
        .iter()
        .map(|d| s.by_computed_difficulty.get(*d).copied().unwrap_or(0))
        .collect();
    assert_eq!(computed, [69, 55, 76], "about a third each");
    // From generator version 12 the published label is the computed one.
    assert_eq!(s.difficulty_agrees, 200);
    // Version 2's answer checks and predicates: nothing for a trick to pass.
    assert!(s.predicates_on_created_ids.is_empty());
    for n in &s.no_skill {
        assert_eq!(n.passes, 0, "{}: {:?}", n.strategy, n.examples);
    }
    // Version 11's families: no database number handed over, no duplicate left uncounted.
    assert_eq!(
        s.goals_with_number_ids, 0,
        "dev-v2-7 had 12; dev-v2-8 one, an order id in a statement"
    );
    assert!(s.unguarded_repeats.is_empty(), "{:?}", s.unguarded_repeats);
    let sim = s.similarity.expect("compared");
    assert_eq!((sim.max, sim.identical_goals), (1.0, 200));
}

/// Version 1's lenient checks, as the audit found them: three tasks of the first dev set.
#[test]
fn the_tricks_pass_version_1_tasks_as_the_audit_found() {
    let v1 = load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1"))
        .expect("the version 1 fixtures");
    let s = stats(&v1, None);
    assert_eq!(
        s.predicates_on_created_ids,
        ["trk-github-issue-to-tracker-0016"],
        "a task checks an issue key the run itself creates"
    );
    let passes: Vec<(usize, Vec<String>)> = s
        .no_skill
        .iter()
        .map(|n| (n.passes, n.examples.clone()))
        .collect();
    assert_eq!(
        passes[0],
        (1, vec!["gh-count-open-bugs-0121".to_string()]),
        "answering \"1 2 3\" passes a number question"
    );
    assert_eq!(
        passes[3],
        (1, vec!["chat-user-title-0093".to_string()]),
        "listing every text passes a question without a guard"
    );
}

/// The string values of a reference's id arguments (`id`, `*_id`, `*Id`).
fn first_id(t: &Task) -> Option<String> {
    t.reference_solutions[0]
        .iter()
        .filter_map(Step::as_call)
        .filter_map(|c| c.arguments.as_object())
        .flat_map(|o| o.iter())
        .find(|(k, v)| {
            (k.as_str() == "id" || k.ends_with("_id") || k.ends_with("Id")) && v.is_string()
        })
        .and_then(|(_, v)| v.as_str().map(str::to_string))
}

#[test]
fn a_goal_that_names_an_id_is_counted_and_one_that_does_not_is_not() {
    let (task, id) = dev()
        .into_iter()
        .find_map(|t| {
            let id = first_id(&t)?;
            (!t.goal.contains(&id)).then_some((t, id))
        })
        .expect("a dev task whose goal does not name the id its reference uses");
    assert_eq!(stats(std::slice::from_ref(&task), None).goals_with_ids, 0);
    let mut told = task.clone();
    told.goal = format!("{} (it is {id})", task.goal);
    assert_eq!(stats(&[told], None).goals_with_ids, 1);
}

#[test]
fn a_task_its_reads_alone_pass_is_caught() {
    let reads_only = |tasks: &[Task]| {
        stats(tasks, None)
            .no_skill
            .iter()
            .find(|n| n.strategy.contains("reads without"))
            .map(|n| n.passes)
            .unwrap()
    };
    let tasks = dev();
    assert_eq!(
        reads_only(&tasks),
        0,
        "every dev task that writes needs its writes"
    );
    // A write task whose predicate asks for nothing: its reads alone pass it.
    let mut hollow = tasks
        .into_iter()
        .find(|t| t.category.as_str() == "single-tool" && t.servers == ["filesystem"])
        .expect("a filesystem task");
    hollow.success_predicate = mcpbench_tasks::Pred::All(Vec::new());
    assert_eq!(reads_only(&[hollow]), 1);
}
