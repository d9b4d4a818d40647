//! Composition templates: several writes that must agree, or a lookup whose result feeds a
//! write.

use super::{Kit, exists, not, observation_count, observed, params, related};
use crate::Memory;
use crate::world::{CITIES, company};
use mcpbench_sim::{Draft, Pred, Rng, call};
use serde_json::json;

const EVENTS: &[&str] = &[
    "the Berlin meetup",
    "the product offsite",
    "a design workshop",
    "the hackathon",
    "the quarterly review",
];

pub(super) fn record_meeting(rng: &mut Rng) -> Draft<Memory> {
    let c = company(rng, 4, 2);
    let newcomer = *rng.pick(&c.outsiders());
    let host = rng.pick(&c.people).clone();
    let event = *rng.pick(EVENTS);
    let note = format!("Met {host} at {event}");
    Draft {
        goal: format!(
            "{host} just met {newcomer} at {event}. Remember {newcomer} as a person, with the note \"{note}\", and that {host} knows {newcomer}."
        ),
        max_steps: 5,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "create_entities",
            "create_relations",
            "add_observations",
            "open_nodes",
            "search_nodes",
        ]),
        predicate: Pred::All(vec![
            exists(newcomer, "person"),
            observed(newcomer, &note),
            related(&host, newcomer, "knows"),
        ]),
        references: vec![vec![
            call::<Memory>(
                "create_entities",
                json!({ "entities": [{ "name": newcomer, "entityType": "person", "observations": [note] }] }),
            ),
            call::<Memory>(
                "create_relations",
                json!({ "relations": [{ "from": host, "to": newcomer, "relationType": "knows" }] }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("newcomer", json!(newcomer)),
            ("host", json!(host)),
            ("event", json!(event)),
        ]),
    }
}

pub(super) fn correct_observation(rng: &mut Rng) -> Draft<Memory> {
    let mut c = company(rng, 4, 2);
    let who = rng.pick(&c.people).clone();
    let moves = rng.sample(CITIES, 2);
    let (old, new) = (
        format!("Lives in {}", moves[0]),
        format!("Lives in {}", moves[1]),
    );
    c.graph.observe(&who, &old);
    let count = c.graph.observations(&who).len();
    let delete = call::<Memory>(
        "delete_observations",
        json!({ "deletions": [{ "entityName": who, "observations": [old] }] }),
    );
    let add = call::<Memory>(
        "add_observations",
        json!({ "observations": [{ "entityName": who, "contents": [new] }] }),
    );
    Draft {
        goal: format!(
            "{who} has moved from {} to {}. Where my memory says \"{old}\" about them, it should now say \"{new}\"; everything else I know about them stays.",
            moves[0], moves[1]
        ),
        max_steps: 5,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "delete_observations",
            "add_observations",
            "open_nodes",
            "create_entities",
            "delete_entities",
        ]),
        predicate: Pred::All(vec![
            observed(&who, &new),
            not(observed(&who, &old)),
            observation_count(&who, count),
        ]),
        references: vec![vec![delete.clone(), add.clone()], vec![add, delete]],
        faults: vec![],
        params: params(&[
            ("person", json!(who)),
            ("from", json!(moves[0])),
            ("to", json!(moves[1])),
        ]),
    }
}

pub(super) fn change_employer(rng: &mut Rng) -> Draft<Memory> {
    let c = company(rng, 5, 2);
    let who = rng.pick(&c.people).clone();
    let old = c.employer[&who].clone();
    let present = rng.chance(1, 2);
    let new = if present {
        c.orgs
            .iter()
            .find(|o| **o != old)
            .expect("two organizations")
            .clone()
    } else {
        rng.pick(&c.other_orgs()).to_string()
    };
    let unlink = call::<Memory>(
        "delete_relations",
        json!({ "relations": [{ "from": who, "to": old, "relationType": "works_at" }] }),
    );
    let link = call::<Memory>(
        "create_relations",
        json!({ "relations": [{ "from": who, "to": new, "relationType": "works_at" }] }),
    );
    let references = if present {
        vec![vec![unlink.clone(), link.clone()], vec![link, unlink]]
    } else {
        let create = call::<Memory>(
            "create_entities",
            json!({ "entities": [{ "name": new, "entityType": "organization", "observations": [] }] }),
        );
        vec![
            vec![create.clone(), unlink.clone(), link.clone()],
            vec![unlink, create, link],
        ]
    };
    Draft {
        goal: format!(
            "{who} has left {old} and joined {new}. Bring my memory up to date: they work at {new} now and no longer at {old}, recorded the way the other people's employers are, with {new} kept as an organization like the others. Keep {old} itself."
        ),
        max_steps: 7,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "read_graph",
            "search_nodes",
            "create_entities",
            "create_relations",
            "delete_relations",
            "delete_entities",
            "update_entity_type",
        ]),
        predicate: Pred::All(vec![
            related(&who, &new, "works_at"),
            not(related(&who, &old, "works_at")),
            exists(&new, "organization"),
            exists(&old, "organization"),
        ]),
        references,
        faults: vec![],
        params: params(&[
            ("person", json!(who)),
            ("new", json!(new)),
            ("new_in_graph", json!(present)),
        ]),
    }
}

pub(super) fn note_employer_city(rng: &mut Rng) -> Draft<Memory> {
    let mut c = company(rng, 5, 3);
    let who = rng.pick(&c.people).clone();
    let city = c.city[&c.employer[&who]].clone();
    let elsewhere: Vec<&str> = CITIES.iter().copied().filter(|x| *x != city).collect();
    let born = *rng.pick(&elsewhere);
    c.graph.observe(&who, &format!("Born in {born}"));
    let count = c.graph.observations(&who).len();
    let note = format!("Works in {city}");
    Draft {
        goal: format!(
            "Going by my memory, which city is {who}'s employer in? Note it on {who} as \"Works in\" and the city (\"Works in Paris\" if it were Paris)."
        ),
        max_steps: 5,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "read_graph",
            "search_nodes",
            "open_nodes",
            "get_entity",
            "add_observations",
            "create_relations",
        ]),
        predicate: Pred::All(vec![
            observed(&who, &note),
            observation_count(&who, count + 1),
        ]),
        references: vec![vec![
            call::<Memory>("read_graph", json!({})),
            call::<Memory>(
                "add_observations",
                json!({ "observations": [{ "entityName": who, "contents": [note] }] }),
            ),
        ]],
        faults: vec![],
        params: params(&[("person", json!(who)), ("born", json!(born))]),
    }
}
