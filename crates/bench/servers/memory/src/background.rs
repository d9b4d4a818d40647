//! A knowledge graph at the size a long-used memory server reaches: a hundred or more
//! entities (people, organisations, projects, places) with a few observations each and
//! relations among themselves, beside the task's own, written in the seed as a seed and a
//! count and expanded when the graph is built.
//!
//! The real server has no paging: `read_graph` returns everything, and the cost of reading it
//! all is the point. The background's names, places and facts belong to no template, so no
//! search for a name or fact a task gives finds one, and no relation joins a background entity
//! to a task's own, so every relation a task asks about is as the template made it.

use crate::state::{Entity, Relation};
use mcpbench_sim::Rng;
use mcpbench_sim::background::person;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The most background entities a seed may ask for.
pub const MAX_ENTITIES: u32 = 1_000;

/// `initial_state.memory.background`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The stream the entities are drawn from.
    pub seed: u32,
    /// How many entities, at most 1,000: people, organisations, projects and places.
    #[schemars(range(max = 1000))]
    pub entities: u32,
}

impl Background {
    /// A graph of 80 to 200 entities.
    pub fn draw(rng: &mut Rng) -> Self {
        Background {
            seed: rng.below(1 << 32) as u32,
            entities: rng.range(80, 200) as u32,
        }
    }
}

/// Places of background entities; no template names them.
pub const PLACES: &[&str] = &[
    "Tampere", "Ghent", "Trieste", "Bergen", "Aarhus", "Graz", "Cork", "Tartu", "Brno", "Leuven",
    "Malmo", "Utrecht",
];

/// The two halves of background organisations' names.
pub const ORG_FIRST: &[&str] = &[
    "Brightwater",
    "Kestrel",
    "Halden",
    "Quillon",
    "Sablewood",
    "Tidewell",
    "Orrin",
    "Larchmont",
    "Pellucid",
    "Ambergate",
    "Corvid",
    "Fernhill",
    "Marlow",
    "Northcote",
    "Saltmarsh",
];
pub const ORG_SECOND: &[&str] = &[
    "Analytics",
    "Logistics",
    "Foods",
    "Health",
    "Studio",
    "Energy",
    "Robotics",
    "Press",
    "Textiles",
    "Capital",
    "Ceramics",
    "Freight",
];

/// Code names and kinds of background projects: `Heron rollout`.
pub const CODE_NAMES: &[&str] = &[
    "Heron", "Juniper", "Basalt", "Cobalt", "Marigold", "Tundra", "Quartz", "Lantern", "Mistral",
    "Pebble", "Saffron", "Thistle", "Wren", "Yarrow", "Zephyr", "Osprey",
];
pub const PROJECT_KINDS: &[&str] = &[
    "rollout",
    "audit",
    "pilot",
    "migration",
    "redesign",
    "study",
    "refresh",
    "launch",
];

const PERSON_FACTS: &[&str] = &[
    "Prefers async updates",
    "Collects vinyl records",
    "Sings in a choir",
    "Is training for a triathlon",
    "Keeps bees",
    "Brews kombucha",
    "Writes a newsletter on typography",
    "Restores old motorcycles",
    "Volunteers at a food bank",
    "Is learning the accordion",
    "Reads science fiction on the train",
    "Has two cats",
];
const ORG_FACTS: &[&str] = &[
    "Pays invoices net 60",
    "Supplier of packaging materials",
    "Asked for a quote last spring",
    "Uses a reseller for licences",
    "Has a strict visitor policy",
];
const PROJECT_FACTS: &[&str] = &[
    "Status: on hold",
    "Status: shipped",
    "Status: in discovery",
    "Tracked in the yearly plan",
    "Weekly demo on Thursdays",
];
const PLACE_FACTS: &[&str] = &[
    "Two hours by train from headquarters",
    "Has a coworking space near the station",
    "Hosts a design meetup every spring",
];

/// The background's entities and the relations among them, to add to the seed's.
#[derive(Default)]
pub(crate) struct Expanded {
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
}

/// Adds an entity with one to four of `facts`.
fn add(rng: &mut Rng, out: &mut Expanded, name: String, kind: &str, facts: Vec<String>) {
    let k = rng.range(1, facts.len().min(4) as i64) as usize;
    out.entities.push(Entity {
        name,
        entity_type: kind.into(),
        observations: rng.sample(&facts, k),
    });
}

/// Expands `background` beside the seed's `taken` entities, whose names it never uses.
pub(crate) fn expand(background: &Background, taken: &BTreeMap<String, Entity>) -> Expanded {
    let mut rng = Rng::new(u64::from(background.seed), 0x6d65_6d6f);
    let n = background.entities.min(MAX_ENTITIES) as usize;
    let mut out = Expanded::default();
    let mut used: BTreeSet<String> = taken.keys().cloned().collect();
    let places_n = (n / 12).clamp(n.min(1), PLACES.len());
    let orgs_n = n / 6;
    let projects_n = n / 8;
    let places: Vec<String> = rng
        .sample(PLACES, places_n)
        .into_iter()
        .map(String::from)
        .filter(|p| used.insert(p.clone()))
        .collect();
    for p in &places {
        let facts = PLACE_FACTS.iter().map(|f| f.to_string()).collect();
        add(&mut rng, &mut out, p.clone(), "city", facts);
    }
    let mut fresh = |rng: &mut Rng, draw: &dyn Fn(&mut Rng) -> String| {
        (0..64)
            .map(|_| draw(rng))
            .find(|name| used.insert(name.clone()))
    };
    let mut orgs = Vec::new();
    for _ in 0..orgs_n {
        let name = |rng: &mut Rng| format!("{} {}", rng.pick(ORG_FIRST), rng.pick(ORG_SECOND));
        let Some(org) = fresh(&mut rng, &name) else {
            break;
        };
        let mut facts: Vec<String> = ORG_FACTS.iter().map(|f| f.to_string()).collect();
        facts.push(format!("Established {}", rng.range(1962, 2019)));
        facts.push(format!("Has about {} employees", 10 * rng.range(2, 90)));
        add(&mut rng, &mut out, org.clone(), "organization", facts);
        orgs.push(org);
    }
    let mut projects = Vec::new();
    for _ in 0..projects_n {
        let name = |rng: &mut Rng| format!("{} {}", rng.pick(CODE_NAMES), rng.pick(PROJECT_KINDS));
        let Some(project) = fresh(&mut rng, &name) else {
            break;
        };
        let mut facts: Vec<String> = PROJECT_FACTS.iter().map(|f| f.to_string()).collect();
        facts.push(format!("Budget: {}k EUR", 5 * rng.range(4, 60)));
        add(&mut rng, &mut out, project.clone(), "project", facts);
        projects.push(project);
    }
    let mut people = Vec::new();
    while out.entities.len() < n {
        let name = |rng: &mut Rng| {
            let (first, last) = person(rng);
            if rng.chance(1, 2) {
                format!("{first} {last}")
            } else {
                let initial = (b'A' + rng.below(26) as u8) as char;
                format!("{first} {initial}. {last}")
            }
        };
        let Some(who) = fresh(&mut rng, &name) else {
            break;
        };
        let mut facts: Vec<String> = PERSON_FACTS.iter().map(|f| f.to_string()).collect();
        if !places.is_empty() {
            facts.push(format!("Met at a conference in {}", rng.pick(&places)));
        }
        add(&mut rng, &mut out, who.clone(), "person", facts);
        people.push(who);
    }
    // Relations among the background only.
    let mut relations = BTreeSet::new();
    let mut relate = |from: &String, to: &String, kind: &str| {
        relations.insert(Relation {
            from: from.clone(),
            to: to.clone(),
            relation_type: kind.into(),
        });
    };
    for org in &orgs {
        if !places.is_empty() {
            relate(org, rng.pick(&places), "located_in");
        }
    }
    for p in &people {
        if !orgs.is_empty() && rng.chance(4, 5) {
            relate(p, rng.pick(&orgs), "works_at");
        }
        if people.len() > 1 && rng.chance(1, 3) {
            let other = rng.pick(&people);
            if other != p {
                relate(p, other, "knows");
            }
        }
    }
    for project in &projects {
        if !people.is_empty() {
            relate(rng.pick(&people), project, "leads");
        }
        if !orgs.is_empty() && rng.chance(1, 2) {
            relate(project, rng.pick(&orgs), "sponsored_by");
        }
    }
    out.relations = relations.into_iter().collect();
    out
}
