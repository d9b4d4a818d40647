//! Behaviour of the memory tools that an agent would notice.

use mcpbench_server_memory::world::sample_seed;
use mcpbench_server_memory::{Atom, Entity, Memory, Relation, Seed};
use mcpbench_sim::{ErrorKind, Server, Simulated};
use serde_json::{Value, json};

fn graph() -> Memory {
    let seed = Seed {
        entities: vec![
            Entity {
                name: "Ada Park".into(),
                entity_type: "person".into(),
                observations: vec!["Speaks Portuguese".into()],
            },
            Entity {
                name: "Acme Corp".into(),
                entity_type: "organization".into(),
                observations: vec![],
            },
            Entity {
                name: "Lisbon".into(),
                entity_type: "city".into(),
                observations: vec![],
            },
        ],
        relations: vec![
            Relation {
                from: "Ada Park".into(),
                to: "Acme Corp".into(),
                relation_type: "works_at".into(),
            },
            Relation {
                from: "Acme Corp".into(),
                to: "Lisbon".into(),
                relation_type: "located_in".into(),
            },
        ],
        ..Seed::default()
    };
    Memory::from_seed(&seed).expect("valid seed")
}

fn call(m: &mut Memory, tool: &str, args: Value) -> Result<Value, mcpbench_sim::ToolError> {
    Server::call(m, tool, &args)
}

#[test]
fn existing_entities_are_skipped_and_said_so() {
    let mut m = graph();
    let out = call(
        &mut m,
        "create_entities",
        json!({ "entities": [
            { "name": "Ada Park", "entityType": "robot", "observations": ["Beeps"] },
            { "name": "Globex", "entityType": "organization", "observations": [] }
        ] }),
    )
    .unwrap();
    assert_eq!(out["created"][0]["name"], "Globex");
    assert_eq!(out["skipped"], json!(["Ada Park"]));
    assert!(m.holds(&Atom::EntityExists {
        name: "Ada Park".into(),
        entity_type: Some("person".into())
    }));
    assert!(!m.holds(&Atom::HasObservation {
        entity: "Ada Park".into(),
        observation: "Beeps".into()
    }));
}

#[test]
fn relations_need_both_ends_and_writes_are_all_or_nothing() {
    let mut m = graph();
    let before = Simulated::snapshot(&m);
    let e = call(
        &mut m,
        "create_relations",
        json!({ "relations": [
            { "from": "Ada Park", "to": "Lisbon", "relationType": "lives_in" },
            { "from": "Ada Park", "to": "Globex", "relationType": "advises" }
        ] }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert!(e.message.contains("Globex"), "{e}");
    let e = call(
        &mut m,
        "add_observations",
        json!({ "observations": [
            { "entityName": "Ada Park", "contents": ["Runs marathons"] },
            { "entityName": "ada park", "contents": ["Plays chess"] }
        ] }),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert!(e.message.contains("did you mean \"Ada Park\""), "{e}");
    assert_eq!(Simulated::snapshot(&m), before, "nothing changed");
}

#[test]
fn deleting_an_entity_deletes_its_relations() {
    let mut m = graph();
    let out = call(
        &mut m,
        "delete_entities",
        json!({ "entityNames": ["Acme Corp", "Nobody"] }),
    )
    .unwrap();
    assert!(out.as_str().unwrap().contains("2 relations"), "{out}");
    assert!(out.as_str().unwrap().contains("Nobody"), "{out}");
    let g = call(&mut m, "read_graph", json!({})).unwrap();
    assert_eq!(g["relations"], json!([]));
    assert!(m.holds(&Atom::EntityCount {
        count: 2,
        entity_type: None
    }));
    assert!(!m.holds(&Atom::RelationExists {
        from: "Ada Park".into(),
        to: "Acme Corp".into(),
        relation_type: "works_at".into()
    }));
}

#[test]
fn search_and_open_return_only_relations_inside_the_result() {
    let mut m = graph();
    let s = call(&mut m, "search_nodes", json!({ "query": "PORTUGUESE" })).unwrap();
    assert_eq!(s["entities"].as_array().unwrap().len(), 1);
    assert_eq!(s["relations"], json!([]), "Acme Corp is not in the result");
    let o = call(
        &mut m,
        "open_nodes",
        json!({ "names": ["Ada Park", "Acme Corp", "Nowhere"] }),
    )
    .unwrap();
    assert_eq!(o["entities"].as_array().unwrap().len(), 2);
    assert_eq!(o["relations"][0]["relationType"], "works_at");
    let e = call(&mut m, "get_entity", json!({ "name": "Ada Park" })).unwrap();
    assert!(e.get("relations").is_none());
}

#[test]
fn schemas_reject_bad_arguments() {
    let mut m = graph();
    let bad: [(&str, Value); 4] = [
        ("create_entities", json!({ "entities": [] })),
        (
            "create_entities",
            json!({ "entities": [{ "name": "X", "entity_type": "person", "observations": [] }] }),
        ),
        (
            "create_relations",
            json!({ "relations": [{ "from": "Ada Park", "to": "Acme Corp" }] }),
        ),
        (
            "add_observations",
            json!({ "observations": [{ "entityName": "Ada Park", "contents": "Runs" }] }),
        ),
    ];
    for (tool, args) in bad {
        let e = call(&mut m, tool, args.clone()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArguments, "{tool} {args}");
    }
}

#[test]
fn same_calls_same_state_and_bad_seeds_are_refused() {
    let run = || {
        let mut m = Memory::from_seed(&sample_seed()).unwrap();
        call(&mut m, "create_entities", json!({ "entities": [{ "name": "Zed", "entityType": "person", "observations": ["b", "a", "b"] }] }))
            .unwrap();
        call(
            &mut m,
            "update_entity_type",
            json!({ "name": "Zed", "entityType": "robot" }),
        )
        .unwrap();
        Simulated::snapshot(&m)
    };
    assert_eq!(run(), run());
    assert!(run().to_string().contains(r#""observations":["b","a"]"#));

    let mut seed = sample_seed();
    seed.relations.push(Relation {
        from: "Ghost".into(),
        to: seed.entities[0].name.clone(),
        relation_type: "haunts".into(),
    });
    assert!(Memory::from_seed(&seed).is_err());
    let mut seed = sample_seed();
    seed.entities.push(seed.entities[0].clone());
    assert!(Memory::from_seed(&seed).is_err());
}
