//! The knowledge graph, its seed, and the rules the tools share.

use crate::background::{self, Background, MAX_ENTITIES};
use mcpbench_sim::{Capacity, Ledger, SeedError, ToolError, Usage, footprint};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// `initial_state.memory`: the graph as the reference server stores it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<Entity>,
    /// Relations between entities of `entities`, each at most once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relations: Vec<Relation>,
    /// A graph grown over months beside `entities`, expanded when the graph is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
}

/// A node: a unique name, a type, and atomic facts about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Entity {
    pub name: String,
    /// `person`, `organization`, `city`, `project`, ...
    pub entity_type: String,
    #[serde(default)]
    pub observations: Vec<String>,
}

/// A directed edge, its type in active voice (`works_at`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Relation {
    pub from: String,
    pub to: String,
    pub relation_type: String,
}

/// What a run's graph holds at most: a hundred times a seed; a handful of the largest calls
/// the tools take (50 entities of 100 observations each) fill it.
pub const GRAPH: Capacity = Capacity {
    store: "knowledge graph",
    records: 20_000,
    noun: "entities, observations and relations",
    bytes: 4 << 20,
};

/// The simulated server: entities by name, relations in sorted order.
#[derive(Clone, Debug)]
pub struct Memory {
    pub(crate) entities: BTreeMap<String, Entity>,
    pub(crate) relations: BTreeSet<Relation>,
    /// The type of every entity the background expanded to, which `memory.entityCount`
    /// counts beside the seed's own (a task cannot know them).
    pub(crate) background: Vec<String>,
    /// What the graph holds against [`GRAPH`], kept as each write changes it.
    pub(crate) ledger: Ledger,
}

impl Memory {
    pub(crate) fn from_seed(seed: &Seed) -> Result<Self, SeedError> {
        let bad = |m: String| SeedError::new("memory", m);
        if let Some(b) = seed.background.filter(|b| b.entities > MAX_ENTITIES) {
            return Err(bad(format!(
                "a background of {} entities is more than the {MAX_ENTITIES} a graph may hold",
                b.entities
            )));
        }
        let mut entities = BTreeMap::new();
        for e in &seed.entities {
            if e.name.trim().is_empty() || e.entity_type.trim().is_empty() {
                return Err(bad(format!(
                    "entity {:?} needs a name and an entityType",
                    e.name
                )));
            }
            let distinct: BTreeSet<&String> = e.observations.iter().collect();
            if distinct.len() != e.observations.len() {
                return Err(bad(format!("entity {} lists an observation twice", e.name)));
            }
            if entities.insert(e.name.clone(), e.clone()).is_some() {
                return Err(bad(format!("entity {} is defined twice", e.name)));
            }
        }
        let mut relations = BTreeSet::new();
        for r in &seed.relations {
            for end in [&r.from, &r.to] {
                if !entities.contains_key(end) {
                    return Err(bad(format!(
                        "relation {} -{}-> {} names the unknown entity {end}",
                        r.from, r.relation_type, r.to
                    )));
                }
            }
            if r.relation_type.trim().is_empty() || !relations.insert(r.clone()) {
                return Err(bad(format!(
                    "relation {} -{}-> {} is empty or listed twice",
                    r.from, r.relation_type, r.to
                )));
            }
        }
        let expanded = match &seed.background {
            Some(b) => background::expand(b, &entities),
            None => background::Expanded::default(),
        };
        let background = expanded
            .entities
            .iter()
            .map(|e| e.entity_type.clone())
            .collect();
        for e in expanded.entities {
            entities.insert(e.name.clone(), e);
        }
        relations.extend(expanded.relations);
        let mut memory = Memory {
            entities,
            relations,
            background,
            ledger: Ledger::new(GRAPH, Usage::default()),
        };
        memory.ledger = Ledger::new(GRAPH, memory.measure());
        Ok(memory)
    }

    /// What the graph holds, measured from scratch: the sum of [`entity_usage`] and
    /// [`relation_usage`] over every entity and relation. Only the state's build and
    /// [`audit`](mcpbench_sim::Simulated::audit) measure; a write moves [`Memory::ledger`] by
    /// what it changed.
    pub(crate) fn measure(&self) -> Usage {
        let entities = self.entities.values().map(entity_usage);
        let relations = self.relations.iter().map(relation_usage);
        total(entities.chain(relations))
    }

    pub(crate) fn entity(&self, name: &str) -> Result<&Entity, ToolError> {
        self.entities.get(name).ok_or_else(|| {
            let near: Vec<&String> = self
                .entities
                .keys()
                .filter(|k| k.eq_ignore_ascii_case(name))
                .collect();
            let hint = match near.first() {
                Some(k) => format!("; names are case-sensitive, did you mean {k:?}?"),
                None => String::new(),
            };
            ToolError::not_found(format!("Entity with name {name:?} not found{hint}"))
        })
    }

    /// The entities named in `names` (in name order) and the relations between them.
    pub(crate) fn subgraph(&self, names: &BTreeSet<&str>) -> Value {
        let entities: Vec<&Entity> = self
            .entities
            .values()
            .filter(|e| names.contains(e.name.as_str()))
            .collect();
        let relations: Vec<&Relation> = self
            .relations
            .iter()
            .filter(|r| names.contains(r.from.as_str()) && names.contains(r.to.as_str()))
            .collect();
        json!({ "entities": entities, "relations": relations })
    }

    pub(crate) fn snapshot(&self) -> Value {
        json!({
            "entities": self.entities.values().collect::<Vec<_>>(),
            "relations": self.relations,
        })
    }
}

/// What one entity costs the graph: a record for it and one for each observation, and the bytes
/// of the entity (observations included) plus those of its name again, the key it is stored
/// under.
pub(crate) fn entity_usage(e: &Entity) -> Usage {
    Usage {
        records: 1 + e.observations.len(),
        bytes: footprint(&e.name) + footprint(e),
    }
}

/// What one relation costs the graph: one record, its bytes.
pub(crate) fn relation_usage(r: &Relation) -> Usage {
    Usage::of(1, r)
}

/// The sum of many usages.
pub(crate) fn total(usages: impl IntoIterator<Item = Usage>) -> Usage {
    usages.into_iter().fold(Usage::default(), |a, b| a + b)
}
