//! `memory.*` predicate atoms, over entity names exactly as stored (case-sensitive).
//! Observations compare exactly, or (`observationContains`) as free text holding a fact.
//! Entity and relation types compare as kinds: case and the way words are joined aside
//! (`reports_to`, `reports to`, `Reports-To` and `reportsTo` are one kind), so that a goal
//! can say "Kofi reports to Omar" as a user would and an agent's spelling of the verb is not
//! held against it.

use crate::state::Memory;
use mcpbench_sim::contains_phrase;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Atom {
    /// An entity named `name` exists, of the kind `entityType` when given (a kind compares
    /// with case and the joining of its words aside: `Person` is `person`).
    #[serde(rename = "memory.entityExists", rename_all = "camelCase")]
    EntityExists {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entity_type: Option<String>,
    },
    /// A relation from `from` to `to` of the kind `relationType` exists (`reports to`,
    /// `Reports-To` and `reportsTo` are the kind `reports_to`; the direction counts).
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
    /// The graph holds exactly `count` entities (of the kind `entityType` when given). A seed's
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
            Atom::EntityExists { name, entity_type } => m.entities.get(name).is_some_and(|e| {
                entity_type
                    .as_ref()
                    .is_none_or(|t| same_kind(&e.entity_type, t))
            }),
            Atom::RelationExists {
                from,
                to,
                relation_type,
            } => m.relations.iter().any(|r| {
                r.from == *from && r.to == *to && same_kind(&r.relation_type, relation_type)
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
                let counted =
                    |t: &String| entity_type.as_ref().is_none_or(|want| same_kind(t, want));
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

/// Whether two type names name one kind: lower-cased, with every run of other characters and
/// every lower-to-upper case step read as one `_` (`reportsTo`, `Reports To` -> `reports_to`).
pub(crate) fn same_kind(a: &str, b: &str) -> bool {
    kind(a) == kind(b)
}

fn kind(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower {
                out.push('_');
            }
            out.extend(c.to_lowercase());
            prev_lower = c.is_lowercase() || c.is_numeric();
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    out.trim_end_matches('_').to_string()
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

    #[test]
    fn kinds_compare_whatever_the_case_and_the_joins() {
        for spelled in [
            "reports_to",
            "reports to",
            "Reports-To",
            "reportsTo",
            " REPORTS  TO ",
        ] {
            assert!(same_kind(spelled, "reports_to"), "{spelled}");
        }
        assert!(same_kind("Person", "person"));
        assert!(!same_kind("reports", "reports_to"));
        assert!(!same_kind("reportsto", "reports_to"));
        assert!(!same_kind("mentored_by", "mentors"));
        assert!(!same_kind("", "person"));
    }

    #[test]
    fn a_relation_holds_under_any_spelling_of_its_kind_and_in_its_direction_only() {
        let mut m = graph();
        let args = serde_json::json!({ "relations": [
            { "from": "Nora Vance", "to": "Felix Okoro", "relationType": "Reports To" }
        ] });
        mcpbench_sim::Server::call(&mut m, "create_relations", &args).unwrap();
        let rel = |from: &str, to: &str, kind: &str| Atom::RelationExists {
            from: from.into(),
            to: to.into(),
            relation_type: kind.into(),
        };
        assert!(rel("Nora Vance", "Felix Okoro", "reports_to").holds(&m));
        assert!(!rel("Felix Okoro", "Nora Vance", "reports_to").holds(&m));
        assert!(!rel("Nora Vance", "Felix Okoro", "mentors").holds(&m));
    }
}
