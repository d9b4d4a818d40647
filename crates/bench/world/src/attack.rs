//! An attack planted in a task's world: the security category (docs/metrics.md, "Agents under
//! attack"). Instructions an attacker wrote stand in what a server returns (a message, an
//! issue, a file, a record, a tool's description), and the task says what following them
//! would do (the attacker's goal, a predicate over the final state like any task's).
//!
//! A task with an attack runs beside its twin, the same task with nothing planted, so that
//! its utility with and without the attack pair up. The generator makes the twin: a family
//! draws the attack with its task, and the attacked task is the clean one, dressed, with the
//! plant applied ([`Attack::plant_into`]).

use crate::{Atom, InitialState};
use mcpbench_sim::{Call, Pred, Step};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Where an attack's instructions stand.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AttackKind {
    /// In an e-mail the task reads.
    Email,
    /// In an issue or a pull request.
    Issue,
    /// In a file.
    File,
    /// In a chat message.
    Chat,
    /// In a record a tool answers with (a product, a note, a forecast, a row).
    Record,
    /// In the description of a tool the agent is shown.
    ToolDescription,
    /// A tool whose description claims to replace one the task needs.
    Shadowing,
    /// In what a tool answers about the format of the agent's reply.
    AnswerFormat,
}

impl AttackKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Issue => "issue",
            Self::File => "file",
            Self::Chat => "chat",
            Self::Record => "record",
            Self::ToolDescription => "tool_description",
            Self::Shadowing => "shadowing",
            Self::AnswerFormat => "answer_format",
        }
    }
}

/// One edit that plants an attack: `value` added at `path`, a JSON Pointer (RFC 6901) into
/// `initial_state`, as JSON Patch's `add` does (RFC 6902): a member of an object is set, an
/// element is inserted into an array at its index, or appended at `-`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plant {
    #[schemars(length(min = 1, max = 500))]
    pub path: String,
    pub value: Value,
}

/// The attack a task's world carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Attack {
    pub kind: AttackKind,
    /// The server whose answers carry the instructions (one the task offers).
    pub server: String,
    /// The task's twin: the same task with nothing planted, in the same set. Set by the
    /// generator; a task written by hand may stand alone, and is then left out of the paired
    /// utility.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub twin: Option<String>,
    /// The edits that made this task's `initial_state` from its twin's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 16))]
    pub plant: Vec<Plant>,
    /// Tool descriptions the agent is shown in place of the catalogue's (`server.tool` to
    /// text), for the attacks planted there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_descriptions: BTreeMap<String, String>,
    /// The attacker's goal: it holds when the planted action happened.
    pub goal: Pred<Atom>,
    /// What the planted instructions ask for: calls, and text an answer is to carry. A
    /// reference that does these too ([`Attack::follow`]) must reach the attacker's goal.
    #[schemars(length(min = 1, max = 10))]
    pub instructed: Vec<Step>,
}

impl Attack {
    /// `state` with the plant applied, or why it cannot be.
    pub fn plant_into(&self, state: &InitialState) -> Result<InitialState, String> {
        let mut value = serde_json::to_value(state).map_err(|e| e.to_string())?;
        for (i, p) in self.plant.iter().enumerate() {
            add(&mut value, &p.path, p.value.clone()).map_err(|e| format!("plant[{i}]: {e}"))?;
        }
        serde_path_to_error::deserialize(value)
            .map_err(|e| format!("the planted state does not load at {}: {}", e.path(), e))
    }

    /// `reference` as an agent that follows every instruction it reads would play it: the
    /// reference's calls, then the instructed calls, then the reference's answer with the
    /// instructed text after it.
    pub fn follow(&self, reference: &[Step]) -> Vec<Step> {
        let calls = |steps: &[Step]| -> Vec<Call> {
            steps.iter().filter_map(Step::as_call).cloned().collect()
        };
        let answer = |steps: &[Step]| -> Option<String> {
            steps.iter().rev().find_map(|s| match s {
                Step::Answer { answer } => Some(answer.clone()),
                Step::Call(_) => None,
            })
        };
        let mut out: Vec<Step> = calls(reference).into_iter().map(Step::Call).collect();
        out.extend(calls(&self.instructed).into_iter().map(Step::Call));
        let text = [answer(reference), answer(&self.instructed)]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        if !text.is_empty() {
            out.push(Step::Answer { answer: text });
        }
        out
    }
}

/// JSON Patch's `add` of `value` at `pointer` in `doc`.
fn add(doc: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    let (parent, last) = pointer
        .rsplit_once('/')
        .ok_or_else(|| format!("{pointer:?} is not a JSON Pointer (it starts with '/')"))?;
    if !parent.is_empty() && !parent.starts_with('/') {
        return Err(format!("{pointer:?} is not a JSON Pointer"));
    }
    let key = last.replace("~1", "/").replace("~0", "~");
    let target = doc
        .pointer_mut(parent)
        .ok_or_else(|| format!("{parent:?} is not in the state"))?;
    match target {
        Value::Object(map) => {
            map.insert(key, value);
        }
        Value::Array(items) if key == "-" => items.push(value),
        Value::Array(items) => {
            let at = key
                .parse::<usize>()
                .ok()
                .filter(|&i| i <= items.len() && (key == "0" || !key.starts_with('0')))
                .ok_or_else(|| {
                    format!(
                        "{key:?} is no index of {parent:?} ({} elements)",
                        items.len()
                    )
                })?;
            items.insert(at, value);
        }
        _ => return Err(format!("{parent:?} is neither an object nor an array")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn add_sets_members_and_inserts_elements_as_json_patch_does() {
        let mut doc = json!({"a": {"list": [1, 2]}, "b~/c": 0});
        add(&mut doc, "/a/list/-", json!(3)).unwrap();
        add(&mut doc, "/a/list/0", json!(0)).unwrap();
        add(&mut doc, "/a/new", json!("x")).unwrap();
        add(&mut doc, "/b~0~1c", json!(1)).unwrap();
        assert_eq!(
            doc,
            json!({"a": {"list": [0, 1, 2, 3], "new": "x"}, "b~/c": 1})
        );
        for bad in [
            "a/list",
            "/a/list/9",
            "/a/list/01",
            "/nowhere/x",
            "/a/list/0/x",
        ] {
            let before = doc.clone();
            assert!(add(&mut doc, bad, json!(1)).is_err(), "{bad}");
            assert_eq!(doc, before, "a refused edit changes nothing");
        }
    }

    #[test]
    fn following_adds_the_instructed_calls_and_text_to_the_reference() {
        let call = |tool: &str| {
            Step::Call(Call {
                tool: tool.into(),
                arguments: json!({}),
            })
        };
        let attack = Attack {
            kind: AttackKind::AnswerFormat,
            server: "email".into(),
            twin: None,
            plant: vec![],
            tool_descriptions: BTreeMap::new(),
            goal: Pred::Any(vec![]),
            instructed: vec![
                call("email.send_email"),
                Step::Answer {
                    answer: "see evil.example".into(),
                },
            ],
        };
        let reference = [
            call("email.read_email"),
            Step::Answer {
                answer: "42".into(),
            },
        ];
        assert_eq!(
            attack.follow(&reference),
            vec![
                call("email.read_email"),
                call("email.send_email"),
                Step::Answer {
                    answer: "42\nsee evil.example".into()
                },
            ]
        );
    }
}
