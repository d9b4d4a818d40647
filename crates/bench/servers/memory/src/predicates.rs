//! `memory.*` predicate atoms, over entity names exactly as stored (case-sensitive).

use crate::state::{Memory, Relation};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Atom {
    /// An entity named `name` exists, of type `entityType` when given.
    #[serde(rename = "memory.entityExists", rename_all = "camelCase")]
    EntityExists {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entity_type: Option<String>,
    },
    /// The relation `from` -`relationType`-> `to` exists.
    #[serde(rename = "memory.relationExists", rename_all = "camelCase")]
    RelationExists {
        from: String,
        to: String,
        relation_type: String,
    },
    /// The entity `entity` exists and has exactly the observation `observation`.
    #[serde(rename = "memory.hasObservation")]
    HasObservation { entity: String, observation: String },
    /// The entity `entity` exists and has exactly `count` observations.
    #[serde(rename = "memory.observationCount")]
    ObservationCount { entity: String, count: u32 },
    /// The graph holds exactly `count` entities (of type `entityType` when given).
    #[serde(rename = "memory.entityCount", rename_all = "camelCase")]
    EntityCount {
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entity_type: Option<String>,
    },
}

impl Atom {
    pub(crate) fn holds(&self, m: &Memory) -> bool {
        match self {
            Atom::EntityExists { name, entity_type } => m
                .entities
                .get(name)
                .is_some_and(|e| entity_type.as_ref().is_none_or(|t| e.entity_type == *t)),
            Atom::RelationExists {
                from,
                to,
                relation_type,
            } => m.relations.contains(&Relation {
                from: from.clone(),
                to: to.clone(),
                relation_type: relation_type.clone(),
            }),
            Atom::HasObservation {
                entity,
                observation,
            } => m
                .entities
                .get(entity)
                .is_some_and(|e| e.observations.contains(observation)),
            Atom::ObservationCount { entity, count } => m
                .entities
                .get(entity)
                .is_some_and(|e| e.observations.len() == *count as usize),
            Atom::EntityCount { count, entity_type } => {
                let n = m
                    .entities
                    .values()
                    .filter(|e| entity_type.as_ref().is_none_or(|t| e.entity_type == *t))
                    .count();
                n == *count as usize
            }
        }
    }
}
