//! A builder of small knowledge graphs for templates, this server's and cross-server ones:
//! people working at organisations located in cities, with a few facts and acquaintances.

use crate::state::{Entity, Relation, Seed};
use mcpbench_sim::Rng;
use std::collections::BTreeMap;

pub const PEOPLE: &[&str] = &[
    "Ada Park",
    "Omar Haddad",
    "Li Wei",
    "Priya Nair",
    "Jonas Berg",
    "Mei Tanaka",
    "Tariq Aziz",
    "Ines Moreau",
    "Kofi Mensah",
    "Sven Olsen",
    "Lucia Romero",
    "Dev Patel",
];

/// Organisation names; none is a prefix or a word of another.
pub const ORGS: &[&str] = &[
    "Acme Corp",
    "Globex",
    "Initech",
    "Vandelay Industries",
    "Hooli",
    "Wonka Labs",
    "Cyberdyne Systems",
    "Tyrell Corp",
];

pub const CITIES: &[&str] = &[
    "Lisbon", "Porto", "Berlin", "Oslo", "Nairobi", "Toronto", "Osaka", "Lyon",
];

/// Facts about people that mention no organisation or city.
pub const FACTS: &[&str] = &[
    "Speaks Portuguese",
    "Prefers morning meetings",
    "Has a dog named Pixel",
    "Runs marathons",
    "Is vegetarian",
    "Plays the cello",
    "Is allergic to peanuts",
    "Is learning Japanese",
    "Enjoys hiking",
    "Drinks tea, not coffee",
    "Commutes by bike",
    "Mentors new hires",
];

/// A graph being built.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub seed: Seed,
}

impl Graph {
    pub fn entity(&mut self, name: &str, entity_type: &str, observations: &[&str]) {
        self.seed.entities.push(Entity {
            name: name.into(),
            entity_type: entity_type.into(),
            observations: observations.iter().map(|o| o.to_string()).collect(),
        });
    }

    pub fn relate(&mut self, from: &str, to: &str, relation_type: &str) {
        self.seed.relations.push(Relation {
            from: from.into(),
            to: to.into(),
            relation_type: relation_type.into(),
        });
    }

    /// Adds an observation to an entity already added.
    pub fn observe(&mut self, name: &str, observation: &str) {
        let e = self
            .seed
            .entities
            .iter_mut()
            .find(|e| e.name == name)
            .expect("an entity of this graph");
        e.observations.push(observation.into());
    }

    /// The observations of an entity already added.
    pub fn observations(&self, name: &str) -> &[String] {
        &self
            .seed
            .entities
            .iter()
            .find(|e| e.name == name)
            .expect("an entity of this graph")
            .observations
    }

    pub fn has_relation(&self, from: &str, to: &str, relation_type: &str) -> bool {
        self.seed
            .relations
            .iter()
            .any(|r| r.from == from && r.to == to && r.relation_type == relation_type)
    }
}

/// A company graph: who works where, and where each organisation is.
#[derive(Clone, Debug)]
pub struct Company {
    pub graph: Graph,
    /// People in the graph, in the order they were added.
    pub people: Vec<String>,
    pub orgs: Vec<String>,
    /// Person -> the organisation they work at (`works_at`).
    pub employer: BTreeMap<String, String>,
    /// Organisation -> its city (`located_in`).
    pub city: BTreeMap<String, String>,
}

impl Company {
    /// People not in the graph, to add as new ones.
    pub fn outsiders(&self) -> Vec<&'static str> {
        PEOPLE
            .iter()
            .copied()
            .filter(|p| !self.people.iter().any(|q| q == p))
            .collect()
    }

    /// Organisations not in the graph.
    pub fn other_orgs(&self) -> Vec<&'static str> {
        ORGS.iter()
            .copied()
            .filter(|o| !self.orgs.iter().any(|q| q == o))
            .collect()
    }

    pub fn entity_count(&self) -> u32 {
        self.graph.seed.entities.len() as u32
    }
}

/// `people` people (1-2 facts each) working at `orgs` organisations, each organisation
/// located in its own city, and a couple of `knows` relations.
pub fn company(rng: &mut Rng, people: usize, orgs: usize) -> Company {
    let mut g = Graph::default();
    let names: Vec<String> = rng
        .sample(PEOPLE, people)
        .into_iter()
        .map(String::from)
        .collect();
    let org_names: Vec<String> = rng
        .sample(ORGS, orgs)
        .into_iter()
        .map(String::from)
        .collect();
    let cities = rng.sample(CITIES, orgs);
    let mut city = BTreeMap::new();
    for (o, c) in org_names.iter().zip(&cities) {
        let founded = format!("Founded in {}", rng.range(1950, 2015));
        g.entity(o, "organization", &[&founded]);
        g.entity(c, "city", &[]);
        g.relate(o, c, "located_in");
        city.insert(o.clone(), c.to_string());
    }
    let mut employer = BTreeMap::new();
    for (i, p) in names.iter().enumerate() {
        let n = rng.range(1, 2) as usize;
        let facts = rng.sample(FACTS, n);
        g.entity(p, "person", &facts);
        // Every organisation gets at least one employee when there are enough people.
        let org = if i < org_names.len() {
            &org_names[i]
        } else {
            rng.pick(&org_names)
        };
        g.relate(p, org, "works_at");
        employer.insert(p.clone(), org.clone());
    }
    for _ in 0..2.min(people / 2) {
        let pair = rng.sample(&names, 2);
        if !g.has_relation(&pair[0], &pair[1], "knows") {
            g.relate(&pair[0], &pair[1], "knows");
        }
    }
    Company {
        graph: g,
        people: names,
        orgs: org_names,
        employer,
        city,
    }
}

/// A small fixed graph: four people at two organisations in two cities.
pub fn sample_seed() -> Seed {
    company(&mut Rng::new(11, 0), 4, 2).graph.seed
}
