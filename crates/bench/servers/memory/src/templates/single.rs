//! Single-tool templates: one call with the right arguments, or one read and an answer.

use super::{Kit, atom, exists, not, observation_count, observed, params, related};
use crate::world::{FACTS, company};
use crate::{Atom, Memory};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call};
use serde_json::json;

/// Ways to ask for someone new to be remembered, with `{name}` and one `{fact}`.
const PERSON_ASKS: &[&str] = &[
    "I just met {name}. Remember them as a person, noting only this: {fact}",
    "Please keep {name} in my memory, as a person, with one thing noted about them: \"{fact}\". Nothing else for now.",
    "New contact: {name}, a person. The only fact to record so far is \"{fact}\".",
    "Start remembering {name} (a person) for me. All I know yet: {fact}",
    "Could you note a new person, {name}, in my memory? Record just \"{fact}\" about them.",
];

pub(super) fn remember_person(rng: &mut Rng) -> Draft<Memory> {
    let c = company(rng, 3, 2);
    let name = *rng.pick(&c.outsiders());
    let fact = *rng.pick(FACTS);
    Draft {
        goal: rng
            .pick(PERSON_ASKS)
            .replace("{name}", name)
            .replace("{fact}", fact),
        max_steps: 3,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "create_entities",
            "add_observations",
            "read_graph",
            "search_nodes",
        ]),
        predicate: Pred::All(vec![
            exists(name, "person"),
            observed(name, fact),
            observation_count(name, 1),
        ]),
        references: vec![vec![call::<Memory>(
            "create_entities",
            json!({ "entities": [{ "name": name, "entityType": "person", "observations": [fact] }] }),
        )]],
        faults: vec![],
        params: params(&[("name", json!(name)), ("fact", json!(fact))]),
    }
}

/// Ways to ask for one more fact about someone known, with `{who}` and `{fact}`.
const FACT_ASKS: &[&str] = &[
    "Something new about {who}: \"{fact}\". Add it to what my memory has on them; keep the rest.",
    "Remember this about {who} as well, word for word: {fact}. Don't drop anything you already know about them.",
    "I learned that {who}: \"{fact}\". Please note it alongside their other facts.",
    "Could you add \"{fact}\" to {who}'s notes in my memory? Everything already noted stays.",
    "One more fact for {who}, exactly as written: {fact}. Leave their existing notes alone.",
];

pub(super) fn add_fact(rng: &mut Rng) -> Draft<Memory> {
    let c = company(rng, 4, 2);
    let who = rng.pick(&c.people).clone();
    let had = c.graph.observations(&who).to_vec();
    let fresh: Vec<&str> = FACTS
        .iter()
        .copied()
        .filter(|f| !had.iter().any(|h| h == f))
        .collect();
    let fact = *rng.pick(&fresh);
    Draft {
        goal: rng
            .pick(FACT_ASKS)
            .replace("{who}", &who)
            .replace("{fact}", fact),
        max_steps: 3,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "add_observations",
            "create_entities",
            "open_nodes",
            "get_entity",
        ]),
        predicate: Pred::All(vec![
            observed(&who, fact),
            observation_count(&who, had.len() + 1),
        ]),
        references: vec![vec![call::<Memory>(
            "add_observations",
            json!({ "observations": [{ "entityName": who, "contents": [fact] }] }),
        )]],
        faults: vec![],
        params: params(&[("person", json!(who)), ("fact", json!(fact))]),
    }
}

/// What a user may say first, or nothing.
const CONTACT_OPENERS: &[&str] = &[
    "",
    "Updating my address book. ",
    "I have a call coming up. ",
    "Sending a card next week. ",
    "Quick check. ",
    "Before the conference: ",
];

/// Ways to ask where someone works now, with `{who}`.
const EMPLOYER_ASKS: &[&str] = &[
    "According to the knowledge graph, which organization does {who} work at now? Answer with its name.",
    "Where does {who} work these days? Check what my memory says and give me the organization's name.",
    "I'm writing to {who}. Which company are they with now, as far as my memory knows?",
    "What's {who}'s current employer, going by the knowledge graph?",
    "Look up {who} in my memory: which organization do they work for today?",
];

pub(super) fn employer_lookup(rng: &mut Rng) -> Draft<Memory> {
    let n = rng.range(4, 7) as usize;
    let mut c = company(rng, n, 3);
    let who = rng.pick(&c.people).clone();
    let org = c.employer[&who].clone();
    let former = rng.chance(1, 2);
    // Every organization the graph names is a candidate a careless answer could give.
    let mut candidates: Vec<String> = c.orgs.clone();
    if former {
        let old = *rng.pick(&c.other_orgs());
        c.graph.observe(&who, &format!("Used to work at {old}"));
        candidates.push(old.to_string());
    }
    Draft {
        goal: format!("{}{}", rng.pick(CONTACT_OPENERS), rng.pick(EMPLOYER_ASKS))
            .replace("{who}", &who),
        max_steps: 3,
        seed: c.graph.seed,
        tools: Memory::tools(&["read_graph", "search_nodes", "open_nodes", "get_entity"]),
        predicate: Pred::Answer(AnswerCheck::names(
            &org,
            candidates.iter().map(String::as_str),
        )),
        references: vec![vec![
            call::<Memory>("read_graph", json!({})),
            Step::Answer { answer: org },
        ]],
        faults: vec![],
        params: params(&[
            ("person", json!(who)),
            ("former_employer_noted", json!(former)),
        ]),
    }
}

/// Ways to ask for a link between two people, with `{from}`, the verb `{phrase}` and `{to}`.
const LINK_ASKS: &[&str] = &[
    "Remember that {from} {phrase} {to}.",
    "Note in my memory: {from} {phrase} {to}.",
    "For later: {from} {phrase} {to}. Please keep that in my memory.",
    "It turns out {from} {phrase} {to}; add that to what you remember about them.",
    "Please remember how {from} and {to} are connected: {from} {phrase} {to}.",
];

pub(super) fn link_entities(rng: &mut Rng) -> Draft<Memory> {
    let c = company(rng, 5, 2);
    let pair = rng.sample(&c.people, 2);
    let (from, to) = (&pair[0], &pair[1]);
    let kind = *rng.pick(&["mentors", "reports_to", "collaborates_with"]);
    let phrase = kind.replace('_', " ");
    Draft {
        goal: rng
            .pick(LINK_ASKS)
            .replace("{from}", from)
            .replace("{phrase}", &phrase)
            .replace("{to}", to),
        max_steps: 3,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "create_relations",
            "create_entities",
            "add_observations",
            "read_graph",
        ]),
        predicate: related(from, to, kind),
        references: vec![vec![call::<Memory>(
            "create_relations",
            json!({ "relations": [{ "from": from, "to": to, "relationType": kind }] }),
        )]],
        faults: vec![],
        params: params(&[
            ("from", json!(from)),
            ("to", json!(to)),
            ("relation", json!(kind)),
        ]),
    }
}

/// Ways to ask for someone to be forgotten, with `{who}`.
const FORGET_ASKS: &[&str] = &[
    "Forget {who} completely, along with every link between them and anyone else. Leave everything else as it is.",
    "Please drop {who} from my memory, connections included; nothing else should change.",
    "I no longer need anything about {who}: remove them and how they relate to others, and leave the rest alone.",
    "Wipe {who} from my memory entirely, links to other people too. Everyone else stays as they are.",
];

pub(super) fn forget_entity(rng: &mut Rng) -> Draft<Memory> {
    let c = company(rng, 5, 2);
    let who = rng.pick(&c.people).clone();
    let left = c.entity_count() - 1;
    Draft {
        goal: rng.pick(FORGET_ASKS).replace("{who}", &who),
        max_steps: 3,
        seed: c.graph.seed,
        tools: Memory::tools(&[
            "delete_entities",
            "delete_relations",
            "delete_observations",
            "read_graph",
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
        ]),
        references: vec![vec![call::<Memory>(
            "delete_entities",
            json!({ "entityNames": [who] }),
        )]],
        faults: vec![],
        params: params(&[("person", json!(who))]),
    }
}
