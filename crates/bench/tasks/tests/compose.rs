//! Every multi-server template, sampled many times, makes valid tasks whose references use
//! every server they list. `COMPOSE_ONLY=<id prefix>[,<id prefix>...]` narrows the run while writing one.

use mcpbench_sim::Rng;
use mcpbench_tasks::{SERVERS, Task, check_tasks, templates};

#[test]
fn multi_server_templates_make_valid_tasks() {
    let only = std::env::var("COMPOSE_ONLY").unwrap_or_default();
    let wanted = |id: &str| only.split(',').any(|prefix| id.starts_with(prefix.trim()));
    let mut tasks = Vec::new();
    for t in templates()
        .into_iter()
        .filter(|t| t.is_multi_server() && wanted(&t.id))
    {
        for n in 0..40u64 {
            let mut rng = Rng::new(0xC0FFEE, n);
            let mut body = t.build(&mut rng);
            // Every other draw in the history a generated task gives its servers, so that a
            // reference that only reads a first page is caught here.
            if n % 2 == 1 {
                body.initial_state.furnish(&mut rng);
            }
            let id = format!("x-{}-{n}", t.id.replace(['.', '_'], "-"));
            tasks.push(Task::from_body(id, t.servers[0], &t.id, body));
        }
    }
    let mut problems = Vec::new();
    for t in &tasks {
        let v = t.validate();
        problems.extend(v.into_iter().map(|(f, m)| format!("{}: {f}: {m}", t.id)));
    }
    for v in check_tasks(&tasks) {
        problems.extend(v.problems.iter().map(|p| format!("{}: {p}", v.id)));
    }
    problems.truncate(40);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_server_takes_part_in_two_multi_server_templates() {
    let all = templates();
    for server in SERVERS {
        let n = all
            .iter()
            .filter(|t| t.is_multi_server() && t.servers.contains(server))
            .count();
        assert!(
            n >= 2,
            "{server} is in {n} multi-server templates; the generator needs at least 2 for variety"
        );
    }
}

#[test]
fn work_across_servers_takes_five_calls_or_more() {
    // Every composition slot of a set takes a template across servers, so these lengths are
    // what puts the median reference of a set at 5 calls or more.
    for t in templates().into_iter().filter(|t| t.is_multi_server()) {
        for n in 0..10u64 {
            let body = t.build(&mut Rng::new(0x5EED, n));
            let shortest = body.reference_solutions.iter().map(Vec::len).min();
            assert!(
                shortest.is_some_and(|calls| calls >= 5),
                "{} (draw {n}): the shortest reference takes {shortest:?} calls",
                t.id
            );
        }
    }
}
