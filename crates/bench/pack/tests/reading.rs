//! A family as its reader sees one task (`Family::bindings`, `derive`, `slot_text`,
//! `references_known`): what the goal's slots bind, what follows from them forwards and back,
//! and the references worked out as far as that goes, each value not known yet marked.

use mcpbench_pack::{Field, Known, Pack, PackFile, UNKNOWN};
use serde_json::{Value, json};

fn family() -> Pack {
    let family = json!({
        "format": "mcpbench-family/1",
        "family": "shop.reprice",
        "servers": ["shop"],
        "category": "single-tool",
        "difficulty": "easy",
        "data": {"prices": [990, 1490, 1990]},
        "draw": [
            {"let": "seed", "world": "shop"},
            {"let": "p", "pick": "$seed.products"},
            {"let": "title", "value": "$p.title"},
            {"let": "price", "pick": "$prices"},
            {"let": "label", "value": "\"\\($p.sku)-\\($price)\""}
        ],
        "goal": "Set {$title} to {$price | money} euros.",
        "max_steps": 3,
        "initial_state": {"shop": {"$": "$seed"}},
        "predicate": {"shop.productPrice": {"sku": {"$": "$p.sku"}, "price": {"$": "$price"}}},
        "references": [[
            {"tool": "shop.search_products", "arguments": {"query": {"$": "$title"}}},
            {"tool": "shop.update_product", "arguments": {"productId": {"$": "$p.id"}, "price": {"$": "$price"}}},
            {"answer": {"$": "$label"}}
        ]]
    });
    pack_of("shop.reprice", &family)
}

/// A pack of the one family `family`, filed under its id.
fn pack_of(id: &str, family: &Value) -> Pack {
    Pack::from_files(vec![
        PackFile {
            name: "pack.json".into(),
            bytes: br#"{"format": "mcpbench-pack/1", "name": "t"}"#.to_vec(),
        },
        PackFile {
            name: format!("{id}.json"),
            bytes: family.to_string().into_bytes(),
        },
    ])
    .unwrap_or_else(|e| panic!("{e}"))
}

fn unknown(source: &str) -> Value {
    json!({ UNKNOWN: source })
}

#[test]
fn the_references_are_worked_out_as_far_as_the_values_known() {
    let pack = family();
    let f = &pack.families[0].family;
    let mut b = f.bindings();
    assert_eq!(b.known("prices"), Known::Whole, "data is known");
    assert_eq!(b.known("price"), Known::No);
    let refs = f.references_known(&b);
    assert_eq!(refs[0][0]["arguments"]["query"], unknown("$title"));

    // A slot read through a filter renders its text again only with the right value.
    let mut trial = b.clone();
    trial.set("price", &json!(1490));
    assert_eq!(
        f.slot_text("$price | money", &trial).as_deref(),
        Some("14.90")
    );
    assert_eq!(f.slot_text("$price | money", &b), None, "not known yet");

    // The title the goal gives tells part of $p (the step only reads $p.title)...
    b.set("title", &json!("Blue mug"));
    b.set("price", &json!(1490));
    assert!(f.derive(&mut b));
    assert_eq!(b.known("p"), Known::Partial);
    assert_eq!(b.value("p"), Some(json!({"title": "Blue mug"})));
    let refs = f.references_known(&b);
    assert_eq!(refs[0][0]["arguments"]["query"], "Blue mug");
    assert_eq!(refs[0][1]["arguments"]["productId"], unknown("$p.id"));
    assert_eq!(refs[0][1]["arguments"]["price"], 1490);
    assert_eq!(refs[0][2]["answer"], unknown("$label"));

    // ...and the whole record, once an answer shows it, tells the rest.
    b.set("p", &json!({"title": "Blue mug", "id": 7, "sku": "MUG-1"}));
    f.derive(&mut b);
    assert_eq!(b.value("label"), Some(json!("MUG-1-1490")));
    let refs = f.references_known(&b);
    assert_eq!(refs[0][1]["arguments"]["productId"], 7);
    assert_eq!(refs[0][2]["answer"], "MUG-1-1490");
}

#[test]
fn a_path_binds_part_of_a_list_or_an_object() {
    let pack = family();
    let f = &pack.families[0].family;
    let mut b = f.bindings();
    assert!(b.set_path(
        "p",
        &[Field::Key("tags".into()), Field::Index(1)],
        &json!("blue")
    ));
    assert_eq!(b.value("p"), Some(json!({"tags": [null, "blue"]})));
    assert!(
        !b.set_path("nope", &[], &json!(1)),
        "not a name of the family"
    );
    assert!(
        !b.set_path("p", &[Field::Index(0)], &json!(1)),
        "an object is not a list"
    );
}

#[test]
fn a_derived_value_follows_what_it_reads_and_a_reading_takes_an_answer() {
    let pack = family();
    let f = &pack.families[0].family;
    let lib = "";
    let mut b = f.bindings();
    b.set("price", &json!(990));
    b.set("p", &json!({"title": "Mug", "id": 7, "sku": "MUG-1"}));
    f.derive(&mut b);
    assert_eq!(b.value("label"), Some(json!("MUG-1-990")));
    // The record read again, changed: what was worked out from it is worked out again.
    b.set("p", &json!({"title": "Mug", "id": 7, "sku": "MUG-2"}));
    assert!(f.derive(&mut b));
    assert_eq!(b.value("label"), Some(json!("MUG-2-990")));
    assert!(!f.derive(&mut b), "nothing more follows");

    // A reader's own expression over the names and a tool's answer.
    let r = f
        .reading("$answer.products[] | select(.title == $title) | .id", lib)
        .unwrap();
    let answer = json!({"products": [{"title": "Cup", "id": 3}, {"title": "Mug", "id": 7}]});
    let mut fresh = f.bindings();
    assert_eq!(fresh.read(&r, &answer), None, "$title is not known yet");
    fresh.set("title", &json!("Mug"));
    assert_eq!(fresh.read(&r, &answer), Some(json!(7)));
    assert!(
        f.reading("$nope", lib).is_err(),
        "a name the family does not have"
    );
}

#[test]
fn a_partly_known_value_is_read_only_through_its_known_parts() {
    let pack = family();
    let f = &pack.families[0].family;
    let mut b = f.bindings();
    b.set_path("p", &[Field::Key("title".into())], &json!("Mug"));
    b.set_path(
        "p",
        &[Field::Key("tags".into()), Field::Index(1)],
        &json!("blue"),
    );
    let read = |source: &str| b.read(&f.reading(source, "").unwrap(), &Value::Null);
    assert_eq!(read("[$p.title, $p.tags[1]]"), Some(json!(["Mug", "blue"])));
    for unknowable in [
        "$p.sku // \"x\"",
        "$p.n + 1",
        "$p | keys",
        "$p.tags | length",
        "$p.tags | join(\", \")",
        "[$p.tags[]]",
        "\"\\($p.sku)-1\"",
    ] {
        assert_eq!(
            read(unknowable),
            None,
            "{unknowable} owes its value to what is not known"
        );
    }
}

#[test]
fn a_pick_from_the_familys_data_known_in_part_is_the_one_item_that_agrees() {
    let family = json!({
        "format": "mcpbench-family/1",
        "family": "calendar.book-room",
        "servers": ["calendar"],
        "category": "single-tool",
        "difficulty": "easy",
        "data": {"rooms": [["room-a", "Atlas", 4], ["room-b", "Borealis", 8], ["room-c", "Cirrus", 8]]},
        "draw": [
            {"let": "seed", "world": "calendar"},
            {"let": "room", "pick": "$rooms"}
        ],
        "goal": "Book {$room[1]}.",
        "max_steps": 3,
        "initial_state": {"calendar": {"$": "$seed"}},
        "predicate": {"calendar.eventExists": {"calendar": {"$": "$room[0]"}}},
        "references": [[
            {"tool": "calendar.create_event", "arguments": {"calendarId": {"$": "$room[0]"}}}
        ]]
    });
    let pack = pack_of("calendar.book-room", &family);
    let f = &pack.families[0].family;

    // The name the goal gives names one room of the data: its id follows.
    let mut b = f.bindings();
    b.set_path("room", &[Field::Index(1)], &json!("Borealis"));
    assert!(f.derive(&mut b));
    assert_eq!(b.known("room"), Known::Whole);
    let refs = f.references_known(&b);
    assert_eq!(refs[0][0]["arguments"]["calendarId"], "room-b");

    // A part two rooms share names neither.
    let mut b = f.bindings();
    b.set_path("room", &[Field::Index(2)], &json!(8));
    f.derive(&mut b);
    assert_eq!(b.known("room"), Known::Partial);
    // One no room has names none.
    let mut b = f.bindings();
    b.set_path("room", &[Field::Index(1)], &json!("Nimbus"));
    f.derive(&mut b);
    assert_eq!(b.known("room"), Known::Partial);
}
