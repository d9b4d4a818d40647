//! Template grammars for tasks on the knowledge graph alone. Names, types, relation types and
//! observation texts come from bounded pools; goals state each of them exactly, and
//! predicates check exactly what the goal fixes.

mod composition;
mod recovery;
mod single;

use crate::{Atom, Memory};
use mcpbench_sim::{Category, Difficulty, Pred, Template};

pub(crate) fn all() -> Vec<Template<Memory>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "memory.remember_person",
            category: SingleTool,
            difficulty: Easy,
            build: single::remember_person,
        },
        Template {
            id: "memory.add_fact",
            category: SingleTool,
            difficulty: Easy,
            build: single::add_fact,
        },
        Template {
            id: "memory.employer_lookup",
            category: SingleTool,
            difficulty: Easy,
            build: single::employer_lookup,
        },
        Template {
            id: "memory.link_entities",
            category: SingleTool,
            difficulty: Medium,
            build: single::link_entities,
        },
        Template {
            id: "memory.forget_entity",
            category: SingleTool,
            difficulty: Medium,
            build: single::forget_entity,
        },
        Template {
            id: "memory.record_meeting",
            category: Composition,
            difficulty: Medium,
            build: composition::record_meeting,
        },
        Template {
            id: "memory.correct_observation",
            category: Composition,
            difficulty: Medium,
            build: composition::correct_observation,
        },
        Template {
            id: "memory.change_employer",
            category: Composition,
            difficulty: Hard,
            build: composition::change_employer,
        },
        Template {
            id: "memory.note_employer_city",
            category: Composition,
            difficulty: Hard,
            build: composition::note_employer_city,
        },
        Template {
            id: "memory.count_after_outage",
            category: Recovery,
            difficulty: Easy,
            build: recovery::count_after_outage,
        },
        Template {
            id: "memory.relate_missing_entity",
            category: Recovery,
            difficulty: Medium,
            build: recovery::relate_missing_entity,
        },
        Template {
            id: "memory.offboard_with_timeouts",
            category: Recovery,
            difficulty: Hard,
            build: recovery::offboard_with_timeouts,
        },
    ]
}

pub(crate) use mcpbench_sim::params;
pub(crate) use mcpbench_sim::{Kit, atom, not};

fn exists(name: &str, entity_type: &str) -> Pred<Atom> {
    atom(Atom::EntityExists {
        name: name.into(),
        entity_type: Some(entity_type.into()),
    })
}

fn related(from: &str, to: &str, relation_type: &str) -> Pred<Atom> {
    atom(Atom::RelationExists {
        from: from.into(),
        to: to.into(),
        relation_type: relation_type.into(),
    })
}

fn observed(entity: &str, observation: &str) -> Pred<Atom> {
    atom(Atom::HasObservation {
        entity: entity.into(),
        observation: observation.into(),
    })
}

fn observation_count(entity: &str, count: usize) -> Pred<Atom> {
    atom(Atom::ObservationCount {
        entity: entity.into(),
        count: count as u32,
    })
}
