//! Recovery templates: a transient fault to retry through, or a missing entity for the agent
//! to notice; the goal states the facts to record, never the order of the steps.

use super::{Kit, atom, exists, not, params, related};
use crate::world::company;
use crate::{Atom, Memory};
use mcpbench_sim::{AnswerCheck, Draft, ErrorKind, Fault, Pred, Rng, Step, call, qualified};
use serde_json::json;

/// Why the user asks, or nothing.
const HEADCOUNT_OPENERS: &[&str] = &[
    "",
    "I'm preparing a visit. ",
    "For the account plan: ",
    "Settling a bet with a colleague. ",
    "Before my call with their office: ",
    "Their recruiter asked me. ",
    "Quick sanity check. ",
    "For the org chart I'm drawing: ",
    "We're sizing the deal. ",
    "Curious, after today's meeting. ",
];
/// Ways to ask for a headcount, with `{org}`.
const HEADCOUNT_ASKS: &[&str] = &[
    "How many people in the knowledge graph work at {org}? Reply with the number.",
    "How many of the people my memory knows are at {org} today? Just the number.",
    "Count the people who currently work for {org}, according to my memory. Reply with the count only.",
    "What's the headcount at {org}, going by the knowledge graph? A number is enough.",
    "How many people in my memory work at {org}? Only the number, please.",
];

pub(super) fn count_after_outage(rng: &mut Rng) -> Draft<Memory> {
    let n = rng.range(5, 8) as usize;
    let c = company(rng, n, 3);
    let org = rng.pick(&c.orgs).clone();
    let staff = c.employer.values().filter(|o| **o == org).count();
    let kind = *rng.pick(&[ErrorKind::Unavailable, ErrorKind::Timeout]);
    let read = call::<Memory>("read_graph", json!({}));
    Draft {
        goal: format!(
            "{}{}",
            rng.pick(HEADCOUNT_OPENERS),
            rng.pick(HEADCOUNT_ASKS)
        )
        .replace("{org}", &org),
        max_steps: 5,
        seed: c.graph.seed,
        tools: Memory::tools(&["read_graph", "search_nodes", "open_nodes", "get_entity"]),
        predicate: Pred::Answer(AnswerCheck::OnlyNumber {
            value: staff as f64,
            tolerance: 0.0,
        }),
        references: vec![vec![
            read.clone(),
            read,
            Step::Answer {
                answer: format!("{staff}"),
            },
        ]],
        faults: vec![Fault {
            tool: qualified::<Memory>("read_graph"),
            on_call: 1,
            times: 1,
            error: kind,
            message: "the memory file is locked by another process; try again".into(),
            landed: false,
        }],
        params: params(&[
            ("org", json!(org)),
            ("people", json!(n)),
            ("error", json!(kind.as_str())),
        ]),
    }
}

pub(super) fn relate_missing_entity(rng: &mut Rng) -> Draft<Memory> {
    let c = company(rng, 4, 2);
    let who = rng.pick(&c.people).clone();
    let org = rng.pick(&c.other_orgs()).to_string();
    let relate = call::<Memory>(
        "create_relations",
        json!({ "relations": [{ "from": who, "to": org, "relationType": "advises" }] }),
    );
    let create = call::<Memory>(
        "create_entities",
        json!({ "entities": [{ "name": org, "entityType": "organization", "observations": [] }] }),
    );
    let goal = match rng.below(3) {
        0 => format!(
            "Remember that {who} advises {org}. {org} isn't in my memory yet; keep it there as an organization, like the other companies."
        ),
        1 => format!(
            "{who} has started advising {org}: please note that {who} advises {org}. {org} belongs in my memory as an organization, like the other companies."
        ),
        _ => format!(
            "Please remember that {who} now advises the company {org}, and keep {org} in my memory as an organization."
        ),
    };
    Draft {
        goal,
        max_steps: 5,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "create_relations",
            "create_entities",
            "search_nodes",
            "read_graph",
            "update_entity_type",
        ]),
        predicate: Pred::All(vec![
            related(&who, &org, "advises"),
            exists(&org, "organization"),
        ]),
        references: vec![
            vec![relate.clone(), create.clone(), relate.clone()],
            vec![create, relate],
        ],
        faults: vec![],
        params: params(&[("person", json!(who)), ("org", json!(org))]),
    }
}

pub(super) fn offboard_with_timeouts(rng: &mut Rng) -> Draft<Memory> {
    let c = company(rng, 5, 2);
    let who = rng.pick(&c.people).clone();
    let org = c.employer[&who].clone();
    let left = c.entity_count() - 1;
    let month = rng.pick(&["January", "March", "May", "August", "November"]);
    let note = format!("{who} left in {month} {}", rng.range(2022, 2025));
    let delete = call::<Memory>("delete_entities", json!({ "entityNames": [who] }));
    let add = call::<Memory>(
        "add_observations",
        json!({ "observations": [{ "entityName": org, "contents": [note] }] }),
    );
    Draft {
        goal: format!(
            "{who} has left {org}. Forget {who} entirely, and note on {org}: \"{note}\"."
        ),
        max_steps: 7,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "delete_entities",
            "delete_relations",
            "add_observations",
            "create_entities",
            "open_nodes",
        ]),
        predicate: Pred::All(vec![
            not(atom(Atom::EntityExists {
                name: who.clone(),
                entity_type: None,
            })),
            atom(Atom::EntityCount {
                count: left,
                entity_type: None,
            }),
            atom(Atom::HasObservation {
                entity: org.clone(),
                observation: note.clone(),
            }),
        ]),
        references: vec![
            vec![delete.clone(), add.clone(), add.clone(), add.clone()],
            vec![add.clone(), add.clone(), add, delete],
        ],
        faults: vec![Fault {
            tool: qualified::<Memory>("add_observations"),
            on_call: 1,
            times: 2,
            error: ErrorKind::Timeout,
            message: "the memory store took too long to answer; nothing was written, try again"
                .into(),
            landed: false,
        }],
        params: params(&[
            ("person", json!(who)),
            ("org", json!(org)),
            ("note", json!(note)),
        ]),
    }
}
