//! The graph's running total ([`GRAPH`]): every write moves it by exactly what it stores, so
//! the debug audit after each call passes and the bound holds to the byte.

use mcpbench_server_memory::{Entity, GRAPH, Memory, Relation, Seed};
use mcpbench_sim::{ErrorKind, Server, Simulated, ToolError, footprint};
use serde_json::{Value, json};

/// Text JSON escapes: a quote, a backslash, a newline, a tab, a control character, non-ASCII.
const ESCAPED: &str = "say \"hi\" \\ then\nnext\tline \u{1} café ✓";

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
        ],
        relations: vec![Relation {
            from: "Ada Park".into(),
            to: "Acme Corp".into(),
            relation_type: "works_at".into(),
        }],
        ..Seed::default()
    };
    Memory::from_seed(&seed).expect("valid seed")
}

fn call(m: &mut Memory, tool: &str, args: Value) -> Result<Value, ToolError> {
    Server::call(m, tool, &args)
}

/// What the graph holds by the measure the ledger keeps, worked out here from the snapshot:
/// a record per entity, observation and relation; the bytes of each entity and relation, and
/// of each entity's name once more (its key).
fn held(m: &Memory) -> (usize, usize) {
    let snap = Simulated::snapshot(m);
    let entities: Vec<Entity> = serde_json::from_value(snap["entities"].clone()).unwrap();
    let relations: Vec<Relation> = serde_json::from_value(snap["relations"].clone()).unwrap();
    let records = entities
        .iter()
        .map(|e| 1 + e.observations.len())
        .sum::<usize>()
        + relations.len();
    let bytes = entities
        .iter()
        .map(|e| footprint(&e.name) + footprint(e))
        .chain(relations.iter().map(footprint))
        .sum();
    (records, bytes)
}

fn assert_full(e: ToolError) {
    assert_eq!(e.kind, ErrorKind::FailedPrecondition, "{e}");
    assert!(e.message.contains("the knowledge graph is full"), "{e}");
}

#[test]
fn every_write_keeps_the_total_exact() {
    let mut m = graph();
    call(
        &mut m,
        "create_entities",
        json!({ "entities": [
            { "name": "Zoë \"Z\"", "entityType": ESCAPED, "observations": [ESCAPED, "b", ESCAPED] },
            { "name": "Globex", "entityType": "organization", "observations": [] },
            { "name": "Ada Park", "entityType": "robot", "observations": ["skipped"] }
        ] }),
    )
    .unwrap();
    call(
        &mut m,
        "create_relations",
        json!({ "relations": [
            { "from": "Zoë \"Z\"", "to": "Globex", "relationType": ESCAPED },
            { "from": "Zoë \"Z\"", "to": "Globex", "relationType": ESCAPED },
            { "from": "Ada Park", "to": "Acme Corp", "relationType": "works_at" },
            { "from": "Globex", "to": "Acme Corp", "relationType": "owns" }
        ] }),
    )
    .unwrap();
    call(
        &mut m,
        "add_observations",
        json!({ "observations": [
            { "entityName": "Ada Park", "contents": [ESCAPED, "Speaks Portuguese"] },
            { "entityName": "Ada Park", "contents": ["\\\\\\", ESCAPED] },
            { "entityName": "Globex", "contents": ["\u{7f}\u{0}"] }
        ] }),
    )
    .unwrap();
    // Grows by escaped text, then shrinks.
    for t in [format!("{ESCAPED}{ESCAPED}"), "x".to_string()] {
        call(
            &mut m,
            "update_entity_type",
            json!({ "name": "Globex", "entityType": t }),
        )
        .unwrap();
    }
    call(
        &mut m,
        "delete_observations",
        json!({ "deletions": [
            { "entityName": "Ada Park", "observations": [ESCAPED, "absent"] },
            { "entityName": "Nobody", "observations": ["x"] }
        ] }),
    )
    .unwrap();
    call(
        &mut m,
        "delete_relations",
        json!({ "relations": [
            { "from": "Zoë \"Z\"", "to": "Globex", "relationType": ESCAPED },
            { "from": "Globex", "to": "Ada Park", "relationType": "absent" }
        ] }),
    )
    .unwrap();
    let out = call(
        &mut m,
        "delete_entities",
        json!({ "entityNames": ["Acme Corp", "Zoë \"Z\"", "Nobody"] }),
    )
    .unwrap();
    assert!(out.as_str().unwrap().contains("2 relations"), "{out}");
    assert_eq!(Simulated::audit(&m), Ok(()));
    // Ada Park and Globex and their three facts; both relations went with Acme Corp.
    assert_eq!(held(&m).0, 2 + 3);
}

/// Fills the graph with 1,000-character observations until exactly `left` bytes remain.
fn fill(m: &mut Memory, left: usize) {
    let fact = |tag: &str, i: usize, len: usize| format!("{tag}{i:04}{}", "x".repeat(len - 8));
    // Whole entities while a hundred-odd kilobytes remain above what the rest needs.
    let mut n = 0;
    loop {
        let room = GRAPH.bytes - held(m).1 - left;
        let entity = |n: usize| Entity {
            name: format!("Filler {n:03}"),
            entity_type: "t".into(),
            observations: (0..100).map(|i| fact("obs:", i, 1000)).collect(),
        };
        let cost = |e: &Entity| footprint(&e.name) + footprint(e);
        let mut batch = Vec::new();
        let mut used = 0;
        while batch.len() < 50 && used + cost(&entity(n)) + 2006 < room {
            used += cost(&entity(n));
            batch.push(entity(n));
            n += 1;
        }
        if batch.is_empty() {
            break;
        }
        call(m, "create_entities", json!({ "entities": batch })).unwrap();
    }
    // Then observations of 1,000 characters, each costing its 1,002 bytes and a comma...
    let mut i = 0;
    loop {
        let gap = GRAPH.bytes - held(m).1 - left;
        if gap <= 2006 {
            break;
        }
        let count = ((gap - 1004) / 1003).min(50);
        let contents: Vec<String> = (i..i + count).map(|i| fact("add:", i, 1000)).collect();
        i += count;
        let args =
            json!({ "observations": [{ "entityName": "Filler 000", "contents": contents }] });
        call(m, "add_observations", args).unwrap();
    }
    // ... and two whose lengths close the gap exactly.
    let gap = GRAPH.bytes - held(m).1 - left;
    let first = (gap - 6) / 2;
    let contents = [fact("end:", 0, first), fact("end:", 1, gap - 6 - first)];
    let args = json!({ "observations": [{ "entityName": "Filler 000", "contents": contents }] });
    call(m, "add_observations", args).unwrap();
    assert_eq!(GRAPH.bytes - held(m).1, left);
}

#[test]
fn the_byte_bound_holds_to_the_byte_and_a_refusal_changes_nothing() {
    let mut m = graph();
    call(
        &mut m,
        "create_entities",
        json!({ "entities": [{ "name": "Q", "entityType": "t", "observations": [] }] }),
    )
    .unwrap();
    fill(&mut m, 200);
    let (before, snapshot) = (held(&m), Simulated::snapshot(&m));

    // 40 control characters are 40 bytes of UTF-8 but 240 stored (`\u0001` each), and the
    // type grows by 239 bytes, 39 past what is left. Counting raw lengths (39 more bytes), the
    // old check admitted it.
    let controls = "\u{1}".repeat(40);
    let e = call(
        &mut m,
        "update_entity_type",
        json!({ "name": "Q", "entityType": controls }),
    )
    .unwrap_err();
    assert_full(e);
    // An observation three bytes past what is left: 200 characters, its quotes and a comma.
    let e = call(
        &mut m,
        "add_observations",
        json!({ "observations": [{ "entityName": "Filler 000", "contents": ["y".repeat(200)] }] }),
    )
    .unwrap_err();
    assert_full(e);
    assert_eq!(held(&m), before, "the total is unchanged");
    assert_eq!(Simulated::snapshot(&m), snapshot, "nothing was changed");
    assert_eq!(Simulated::audit(&m), Ok(()));

    // 33 control characters and "xyz" take 6 * 33 + 3 + 2 bytes, 200 more than "t": admitted.
    let exact = format!("{}xyz", "\u{1}".repeat(33));
    call(
        &mut m,
        "update_entity_type",
        json!({ "name": "Q", "entityType": exact }),
    )
    .unwrap();
    assert_eq!(held(&m).1, GRAPH.bytes);
    // Full to the byte: nothing more fits, but a shrinking edit and a deletion do.
    let e = call(
        &mut m,
        "create_relations",
        json!({ "relations": [{ "from": "Q", "to": "Ada Park", "relationType": "k" }] }),
    )
    .unwrap_err();
    assert_full(e);
    call(
        &mut m,
        "update_entity_type",
        json!({ "name": "Q", "entityType": "t" }),
    )
    .unwrap();
    call(
        &mut m,
        "delete_entities",
        json!({ "entityNames": ["Filler 001"] }),
    )
    .unwrap();
    assert!(held(&m).1 < GRAPH.bytes - 100_000);
    assert_eq!(Simulated::audit(&m), Ok(()));
}

#[test]
fn the_record_bound_counts_entities_observations_and_relations() {
    let mut m = graph();
    let (records, _) = held(&m);
    assert_eq!(records, 2 + 1 + 1);
    // 50 entities of 100 observations are 5,050 records a call; leave room for 3 more.
    let batch = |c: usize, n: usize| {
        let entities: Vec<Value> = (0..n)
            .map(|i| {
                let facts: Vec<String> = (0..100).map(|f| format!("{f}")).collect();
                json!({ "name": format!("E{c}-{i}"), "entityType": "t", "observations": facts })
            })
            .collect();
        json!({ "entities": entities })
    };
    for c in 0..3 {
        call(&mut m, "create_entities", batch(c, 50)).unwrap();
    }
    // 4 + 15,150 held; 4,846 left: 47 entities of 101 records (4,747), then 99 more.
    call(&mut m, "create_entities", batch(3, 47)).unwrap();
    let left = GRAPH.records - held(&m).0;
    assert_eq!(left, 99);
    let contents: Vec<String> = (0..50).map(|f| format!("new {f}")).collect();
    let more: Vec<String> = (50..100).map(|f| format!("new {f}")).collect();
    let e = call(
        &mut m,
        "add_observations",
        json!({ "observations": [
            { "entityName": "E0-0", "contents": contents },
            { "entityName": "E0-1", "contents": more }
        ] }),
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("20,000 entities, observations and relations"),
        "{e}"
    );
    let more: Vec<String> = (50..99).map(|f| format!("new {f}")).collect();
    call(
        &mut m,
        "add_observations",
        json!({ "observations": [
            { "entityName": "E0-0", "contents": contents },
            { "entityName": "E0-1", "contents": more }
        ] }),
    )
    .unwrap();
    assert_eq!(held(&m).0, GRAPH.records);
    assert_eq!(Simulated::audit(&m), Ok(()));
}
