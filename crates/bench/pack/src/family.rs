//! The family file (`schemas/family.schema.json`): what a template in Rust expresses, as data.
//!
//! A family draws its values in order (`draw`), each bound to a name the later steps, the goal
//! and the task's parts read as `$name`; the parts are JSON with expressions spliced in
//! (`crate::template`). Expressions are jq; wordings are text with `{slots}` and `[choices]`.

use mcpbench_sim::{Category, Difficulty};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The format string every family file carries.
pub const FAMILY_FORMAT: &str = "mcpbench-family/1";

/// One task family.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FamilyFile {
    /// `mcpbench-family/1`.
    pub format: String,
    /// The family's id, unique in its pack: lower-case words and digits joined by `-` or `.`.
    #[schemars(
        regex(pattern = r"^[a-z0-9]+([.-][a-z0-9]+)*$"),
        length(min = 3, max = 64)
    )]
    pub family: String,
    /// What the family asks and what makes it hard, for its authors (never shown to agents).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub about: String,
    /// The servers its tasks use (one to three); the first is the one it is filed under.
    #[schemars(length(min = 1, max = 3))]
    pub servers: Vec<String>,
    pub category: Category,
    /// The difficulty its authors expect; the board uses the one computed from each task.
    pub difficulty: Difficulty,
    /// Constants, each bound as `$name` (pools of names, prices, wordings of a part).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub data: BTreeMap<String, Value>,
    /// The values a task draws, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub draw: Vec<DrawStep>,
    /// The goal: one wording, or several of which each task draws one.
    pub goal: Wordings,
    /// Tool calls allowed: a number, or an expression.
    pub max_steps: Count,
    /// `initial_state` of the task (a template: JSON with expressions spliced in).
    pub initial_state: Value,
    /// Qualified tool names the task lists (a template); every tool of its servers when absent
    /// (the generator offers whole catalogues anyway).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Value>,
    /// `success_predicate` of the task (a template).
    pub predicate: Value,
    /// `reference_solutions` of the task (a template): a list of lists of steps.
    pub references: Value,
    /// `faults` of the task (a template); none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<Value>,
    /// The parameters recorded with each task (a template); none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// One wording or several.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Wordings {
    One(String),
    Many(Vec<String>),
}

impl Wordings {
    pub fn as_slice(&self) -> &[String] {
        match self {
            Wordings::One(one) => std::slice::from_ref(one),
            Wordings::Many(many) => many,
        }
    }
}

/// A number, or a jq expression that gives one.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Count {
    Number(i64),
    Expr(String),
}

/// One step of `draw`. Every step but `require` binds `let`; `until` (a condition over the new
/// value) draws the step again until it holds.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum DrawStep {
    Value(ValueStep),
    Pick(PickStep),
    Sample(SampleStep),
    Shuffle(ShuffleStep),
    Range(RangeStep),
    Chance(ChanceStep),
    World(WorldStep),
    Call(CallStep),
    Wording(WordingStep),
    Repeat(RepeatStep),
    Require(RequireStep),
}

/// `{"let": "total", "value": "[$orders[].total] | add"}`: a computed value.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValueStep {
    #[serde(rename = "let")]
    pub name: String,
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"let": "p", "pick": "$seed.products"}`: one element of a non-empty list.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PickStep {
    #[serde(rename = "let")]
    pub name: String,
    pub pick: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"let": "who", "sample": "$people", "count": 3}`: that many distinct elements, in a
/// random order.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SampleStep {
    #[serde(rename = "let")]
    pub name: String,
    pub sample: String,
    pub count: Count,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"let": "order", "shuffle": "$lines"}`: the list in a random order.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShuffleStep {
    #[serde(rename = "let")]
    pub name: String,
    pub shuffle: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"let": "n", "range": [5, 40]}`: an integer from the first to the second, both included.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RangeStep {
    #[serde(rename = "let")]
    pub name: String,
    pub range: [Count; 2],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"let": "late", "chance": [1, 3]}`: true one time in three.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChanceStep {
    #[serde(rename = "let")]
    pub name: String,
    pub chance: [u32; 2],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"let": "store", "world": "shop"}`: the server's sample world (its seed, as
/// `initial_state.<server>` takes it), to build on.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorldStep {
    #[serde(rename = "let")]
    pub name: String,
    pub world: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"let": "main", "call": "github.get_branch", "on": "$repo_seed", "arguments": {...}}`:
/// what a tool answers on a world built from the server's seed `on` gives (a template for the
/// arguments): a value the server computes (a commit's sha, a page of a listing).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallStep {
    #[serde(rename = "let")]
    pub name: String,
    /// The qualified tool, `server.tool`.
    pub call: String,
    /// The server's seed (an expression).
    pub on: String,
    /// The call's arguments (a template); none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"let": "subject", "wording": ["Invoice {$n}", "[Your|The] invoice"]}`: a text drawn from
/// wordings.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WordingStep {
    #[serde(rename = "let")]
    pub name: String,
    pub wording: Wordings,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"let": "orders", "repeat": "$k", "draw": [...], "yield": "{total: $t}"}`: the inner
/// steps drawn that many times (`$i` counts from 0), the values of `yield` collected in a list.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepeatStep {
    #[serde(rename = "let")]
    pub name: String,
    pub repeat: Count,
    #[serde(default)]
    pub draw: Vec<DrawStep>,
    #[serde(rename = "yield")]
    pub yields: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `{"require": "$a != $b", "why": "two different people"}`: when false, the whole task is
/// drawn again from a further stream.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequireStep {
    pub require: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl DrawStep {
    /// The name the step binds (none for `require`).
    pub fn name(&self) -> Option<&str> {
        Some(match self {
            DrawStep::Value(s) => &s.name,
            DrawStep::Pick(s) => &s.name,
            DrawStep::Sample(s) => &s.name,
            DrawStep::Shuffle(s) => &s.name,
            DrawStep::Range(s) => &s.name,
            DrawStep::Chance(s) => &s.name,
            DrawStep::World(s) => &s.name,
            DrawStep::Call(s) => &s.name,
            DrawStep::Wording(s) => &s.name,
            DrawStep::Repeat(s) => &s.name,
            DrawStep::Require(_) => return None,
        })
    }

    pub fn until(&self) -> Option<&str> {
        match self {
            DrawStep::Value(s) => s.until.as_deref(),
            DrawStep::Pick(s) => s.until.as_deref(),
            DrawStep::Sample(s) => s.until.as_deref(),
            DrawStep::Shuffle(s) => s.until.as_deref(),
            DrawStep::Range(s) => s.until.as_deref(),
            DrawStep::Chance(s) => s.until.as_deref(),
            DrawStep::World(s) => s.until.as_deref(),
            DrawStep::Call(s) => s.until.as_deref(),
            DrawStep::Wording(s) => s.until.as_deref(),
            DrawStep::Repeat(s) => s.until.as_deref(),
            DrawStep::Require(_) => None,
        }
    }
}

/// Parses a family file's text. Errors name the field (`draw[3].count`) and never quote the
/// file beyond it, since families are private.
pub fn parse_family(text: &str) -> Result<FamilyFile, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let draw = value.get("draw").cloned();
    let mut without_draw = value;
    if let Some(map) = without_draw.as_object_mut() {
        map.remove("draw");
    }
    let mut family: FamilyFile = serde_path_to_error::deserialize(without_draw)
        .map_err(|e| format!("{}: {}", e.path(), e.inner()))?;
    if let Some(draw) = draw {
        family.draw = parse_steps(&draw, "draw")?;
    }
    if family.format != FAMILY_FORMAT {
        return Err(format!(
            "format: {:?} is not {FAMILY_FORMAT:?}",
            family.format
        ));
    }
    Ok(family)
}

/// Draw steps, each told apart by the key that says what it draws, so that an error names the
/// step and the field rather than "matched no variant".
fn parse_steps(value: &Value, at: &str) -> Result<Vec<DrawStep>, String> {
    let items = value
        .as_array()
        .ok_or_else(|| format!("{at}: must be a list of steps"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| parse_step(item, &format!("{at}[{i}]")))
        .collect()
}

/// The keys that say what a step draws, each with its step.
const KINDS: &[&str] = &[
    "value", "pick", "sample", "shuffle", "range", "chance", "world", "call", "wording", "repeat",
    "require",
];

fn parse_step(value: &Value, at: &str) -> Result<DrawStep, String> {
    let map = value
        .as_object()
        .ok_or_else(|| format!("{at}: a step is an object"))?;
    let kinds: Vec<&str> = KINDS
        .iter()
        .copied()
        .filter(|k| map.contains_key(*k))
        .collect();
    let kind = match kinds.as_slice() {
        [one] => *one,
        [] => {
            return Err(format!(
                "{at}: a step has one of the keys {}",
                KINDS.join(", ")
            ));
        }
        many => {
            return Err(format!(
                "{at}: a step has one of the keys {}, not {}",
                KINDS.join(", "),
                many.join(" and ")
            ));
        }
    };
    fn typed<T: serde::de::DeserializeOwned>(value: Value, at: &str) -> Result<T, String> {
        serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            if path == "." {
                format!("{at}: {}", e.inner())
            } else {
                format!("{at}.{path}: {}", e.inner())
            }
        })
    }
    let mut v = value.clone();
    Ok(match kind {
        "value" => DrawStep::Value(typed(v, at)?),
        "pick" => DrawStep::Pick(typed(v, at)?),
        "sample" => DrawStep::Sample(typed(v, at)?),
        "shuffle" => DrawStep::Shuffle(typed(v, at)?),
        "range" => DrawStep::Range(typed(v, at)?),
        "chance" => DrawStep::Chance(typed(v, at)?),
        "world" => DrawStep::World(typed(v, at)?),
        "call" => DrawStep::Call(typed(v, at)?),
        "wording" => DrawStep::Wording(typed(v, at)?),
        "require" => DrawStep::Require(typed(v, at)?),
        _ => {
            // The inner steps are parsed the same way, with their own paths.
            let inner = v
                .as_object_mut()
                .and_then(|m| m.remove("draw"))
                .unwrap_or(Value::Array(vec![]));
            let mut step: RepeatStep = typed(v, at)?;
            step.draw = parse_steps(&inner, &format!("{at}.draw"))?;
            DrawStep::Repeat(step)
        }
    })
}
