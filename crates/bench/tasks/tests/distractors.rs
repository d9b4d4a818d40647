//! The distractor levels of a task and the serial/parallel shape, on the whole dev set.

use mcpbench_tasks::{
    Extra, Level, NEAR_DUPLICATE, SERVERS, Shape, Step, Task, TaskRun, extra_tools,
    first_dependence, load_dir, parse_levels, shape, with_distractors,
};
use std::collections::BTreeSet;

fn dev() -> Vec<Task> {
    load_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../tasks/dev").as_ref())
        .expect("the dev set loads")
}

fn every_tool() -> usize {
    SERVERS
        .iter()
        .map(|s| mcpbench_world::catalog(s).unwrap().len())
        .sum()
}

/// Whether every reference solution of the task passes it.
fn references_pass(task: &Task) -> bool {
    task.reference_solutions.iter().all(|steps| {
        let mut run = TaskRun::new(task).expect("the world builds");
        let mut answer = None;
        for step in steps {
            match step {
                Step::Call(c) => {
                    run.attempt(&c.tool, &c.arguments);
                }
                Step::Answer { answer: a } => answer = Some(a.as_str()),
            }
        }
        run.unmet(answer).is_none()
    })
}

#[test]
fn levels_parse_in_order_and_refuse_nonsense() {
    assert_eq!(
        parse_levels("20,0,all,5,10,5").unwrap(),
        vec![
            Level::Count(0),
            Level::Count(5),
            Level::Count(10),
            Level::Count(20),
            Level::All
        ]
    );
    for bad in ["", "five", "-1", "1e3", "0,,5", "100000"] {
        let e = parse_levels(bad).unwrap_err();
        assert!(e.contains("level") || e.contains("levels"), "{bad:?}: {e}");
    }
}

#[test]
fn every_level_offers_the_needed_tools_and_that_many_more_and_the_references_still_pass() {
    let all_tools = every_tool();
    let levels = parse_levels("0,5,10,20,all").unwrap();
    for task in dev() {
        let needed: BTreeSet<String> = task
            .reference_tools()
            .into_iter()
            .map(String::from)
            .collect();
        let mut previous: BTreeSet<String> = BTreeSet::new();
        for level in &levels {
            let v = with_distractors(&task, *level);
            assert_eq!(v.id, task.id, "a variant is the same task");
            assert_eq!(v.goal, task.goal);
            let offered: BTreeSet<String> = v.available_tools.iter().cloned().collect();
            assert_eq!(
                offered.len(),
                v.available_tools.len(),
                "{}: a tool twice",
                task.id
            );
            assert!(
                needed.is_subset(&offered),
                "{} at {level}: a needed tool missing",
                task.id
            );
            let expected = match level {
                Level::Count(n) => needed.len() + n,
                Level::All => all_tools,
            };
            assert_eq!(offered.len(), expected, "{} at level {level}", task.id);
            assert!(
                previous.is_subset(&offered),
                "{} at {level}: levels are nested",
                task.id
            );
            for s in &v.distractor_servers {
                assert!(!v.servers.contains(s), "{}: {s} is the task's own", task.id);
                assert!(
                    offered.iter().any(|t| t.starts_with(&format!("{s}."))),
                    "{}: distractor server {s} offers nothing at {level}",
                    task.id
                );
            }
            assert!(
                references_pass(&v),
                "{} at level {level}: a reference fails",
                task.id
            );
            previous = offered;
        }
    }
}

#[test]
fn near_duplicates_come_first_then_the_own_servers_then_whole_unrelated_servers() {
    let tasks = dev();
    let mut with_near = 0;
    for task in &tasks {
        let order = extra_tools(task);
        assert_eq!(
            order.len() + task.reference_tools().len(),
            every_tool(),
            "{}",
            task.id
        );
        let rank = |e: &Extra| match e {
            Extra::NearDuplicate(_) => 0,
            Extra::OwnServer => 1,
            Extra::Unrelated => 2,
        };
        assert!(
            order.windows(2).all(|w| rank(&w[0].1) <= rank(&w[1].1)),
            "{}: the kinds are not in order",
            task.id
        );
        let likeness: Vec<f64> = order
            .iter()
            .filter_map(|(_, e)| match e {
                Extra::NearDuplicate(l) => Some(*l),
                _ => None,
            })
            .collect();
        assert!(likeness.iter().all(|l| *l >= NEAR_DUPLICATE && *l <= 1.0));
        assert!(
            likeness.windows(2).all(|w| w[0] >= w[1]),
            "{}: most alike first",
            task.id
        );
        let server = |t: &str| t.split_once('.').unwrap().0.to_string();
        for (t, e) in &order {
            match e {
                Extra::OwnServer => assert!(task.servers.contains(&server(t))),
                Extra::Unrelated => assert!(!task.servers.contains(&server(t))),
                Extra::NearDuplicate(_) => {}
            }
        }
        // Unrelated servers come whole, the task's distractor servers first.
        let mut seen: Vec<String> = Vec::new();
        for (t, _) in order.iter().filter(|(_, e)| *e == Extra::Unrelated) {
            let s = server(t);
            if seen.last() != Some(&s) {
                assert!(!seen.contains(&s), "{}: {s} is not whole", task.id);
                seen.push(s);
            }
        }
        let leading: Vec<&String> = seen
            .iter()
            .filter(|s| task.distractor_servers.contains(s))
            .collect();
        assert_eq!(
            seen.iter().take(leading.len()).collect::<Vec<_>>(),
            leading,
            "{}: its own distractor servers lead",
            task.id
        );
        with_near += usize::from(!likeness.is_empty());
    }
    assert!(
        with_near * 10 >= tasks.len() * 9,
        "only {with_near} of {} tasks have near-duplicates",
        tasks.len()
    );
}

#[test]
fn unrelated_servers_get_the_same_seeded_world_at_every_level() {
    let task = dev().into_iter().next().unwrap();
    let a = with_distractors(&task, Level::All);
    let b = with_distractors(&task, Level::All);
    assert_eq!(
        a.initial_state, b.initial_state,
        "drawn from the task's id alone"
    );
    assert_eq!(
        a.distractor_servers.len(),
        SERVERS.len() - task.servers.len()
    );
    let world = TaskRun::new(&a).expect("every server's world builds");
    let snapshot = world.world().snapshot();
    assert_eq!(snapshot.as_object().unwrap().len(), SERVERS.len());
    // A seeded unrelated server is not empty: it has its sample world and a background.
    let never = a
        .distractor_servers
        .iter()
        .find(|s| !task.distractor_servers.contains(s))
        .unwrap();
    assert_ne!(
        serde_json::to_value(&a.initial_state).unwrap()[never],
        serde_json::Value::Null,
        "{never} has a world of its own"
    );
}

#[test]
fn tasks_whose_calls_use_an_earlier_answer_are_serial() {
    let tasks = dev();
    let mut serial = 0;
    for task in &tasks {
        let calls = task
            .shortest_reference()
            .iter()
            .filter(|s| s.as_call().is_some())
            .count();
        match first_dependence(task) {
            Some((i, value)) => {
                serial += 1;
                assert!(i >= 1 && i < calls, "{}: call {i} of {calls}", task.id);
                assert!(
                    !task.goal.to_lowercase().contains(&value),
                    "{}: {value} is in the goal",
                    task.id
                );
                assert_eq!(shape(task), Shape::Serial);
            }
            None => assert_eq!(shape(task), Shape::Parallel),
        }
        if calls <= 1 {
            assert_eq!(
                shape(task),
                Shape::Parallel,
                "{}: one call depends on nothing",
                task.id
            );
        }
    }
    // The dev set has both kinds in numbers a curve can show.
    assert!(
        serial >= 20 && tasks.len() - serial >= 20,
        "{serial} of {} serial",
        tasks.len()
    );
}
