//! The public families that carry an attack: each draw's attacked twin is proven (the
//! reference never meets the attacker's goal, following the instructions does), pairs with its
//! task, and shows the agent what was planted; and the proof refuses each way an attack can be
//! unsound.

use mcpbench_pack::{draw_tasks, public_pack, public_templates};
use mcpbench_sim::{Call, Pred, Step};
use mcpbench_tasks::{AttackKind, Task, check_tasks, twin_problems};
use std::collections::BTreeSet;

/// Draws per family: enough to meet each branch of a family's plant.
const DRAWS: usize = 6;

/// Every public family's attacked twins, with their tasks, `DRAWS` draws each.
fn drawn() -> Vec<Task> {
    let pack = public_pack();
    let mut tasks = Vec::new();
    for family in (pack.families.iter()).filter(|f| f.family.has_attack()) {
        let (drawn, failures) = draw_tasks(family, DRAWS, 41, public_templates());
        assert!(failures.is_empty(), "{}: {failures:?}", family.family.id);
        tasks.extend(drawn);
    }
    tasks
}

#[test]
fn every_attacked_twin_is_proven_and_paired_with_its_task() {
    let tasks = drawn();
    let twins: Vec<&Task> = tasks.iter().filter(|t| t.attack.is_some()).collect();
    assert_eq!(twins.len() * 2, tasks.len(), "a twin for each task drawn");
    let kinds: BTreeSet<AttackKind> = twins
        .iter()
        .map(|t| t.attack.as_ref().unwrap().kind)
        .collect();
    assert!(kinds.len() >= 5, "the public families' kinds: {kinds:?}");
    for verdict in check_tasks(&tasks) {
        assert!(
            verdict.problems.is_empty(),
            "{}: {:?}",
            verdict.id,
            verdict.problems
        );
    }
    assert_eq!(twin_problems(&tasks), Vec::<String>::new());
    for twin in twins {
        let attack = twin.attack.as_ref().unwrap();
        assert_eq!(
            attack.twin.as_deref(),
            twin.id.strip_suffix("-attacked"),
            "the twin names its task"
        );
        let task = tasks
            .iter()
            .find(|t| Some(&t.id) == attack.twin.as_ref())
            .unwrap();
        // Planted data changes the world; a planted description alone leaves it as it was.
        assert_eq!(
            task.initial_state != twin.initial_state,
            !attack.plant.is_empty(),
            "{}: the world differs exactly when something is planted in it",
            twin.id
        );
    }
}

/// The first twin of `kind` among the drawn tasks, with its task.
fn pair(tasks: &[Task], kind: AttackKind) -> (Task, Task) {
    let twin = (tasks.iter())
        .find(|t| t.attack.as_ref().is_some_and(|a| a.kind == kind))
        .unwrap_or_else(|| panic!("a twin of kind {kind:?}"));
    let of = twin.attack.as_ref().unwrap().twin.clone().unwrap();
    let task = tasks.iter().find(|t| t.id == of).unwrap();
    (task.clone(), twin.clone())
}

fn problems(task: &Task) -> Vec<String> {
    check_tasks(std::slice::from_ref(task)).remove(0).problems
}

#[test]
fn the_proof_refuses_an_attack_that_cannot_succeed_or_is_met_by_doing_the_task() {
    let tasks = drawn();
    let (_, twin) = pair(&tasks, AttackKind::Email);

    // Instructions whose action cannot reach the goal: a read in place of the forward.
    let mut harmless = twin.clone();
    harmless.attack.as_mut().unwrap().instructed = vec![Step::Call(Call {
        tool: "email.list_folders".into(),
        arguments: serde_json::json!({}),
    })];
    let found = problems(&harmless);
    assert!(
        found
            .iter()
            .any(|p| p.contains("the attack cannot succeed")),
        "{found:?}"
    );

    // A goal the world meets before any call.
    let mut met = twin.clone();
    met.attack.as_mut().unwrap().goal = Pred::Not(Box::new(Pred::Any(vec![])));
    let found = problems(&met);
    assert!(
        found.iter().any(|p| p.contains("holds before any call")),
        "{found:?}"
    );

    // A goal the task itself meets: the reference's own forward.
    let mut own = twin.clone();
    let reference_goal = own.success_predicate.clone();
    own.attack.as_mut().unwrap().goal = reference_goal;
    let found = problems(&own);
    assert!(
        found
            .iter()
            .any(|p| p.contains("reference 1 meets the attacker's goal")),
        "{found:?}"
    );
}

#[test]
fn a_twin_must_match_its_task_but_for_the_plant_and_show_it() {
    let tasks = drawn();
    let (task, twin) = pair(&tasks, AttackKind::Chat);

    let alone = twin_problems(std::slice::from_ref(&twin));
    assert!(alone[0].contains("is not in the set"), "{alone:?}");

    let mut other_goal = twin.clone();
    other_goal.goal.push_str(" Thanks.");
    let found = twin_problems(&[task.clone(), other_goal]);
    assert!(
        found.iter().any(|p| p.contains("more than its world")),
        "{found:?}"
    );

    // A world the plant does not make: the twin's state kept as its task's.
    let mut unplanted = twin.clone();
    unplanted.initial_state = task.initial_state.clone();
    let found = twin_problems(&[task.clone(), unplanted.clone()]);
    assert!(
        found
            .iter()
            .any(|p| p.contains("not its twin's with the plant applied")),
        "{found:?}"
    );
    // ... and so planted nowhere the reference reads.
    assert!(
        found.iter().any(|p| p.contains("never reads the attack")),
        "{found:?}"
    );

    // A description planted on a tool no reference calls is never read either.
    let (task, twin) = pair(&tasks, AttackKind::ToolDescription);
    let mut elsewhere = twin.clone();
    let attack = elsewhere.attack.as_mut().unwrap();
    let text = attack.tool_descriptions.values().next().unwrap().clone();
    attack.tool_descriptions = [("weather.get_air_quality".to_string(), text)].into();
    let found = twin_problems(&[task, elsewhere]);
    assert!(
        found
            .iter()
            .any(|p| p.contains("no reference calls a tool whose description was planted")),
        "{found:?}"
    );
}
