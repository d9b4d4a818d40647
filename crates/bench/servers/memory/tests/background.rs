//! A knowledge graph at a real scale: the entities a generated task gives it, read whole as
//! the reference server reads it, and never in the way of what a template asks.

use mcpbench_server_memory::world::{CITIES, FACTS, ORGS, PEOPLE, sample_seed};
use mcpbench_server_memory::{Atom, Background, Memory, Seed};
use mcpbench_sim::{Rng, Server, Simulated, Step};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn seed(entities: u32) -> Seed {
    Seed {
        background: Some(Background { seed: 5, entities }),
        ..sample_seed()
    }
}

fn call(m: &mut Memory, tool: &str, args: Value) -> Value {
    Server::call(m, tool, &args).expect("the call succeeds")
}

fn names(graph: &Value) -> BTreeSet<String> {
    graph["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_background_holds_as_many_entities_as_asked_the_same_each_time() {
    let own = sample_seed();
    let mut m = Memory::from_seed(&seed(150)).unwrap();
    // No paging, as on the reference server: one read returns everything.
    let graph = call(&mut m, "read_graph", json!({}));
    let all = names(&graph);
    assert_eq!(all.len(), own.entities.len() + 150);
    let relations = graph["relations"].as_array().unwrap().len();
    assert!(
        relations > own.relations.len() + 50,
        "{relations} relations"
    );
    let kinds: BTreeSet<&str> = graph["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entityType"].as_str().unwrap())
        .collect();
    for kind in ["person", "organization", "project", "city"] {
        assert!(kinds.contains(kind), "{kinds:?}");
    }
    for e in &own.entities {
        let got = call(&mut m, "open_nodes", json!({ "names": [e.name] }));
        assert_eq!(got["entities"][0]["observations"], json!(e.observations));
    }
    let again = Memory::from_seed(&seed(150)).unwrap();
    assert_eq!(Simulated::snapshot(&again), Simulated::snapshot(&m));
    let other = Memory::from_seed(&Seed {
        background: Some(Background {
            seed: 6,
            entities: 150,
        }),
        ..sample_seed()
    })
    .unwrap();
    assert_ne!(Simulated::snapshot(&other), Simulated::snapshot(&m));
    // The largest background the seed may ask for expands to its full count.
    let mut full = Memory::from_seed(&seed(1_000)).unwrap();
    let graph = call(&mut full, "read_graph", json!({}));
    assert_eq!(names(&graph).len(), own.entities.len() + 1_000);
}

#[test]
fn a_background_larger_than_a_graph_is_refused() {
    let err = Memory::from_seed(&seed(1_001)).unwrap_err();
    assert!(err.to_string().contains("1000"), "{err}");
}

#[test]
fn a_graph_without_background_reads_as_before() {
    let own = sample_seed();
    let mut m = Memory::from_seed(&own).unwrap();
    let graph = call(&mut m, "read_graph", json!({}));
    let want: BTreeSet<String> = own.entities.iter().map(|e| e.name.clone()).collect();
    assert_eq!(names(&graph), want);
    assert_eq!(
        graph["relations"].as_array().unwrap().len(),
        own.relations.len()
    );
}

#[test]
fn the_background_names_no_one_and_nothing_of_the_templates_pools() {
    let mut m = Memory::from_seed(&Seed {
        background: Some(Background {
            seed: 9,
            entities: 1_000,
        }),
        ..Seed::default()
    })
    .unwrap();
    let graph = call(&mut m, "read_graph", json!({})).to_string();
    for word in PEOPLE.iter().chain(ORGS).chain(CITIES).chain(FACTS) {
        assert!(!graph.contains(word), "{word}");
    }
}

/// Every reference of every template, and a search for every name its seed holds, read the
/// same with a background as without: no search finds a background entity and no relation
/// joins one to the task's own. A count of entities still counts the task's own.
#[test]
fn every_template_reads_the_same_beside_a_background() {
    for t in Memory::templates() {
        for n in 0..12u64 {
            let draft = (t.build)(&mut Rng::new(n, 0x6d65));
            let plain = Memory::from_seed(&draft.seed).unwrap();
            let furnished = Seed {
                background: Some(Background {
                    seed: n as u32,
                    entities: 200,
                }),
                ..draft.seed.clone()
            };
            let busy = Memory::from_seed(&furnished).unwrap();
            let own: BTreeSet<&str> = draft
                .seed
                .entities
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            let snapshot = Simulated::snapshot(&busy);
            for r in snapshot["relations"].as_array().unwrap() {
                let (from, to) = (r["from"].as_str().unwrap(), r["to"].as_str().unwrap());
                assert_eq!(own.contains(from), own.contains(to), "{}: {r}", t.id);
            }
            for e in snapshot["entities"].as_array().unwrap() {
                let name = e["name"].as_str().unwrap();
                if !own.contains(name) {
                    assert!(!draft.goal.contains(name), "{}: {name}", t.id);
                }
            }
            let (mut a, mut b) = (plain.clone(), busy.clone());
            for name in &own {
                let args = json!({ "query": name });
                assert_eq!(
                    call(&mut a, "search_nodes", args.clone()),
                    call(&mut b, "search_nodes", args)
                );
            }
            let count = draft.seed.entities.len() as u32;
            let atom = Atom::EntityCount {
                count,
                entity_type: None,
            };
            assert!(Simulated::holds(&busy, &atom), "{}", t.id);
            for reference in &draft.references {
                let (mut a, mut b) = (plain.clone(), busy.clone());
                for step in reference.iter().filter_map(Step::as_call) {
                    let tool = step.tool.trim_start_matches("memory.");
                    let got =
                        Server::call(&mut b, tool, &step.arguments).map_err(|e| e.to_string());
                    let want =
                        Server::call(&mut a, tool, &step.arguments).map_err(|e| e.to_string());
                    if tool != "read_graph" {
                        assert_eq!(got, want, "{} sample {n}: {tool}", t.id);
                    }
                }
            }
        }
    }
}

#[test]
fn deleting_a_background_entity_changes_the_count() {
    let own = sample_seed();
    let mut m = Memory::from_seed(&seed(100)).unwrap();
    let count = |n: usize| Atom::EntityCount {
        count: n as u32,
        entity_type: None,
    };
    assert!(Simulated::holds(&m, &count(own.entities.len())));
    let graph = call(&mut m, "read_graph", json!({}));
    let stranger = names(&graph)
        .into_iter()
        .find(|n| !own.entities.iter().any(|e| &e.name == n))
        .unwrap();
    call(
        &mut m,
        "delete_entities",
        json!({ "entityNames": [stranger] }),
    );
    assert!(!Simulated::holds(&m, &count(own.entities.len())));
    assert!(Simulated::holds(&m, &count(own.entities.len() - 1)));
}
