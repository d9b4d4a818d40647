//! The family file (`schemas/family.schema.json`): what a template in Rust expresses, as data.
//!
//! A family draws its values in order (`draw`), each bound to a name the later steps, the goal
//! and the task's parts read as `$name`; the parts are JSON with expressions spliced in
//! (`crate::template`). Expressions are jq; wordings are text with `{slots}` and `[choices]`.

use mcpbench_sim::{Category, Difficulty};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The format string every family file carries.
pub const FAMILY_FORMAT: &str = "mcpbench-family/1";

/// One task family.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
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
    #[serde(default)]
    pub about: String,
    /// The servers its tasks use (one to three); the first is the one it is filed under.
    #[schemars(length(min = 1, max = 3))]
    pub servers: Vec<String>,
    pub category: Category,
    /// The difficulty its authors expect; the board uses the one computed from each task.
    pub difficulty: Difficulty,
    /// Constants, each bound as `$name` (pools of names, prices, wordings of a part).
    #[serde(default)]
    pub data: BTreeMap<String, Value>,
    /// The values a task draws, in order.
    #[serde(default)]
    pub draw: Vec<DrawStep>,
    /// The goal: one wording, or several of which each task draws one.
    pub goal: Wordings,
    /// Tool calls allowed: a number, or an expression.
    pub max_steps: Count,
    /// `initial_state` of the task (a template: JSON with expressions spliced in).
    pub initial_state: Value,
    /// Qualified tool names the task lists (a template); every tool of its servers when absent
    /// (the generator offers whole catalogues anyway).
    #[serde(default)]
    pub tools: Option<Value>,
    /// `success_predicate` of the task (a template).
    pub predicate: Value,
    /// `reference_solutions` of the task (a template): a list of lists of steps.
    pub references: Value,
    /// `faults` of the task (a template); none when absent.
    #[serde(default)]
    pub faults: Option<Value>,
    /// The parameters recorded with each task (a template); none when absent.
    #[serde(default)]
    pub params: Option<Value>,
    /// An attack planted in a twin of each task (a template of the task format's `attack`,
    /// without `twin`): the security category. None when absent.
    #[serde(default)]
    pub attack: Option<Value>,
}

/// One wording or several.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
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

/// A whole number, or a jq expression that gives one: `3`, `"$n + 4"` or, as in a template,
/// `{"$": "$n + 4"}`.
#[derive(Clone, Debug, JsonSchema)]
#[serde(untagged)]
pub enum Count {
    Number(i64),
    Expr(String),
    Spliced {
        #[serde(rename = "$")]
        expr: String,
    },
}

impl Count {
    /// The expression, when the count is one.
    pub fn expr(&self) -> Option<&str> {
        match self {
            Count::Number(_) => None,
            Count::Expr(e) | Count::Spliced { expr: e } => Some(e),
        }
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let wrong = || {
            D::Error::custom(
                "expected a whole number, or a jq expression as a string (\"$n + 4\") or as \
                 {\"$\": \"$n + 4\"}",
            )
        };
        match Value::deserialize(d)? {
            Value::Number(n) => n.as_i64().map(Count::Number).ok_or_else(wrong),
            Value::String(e) => Ok(Count::Expr(e)),
            Value::Object(m) if m.len() == 1 => match m.get("$") {
                Some(Value::String(e)) => Ok(Count::Spliced { expr: e.clone() }),
                _ => Err(wrong()),
            },
            _ => Err(wrong()),
        }
    }
}

/// One step of `draw`. Every step but `require` binds `let`, and may carry `when` (a condition
/// over the values before it: when false the step draws nothing and binds `null`) and `until` (a
/// condition over the new value: the step is drawn again until it holds).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
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

/// A step that binds a name: its own fields, then `let`, `when` and `until`, which every such
/// step takes.
macro_rules! binding_step {
    ($(#[$doc:meta])* $name:ident { $($(#[$fattr:meta])* $field:ident : $ty:ty,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            #[serde(rename = "let")]
            pub name: String,
            $($(#[$fattr])* pub $field: $ty,)*
            /// A condition over the values bound before the step: when false, the step draws
            /// nothing and binds `null`.
            #[serde(default)]
            pub when: Option<String>,
            /// A condition over the new value: the step is drawn again until it holds.
            #[serde(default)]
            pub until: Option<String>,
        }
    };
}

binding_step! {
    /// `{"let": "total", "value": "[$orders[].total] | add"}`: a computed value.
    ValueStep { value: String, }
}

binding_step! {
    /// `{"let": "p", "pick": "$seed.products"}`: one element of a non-empty list.
    PickStep { pick: String, }
}

binding_step! {
    /// `{"let": "who", "sample": "$people", "count": 3}`: that many distinct elements, in a
    /// random order.
    SampleStep { sample: String, count: Count, }
}

binding_step! {
    /// `{"let": "order", "shuffle": "$lines"}`: the list in a random order.
    ShuffleStep { shuffle: String, }
}

binding_step! {
    /// `{"let": "n", "range": [5, 40]}`: an integer from the first to the second, both
    /// included.
    RangeStep { range: [Count; 2], }
}

binding_step! {
    /// `{"let": "late", "chance": [1, 3]}`: true one time in three.
    ChanceStep { chance: [u32; 2], }
}

binding_step! {
    /// `{"let": "store", "world": "shop"}`: the server's sample world (its seed, as
    /// `initial_state.<server>` takes it), to build on.
    WorldStep { world: String, }
}

binding_step! {
    /// `{"let": "branches", "call": "github.list_branches", "on": "$seed", "arguments": {...}}`:
    /// what a tool answers on a world built from the server's seed `on` gives (a template for
    /// the arguments): a value the server computes (a commit's sha, a page of a listing).
    CallStep {
        /// The qualified tool, `server.tool`.
        call: String,
        /// The server's seed (an expression).
        on: String,
        /// The call's arguments (a template); none when absent.
        #[serde(default)]
        arguments: Option<Value>,
    }
}

binding_step! {
    /// `{"let": "subject", "wording": ["Invoice {$n}", "[Your|The] invoice"]}`: a text drawn
    /// from wordings.
    WordingStep { wording: Wordings, }
}

binding_step! {
    /// `{"let": "orders", "repeat": "$k", "draw": [...], "yield": "{total: $t}"}`: the inner
    /// steps drawn that many times, the values of `yield` collected in a list. Each round binds
    /// its number (from 0) as `$i` (or the name `as` gives, so that repeats nest) and, with
    /// `so_far`, the list of the values yielded before it.
    RepeatStep {
        repeat: Count,
        #[serde(default)]
        draw: Vec<DrawStep>,
        #[serde(rename = "yield")]
        yields: String,
        /// The name of the round's number (default `i`).
        #[serde(default, rename = "as")]
        index: Option<String>,
        /// A name for the list of the values the earlier rounds yielded.
        #[serde(default)]
        so_far: Option<String>,
    }
}

/// `{"require": "$a != $b", "why": "two different people"}`: when false, the whole task is
/// drawn again, further down its stream.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequireStep {
    pub require: String,
    #[serde(default)]
    pub why: Option<String>,
}

impl DrawStep {
    /// The name the step binds, and its `when` and `until` (none for `require`).
    pub fn binding(&self) -> Option<(&str, Option<&str>, Option<&str>)> {
        macro_rules! parts {
            ($s:expr) => {
                Some(($s.name.as_str(), $s.when.as_deref(), $s.until.as_deref()))
            };
        }
        match self {
            DrawStep::Value(s) => parts!(s),
            DrawStep::Pick(s) => parts!(s),
            DrawStep::Sample(s) => parts!(s),
            DrawStep::Shuffle(s) => parts!(s),
            DrawStep::Range(s) => parts!(s),
            DrawStep::Chance(s) => parts!(s),
            DrawStep::World(s) => parts!(s),
            DrawStep::Call(s) => parts!(s),
            DrawStep::Wording(s) => parts!(s),
            DrawStep::Repeat(s) => parts!(s),
            DrawStep::Require(_) => None,
        }
    }
}

/// Parses a family file's text: every problem found, each naming its field (`draw[3].count`).
pub fn parse_family(text: &str) -> Result<FamilyFile, Vec<String>> {
    let value: Value = serde_json::from_str(text).map_err(|e| vec![format!("not JSON: {e}")])?;
    let draw = value.get("draw").cloned();
    let mut without_draw = value;
    if let Some(map) = without_draw.as_object_mut() {
        map.remove("draw");
    }
    let mut problems = Vec::new();
    let family: Option<FamilyFile> = serde_path_to_error::deserialize(without_draw)
        .map_err(|e| problems.push(format!("{}: {}", e.path(), e.inner())))
        .ok();
    let steps = draw.map(|d| parse_steps(&d, "draw", &mut problems));
    let Some(mut family) = family else {
        return Err(problems);
    };
    if family.format != FAMILY_FORMAT {
        problems.push(format!(
            "format: {:?} is not {FAMILY_FORMAT:?}",
            family.format
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    family.draw = steps.unwrap_or_default();
    Ok(family)
}

/// Draw steps, each told apart by the key that says what it draws, so that an error names the
/// step and the field rather than "matched no variant". Problems go to `problems`.
fn parse_steps(value: &Value, at: &str, problems: &mut Vec<String>) -> Vec<DrawStep> {
    let Some(items) = value.as_array() else {
        problems.push(format!("{at}: must be a list of steps"));
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            parse_step(item, &format!("{at}[{i}]"), problems)
                .map_err(|e| problems.push(e))
                .ok()
        })
        .collect()
}

/// The keys that say what a step draws, each with its step.
const KINDS: &[&str] = &[
    "value", "pick", "sample", "shuffle", "range", "chance", "world", "call", "wording", "repeat",
    "require",
];

fn parse_step(value: &Value, at: &str, problems: &mut Vec<String>) -> Result<DrawStep, String> {
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
            step.draw = parse_steps(&inner, &format!("{at}.draw"), problems);
            DrawStep::Repeat(step)
        }
    })
}
