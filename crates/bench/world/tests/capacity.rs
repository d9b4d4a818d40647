//! Each server that stores what an agent sends stops at its stated capacity: calling its
//! largest write over and over (the biggest arguments its schema allows) ends in the tool
//! error that names the bound, the refused call changes nothing,. Four
//! such full runs of each side by side keep this process's resident memory bounded. Its own test
//! binary, so no other test counts toward the memory.
//!
//! `postgres`, `filesystem` and `github` have their own memory tests in their crates;
//! `weather` cannot outgrow its seed.

use mcpbench_sim::Rng;
use mcpbench_sim::conformance::resident_mib;
use mcpbench_world::{World, single_server_templates};
use serde_json::{Value, json};

/// A run of `server` seeded as its first template seeds it.
fn world(server: &str) -> World {
    let template = single_server_templates()
        .into_iter()
        .find(|t| t.servers == [server])
        .expect("every server has a template");
    let body = template.build(&mut Rng::new(1, 0));
    World::new(&body.initial_state, &[server.to_string()]).expect("a template's seed loads")
}

/// The first value of `key` anywhere in a tool's answer: an id to write to.
fn first(answer: &Value, key: &str) -> String {
    fn find<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
        match v {
            Value::Object(m) => m.get(key).or_else(|| m.values().find_map(|x| find(x, key))),
            Value::Array(a) => a.iter().find_map(|x| find(x, key)),
            _ => None,
        }
    }
    match find(answer, key) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => panic!("no {key} in {answer}"),
    }
}

/// The largest write each bounded server takes: `(server, tool, arguments of call i)`.
fn filler(server: &str, w: &mut World) -> (&'static str, Box<dyn Fn(usize) -> Value>) {
    let long = |n: usize| "x".repeat(n);
    match server {
        "email" => (
            "email.draft_email",
            Box::new(move |i| {
                json!({"to": ["someone@example.com"], "subject": format!("{i} {}", long(290)),
                       "body": long(20_000)})
            }),
        ),
        "calendar" => (
            "calendar.create_event",
            Box::new(move |i| {
                json!({"summary": format!("{i} {}", long(190)), "start": "2030-01-07T09:00",
                       "end": "2030-01-07T10:00", "location": long(200), "description": long(5_000)})
            }),
        ),
        "slack" => {
            let channels = w.call("slack.slack_list_channels", &json!({})).unwrap();
            let channel = first(&channels, "id");
            (
                "slack.slack_post_message",
                Box::new(
                    move |i| json!({"channel_id": channel, "text": format!("{i} {}", long(3_990))}),
                ),
            )
        }
        "tracker" => {
            let projects = w.call("tracker.list_projects", &json!({})).unwrap();
            let project = first(&projects, "key");
            (
                "tracker.create_issue",
                Box::new(move |i| {
                    json!({"project": project, "title": format!("{i} {}", long(190)),
                           "description": long(10_000)})
                }),
            )
        }
        "shop" => (
            "shop.create_product",
            Box::new(move |i| {
                json!({"title": long(200), "sku": format!("FILL-{i}"), "price": 100,
                       "tags": (0..20).map(|t| format!("{t}{}", long(98))).collect::<Vec<_>>()})
            }),
        ),
        "memory" => (
            "memory.create_entities",
            Box::new(move |i| {
                let entities: Vec<Value> = (0..50)
                    .map(|e| json!({"name": format!("e{i}-{e}"), "entityType": "thing",
                                    "observations": (0..5).map(|o| format!("{o}{}", long(998))).collect::<Vec<_>>()}))
                    .collect();
                json!({ "entities": entities })
            }),
        ),
        other => panic!("no filler for {other}"),
    }
}

/// Calls the filler until refused; returns the refusal and how many calls were admitted.
fn fill(server: &str) -> (World, String, usize) {
    let mut w = world(server);
    let (tool, args) = filler(server, &mut w);
    let mut admitted = 0;
    let refusal = loop {
        let a = args(admitted);
        mcpbench_world::check_arguments(tool, &a).expect("the filler keeps to the schema");
        match w.call(tool, &a) {
            Ok(_) => admitted += 1,
            Err(e) => break e,
        }
        assert!(admitted < 100_000, "{server} never filled up");
    };
    let before = w.snapshot();
    let again = w.call(tool, &args(admitted + 1)).unwrap_err();
    assert_eq!(again.message, refusal.message);
    assert_eq!(
        w.snapshot(),
        before,
        "{server}: a refused call changed the state"
    );
    (w, refusal.message, admitted)
}

#[test]
fn every_bounded_server_stops_at_its_capacity_and_memory_stays_bounded() {
    let servers = ["email", "calendar", "slack", "tracker", "shop", "memory"];
    let before = resident_mib();
    let mut runs = Vec::new();
    for round in 0..4 {
        for server in servers {
            let (w, refusal, admitted) = fill(server);
            assert!(refusal.contains("is full: a run's"), "{server}: {refusal}");
            assert!(
                refusal.ends_with("nothing was changed"),
                "{server}: {refusal}"
            );
            // Far above what a task needs: even the largest writes fit many times over.
            assert!(admitted >= 10, "{server}: only {admitted} calls fit");
            // The bound is the one the server states in its tool descriptions.
            let stated = mcpbench_world::catalog(server)
                .unwrap()
                .iter()
                .any(|t| t.description.contains("holds at most"));
            assert!(stated, "{server} does not state its bound");
            if round == 0 {
                eprintln!("{server}: {admitted} calls admitted, then: {refusal}");
            }
            runs.push(w);
        }
    }
    let grown = resident_mib().saturating_sub(before);
    eprintln!("4 full runs of each bounded server: resident memory grew by {grown} MiB");
    // 24 full runs of 2 to 4 MiB of state each, measured as compact JSON; the live
    // structures take more than their JSON, but nowhere near a worker's gigabyte.
    assert!(grown < 400, "resident memory grew by {grown} MiB");
    drop(runs);
}
