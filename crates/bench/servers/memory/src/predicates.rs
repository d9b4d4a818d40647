//! `memory.*` predicate atoms, over entity names exactly as stored (case-sensitive).
//! Observations compare exactly, or (`observationContains`) as free text holding a fact.

use crate::state::{Memory, Relation};
use mcpbench_sim::contains_phrase;
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
    /// The entity `entity` exists and one of its observations holds the phrase `text` as
    /// whole words, case, white space and punctuation at word edges aside ("Role: Design
    /// Lead." holds "design  lead", not "Lea").
    #[serde(rename = "memory.observationContains")]
    ObservationContains { entity: String, text: String },
    /// The entity `entity` exists and has exactly `count` observations.
    #[serde(rename = "memory.observationCount")]
    ObservationCount { entity: String, count: u32 },
    /// The graph holds exactly `count` entities (of type `entityType` when given). A seed's
    /// background adds as many as it expanded to of that type: `count` is what the seed's own
    /// entities and the task's changes make it.
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
            Atom::ObservationContains { entity, text } => m
                .entities
                .get(entity)
                .is_some_and(|e| e.observations.iter().any(|o| contains_phrase(o, text))),
            Atom::ObservationCount { entity, count } => m
                .entities
                .get(entity)
                .is_some_and(|e| e.observations.len() == *count as usize),
            Atom::EntityCount { count, entity_type } => {
                let counted = |t: &String| entity_type.as_ref().is_none_or(|want| t == want);
                let n = m
                    .entities
                    .values()
                    .filter(|e| counted(&e.entity_type))
                    .count();
                n == *count as usize + m.background.iter().filter(|t| counted(t)).count()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Entity, Seed};

    fn graph() -> Memory {
        let person = |name: &str, observations: &[&str]| Entity {
            name: name.into(),
            entity_type: "person".into(),
            observations: observations.iter().map(|o| o.to_string()).collect(),
        };
        let seed = Seed {
            entities: vec![
                person(
                    "Nora Vance",
                    &["Role: Design Lead.", "Works from Lisbon HQ (2nd floor)"],
                ),
                person("Felix Okoro", &["Engineering Manager"]),
                person("Amara Lindqvist", &[]),
            ],
            ..Seed::default()
        };
        Memory::from_seed(&seed).expect("a valid seed")
    }

    fn contains(entity: &str, text: &str) -> Atom {
        Atom::ObservationContains {
            entity: entity.into(),
            text: text.into(),
        }
    }

    #[test]
    fn observation_contains_ignores_case_spacing_and_edge_punctuation() {
        let m = graph();
        assert!(contains("Nora Vance", "Design Lead").holds(&m));
        assert!(contains("Nora Vance", "  design\tLEAD ").holds(&m));
        assert!(contains("Nora Vance", "role: design lead").holds(&m));
        assert!(contains("Nora Vance", "Lisbon HQ, 2nd floor").holds(&m));
        assert!(contains("Nora Vance", "2nd floor").holds(&m));
    }

    #[test]
    fn observation_contains_fails_on_other_facts_partial_words_and_other_entities() {
        let m = graph();
        assert!(!contains("Nora Vance", "Lisbon HQ, 4th floor").holds(&m));
        assert!(!contains("Nora Vance", "Design Lea").holds(&m));
        assert!(!contains("Felix Okoro", "Engineer").holds(&m));
        assert!(!contains("Felix Okoro", "Design Lead").holds(&m));
        // One observation must hold the whole phrase: none spans two.
        assert!(!contains("Nora Vance", "Design Lead Works").holds(&m));
        assert!(!contains("Amara Lindqvist", "Design Lead").holds(&m));
        assert!(!contains("Nobody", "Design Lead").holds(&m));
        assert!(!contains("Nora Vance", " . ").holds(&m));
    }

    #[test]
    fn observation_contains_reads_and_writes_its_json_form() {
        let atom = contains("Nora Vance", "Design Lead");
        let want = serde_json::json!({ "memory.observationContains": {
            "entity": "Nora Vance", "text": "Design Lead"
        } });
        assert_eq!(serde_json::to_value(&atom).unwrap(), want);
        assert_eq!(serde_json::from_value::<Atom>(want).unwrap(), atom);
    }
}
