//! The tools of the reference knowledge-graph memory server, with its names and argument names
//! (`create_entities`, `add_observations`, `open_nodes`, ...), plus two near-duplicates:
//! `update_entity_type`, and `get_entity`, a deprecated lookup that shows no relations.
//!
//! Where the reference server quietly skips (an entity that exists already, a relation listed
//! twice, a deletion of something absent), this one skips too but says so in its result.
//! Relations must join existing entities: a missing end is `not_found` and nothing is created.

use crate::state::{Entity, Memory, Relation, entity_usage, relation_usage, total};
use mcpbench_sim::{Tool, ToolBox, ToolError, Usage};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

type Out = Result<Value, ToolError>;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NewEntity {
    /// The entity's name, its unique identifier.
    #[schemars(length(min = 1, max = 200))]
    name: String,
    /// The type of the entity (person, organization, city, project, ...).
    #[schemars(length(min = 1, max = 100))]
    entity_type: String,
    /// Atomic facts about the entity, one per string.
    #[schemars(length(max = 100), inner(length(min = 1, max = 1000)))]
    observations: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateEntities {
    /// The entities to create.
    #[schemars(length(min = 1, max = 50))]
    entities: Vec<NewEntity>,
}

#[derive(Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RelationArg {
    /// The name of the entity the relation starts at.
    #[schemars(length(min = 1, max = 200))]
    from: String,
    /// The name of the entity the relation ends at.
    #[schemars(length(min = 1, max = 200))]
    to: String,
    /// The relation type, in active voice (works_at, knows, located_in).
    #[schemars(length(min = 1, max = 100))]
    relation_type: String,
}

impl RelationArg {
    fn relation(&self) -> Relation {
        Relation {
            from: self.from.clone(),
            to: self.to.clone(),
            relation_type: self.relation_type.clone(),
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Relations {
    /// The relations.
    #[schemars(length(min = 1, max = 50))]
    relations: Vec<RelationArg>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NewObservations {
    /// The name of the entity to add the observations to.
    #[schemars(length(min = 1, max = 200))]
    entity_name: String,
    /// The observations to add.
    #[schemars(length(min = 1, max = 50), inner(length(min = 1, max = 1000)))]
    contents: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddObservations {
    /// Observations to add, grouped by entity.
    #[schemars(length(min = 1, max = 50))]
    observations: Vec<NewObservations>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DeleteEntities {
    /// The names of the entities to delete.
    #[schemars(length(min = 1, max = 50), inner(length(min = 1, max = 200)))]
    entity_names: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Deletion {
    /// The name of the entity holding the observations.
    #[schemars(length(min = 1, max = 200))]
    entity_name: String,
    /// The exact observations to delete.
    #[schemars(length(min = 1, max = 50), inner(length(max = 1000)))]
    observations: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeleteObservations {
    /// Observations to delete, grouped by entity.
    #[schemars(length(min = 1, max = 50))]
    deletions: Vec<Deletion>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchNodes {
    /// Text to look for in entity names, types and observations (case-insensitive).
    #[schemars(length(min = 1, max = 200))]
    query: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OpenNodes {
    /// The names of the entities to retrieve.
    #[schemars(length(min = 1, max = 50), inner(length(min = 1, max = 200)))]
    names: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UpdateType {
    /// The name of the entity.
    #[schemars(length(min = 1, max = 200))]
    name: String,
    /// Its new type.
    #[schemars(length(min = 1, max = 100))]
    entity_type: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetEntity {
    /// The name of the entity.
    #[schemars(length(min = 1, max = 200))]
    name: String,
}

fn create_entities(m: &mut Memory, a: CreateEntities) -> Out {
    let (mut created, mut existing): (Vec<Entity>, Vec<String>) = (Vec::new(), Vec::new());
    for e in a.entities {
        if m.entities.contains_key(&e.name) || created.iter().any(|c| c.name == e.name) {
            existing.push(e.name);
            continue;
        }
        let mut observations: Vec<String> = Vec::new();
        for o in e.observations {
            if !observations.contains(&o) {
                observations.push(o);
            }
        }
        created.push(Entity {
            name: e.name,
            entity_type: e.entity_type,
            observations,
        });
    }
    let adding = total(created.iter().map(entity_usage));
    m.ledger.admit(adding)?;
    for e in &created {
        m.entities.insert(e.name.clone(), e.clone());
    }
    m.ledger.add(adding);
    let mut out = json!({ "created": created });
    if !existing.is_empty() {
        out["skipped"] = json!(existing);
        out["note"] = json!(
            "skipped entities already exist and were left unchanged; use add_observations to add facts to them"
        );
    }
    Ok(out)
}

fn create_relations(m: &mut Memory, a: Relations) -> Out {
    for r in &a.relations {
        for end in [&r.from, &r.to] {
            m.entity(end).map_err(|e| {
                ToolError::not_found(format!(
                    "{}; create the entity before relating it (nothing was created)",
                    e.message
                ))
            })?;
        }
    }
    let fresh: BTreeSet<Relation> = a
        .relations
        .iter()
        .map(RelationArg::relation)
        .filter(|r| !m.relations.contains(r))
        .collect();
    // The relations the loop below inserts are exactly `fresh`.
    let adding = total(fresh.iter().map(relation_usage));
    m.ledger.admit(adding)?;
    let (mut created, mut existing) = (Vec::new(), Vec::new());
    for r in a.relations.iter().map(RelationArg::relation) {
        if m.relations.insert(r.clone()) {
            created.push(r)
        } else {
            existing.push(r)
        }
    }
    m.ledger.add(adding);
    let mut out = json!({ "created": created });
    if !existing.is_empty() {
        out["skipped"] = json!(existing);
    }
    Ok(out)
}

fn add_observations(m: &mut Memory, a: AddObservations) -> Out {
    for o in &a.observations {
        m.entity(&o.entity_name)?;
    }
    // Applied to copies first, so that a graph too full for them changes nothing.
    let mut changed: BTreeMap<String, Entity> = BTreeMap::new();
    let mut results = Vec::new();
    for o in a.observations {
        let e = changed
            .entry(o.entity_name.clone())
            .or_insert_with(|| m.entities[&o.entity_name].clone());
        let mut added = Vec::new();
        for c in o.contents {
            if !e.observations.contains(&c) {
                e.observations.push(c.clone());
                added.push(c);
            }
        }
        results.push(json!({ "entityName": o.entity_name, "addedObservations": added }));
    }
    let before = total(changed.keys().map(|name| entity_usage(&m.entities[name])));
    let after = total(changed.values().map(entity_usage));
    m.ledger.admit_change(before, after)?;
    m.entities.extend(changed);
    m.ledger.change(before, after);
    Ok(Value::Array(results))
}

fn delete_entities(m: &mut Memory, a: DeleteEntities) -> Out {
    let (mut deleted, mut missing) = (Vec::new(), Vec::new());
    let mut removed = Usage::default();
    for name in a.entity_names {
        if let Some(e) = m.entities.remove(&name) {
            removed = removed + entity_usage(&e);
            deleted.push(name);
        } else if !deleted.contains(&name) {
            missing.push(name);
        }
    }
    let before = m.relations.len();
    m.relations.retain(|r| {
        let keep = !deleted.contains(&r.from) && !deleted.contains(&r.to);
        if !keep {
            removed = removed + relation_usage(r);
        }
        keep
    });
    m.ledger.remove(removed);
    let mut text = format!(
        "Deleted {} entities ({}) and {} relations attached to them.",
        deleted.len(),
        deleted.join(", "),
        before - m.relations.len()
    );
    if !missing.is_empty() {
        text.push_str(&format!(
            " Not found, nothing done: {}.",
            missing.join(", ")
        ));
    }
    Ok(Value::String(text))
}

fn delete_observations(m: &mut Memory, a: DeleteObservations) -> Out {
    let (mut count, mut missing) = (0, Vec::new());
    for d in a.deletions {
        match m.entities.get_mut(&d.entity_name) {
            Some(e) => {
                let before = entity_usage(e);
                e.observations.retain(|o| !d.observations.contains(o));
                let after = entity_usage(e);
                count += before.records - after.records;
                m.ledger.change(before, after);
            }
            None => missing.push(d.entity_name),
        }
    }
    let mut text = format!("Deleted {count} observations.");
    if !missing.is_empty() {
        text.push_str(&format!(" Entities not found: {}.", missing.join(", ")));
    }
    Ok(Value::String(text))
}

fn delete_relations(m: &mut Memory, a: Relations) -> Out {
    let mut count = 0;
    for r in a.relations.iter().map(RelationArg::relation) {
        if m.relations.remove(&r) {
            m.ledger.remove(relation_usage(&r));
            count += 1;
        }
    }
    Ok(Value::String(format!(
        "Deleted {count} of {} relations given.",
        a.relations.len()
    )))
}

fn read_graph(m: &Memory, _: NoArgs) -> Out {
    Ok(m.snapshot())
}

fn search_nodes(m: &Memory, a: SearchNodes) -> Out {
    let q = a.query.to_lowercase();
    let hit = |e: &Entity| {
        e.name.to_lowercase().contains(&q)
            || e.entity_type.to_lowercase().contains(&q)
            || e.observations.iter().any(|o| o.to_lowercase().contains(&q))
    };
    let names: BTreeSet<&str> = m
        .entities
        .values()
        .filter(|e| hit(e))
        .map(|e| e.name.as_str())
        .collect();
    Ok(m.subgraph(&names))
}

fn open_nodes(m: &Memory, a: OpenNodes) -> Out {
    let names: BTreeSet<&str> = a.names.iter().map(String::as_str).collect();
    Ok(m.subgraph(&names))
}

fn update_entity_type(m: &mut Memory, a: UpdateType) -> Out {
    let old = m.entity(&a.name)?;
    let new = Entity {
        entity_type: a.entity_type,
        ..old.clone()
    };
    let (before, after) = (entity_usage(old), entity_usage(&new));
    m.ledger.admit_change(before, after)?;
    let out = json!(new);
    m.entities.insert(a.name, new);
    m.ledger.change(before, after);
    Ok(out)
}

fn get_entity(m: &Memory, a: GetEntity) -> Out {
    Ok(json!(m.entity(&a.name)?))
}

pub(crate) static TOOLS: LazyLock<ToolBox<Memory>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::write(
            "create_entities",
            "Create multiple new entities in the knowledge graph. Entities whose name already exists are skipped, not changed. A run's knowledge graph holds at most 20,000 entities, observations and relations and 4 MiB in all.",
            create_entities,
        ),
        Tool::write(
            "create_relations",
            "Create multiple new relations between existing entities. Relations should be in active voice (works_at, knows). Duplicates are skipped. A run's knowledge graph holds at most 20,000 entities, observations and relations and 4 MiB in all.",
            create_relations,
        ),
        Tool::write(
            "add_observations",
            "Add new observations to existing entities in the knowledge graph. Observations already present are not repeated. A run's knowledge graph holds at most 20,000 entities, observations and relations and 4 MiB in all.",
            add_observations,
        ),
        Tool::write(
            "delete_entities",
            "Delete multiple entities and every relation that starts or ends at them.",
            delete_entities,
        ),
        Tool::write(
            "delete_observations",
            "Delete specific observations (exact text) from entities.",
            delete_observations,
        ),
        Tool::write(
            "delete_relations",
            "Delete multiple relations, each given by from, to and relationType exactly.",
            delete_relations,
        ),
        Tool::read(
            "read_graph",
            "Read the entire knowledge graph: every entity with its observations, and every relation.",
            read_graph,
        ),
        Tool::read(
            "search_nodes",
            "Search for entities whose name, type or observations contain the query (case-insensitive). Returns those entities and only the relations between two of them.",
            search_nodes,
        ),
        Tool::read(
            "open_nodes",
            "Retrieve specific entities by name. Returns those entities and only the relations between two of them; unknown names are left out.",
            open_nodes,
        ),
        Tool::write(
            "update_entity_type",
            "Change the entityType of one existing entity; its name, observations and relations stay. A run's knowledge graph holds at most 20,000 entities, observations and relations and 4 MiB in all.",
            update_entity_type,
        ),
        Tool::read(
            "get_entity",
            "Deprecated: retrieve one entity by name, without any relations. Use open_nodes.",
            get_entity,
        ),
    ])
});
