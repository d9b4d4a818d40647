//! Checks every simulated server must pass, shared so that each server crate runs the same
//! ones in its tests: enough tools with real schemas, enough predicates, templates in every
//! category, and every sampled draft verified (references pass, nothing-done fails, mutants die).

use crate::error::ToolError;
use crate::rng::Rng;
use crate::server::Simulated;
use crate::step::Category;
use crate::template::{Draft, Template};
use crate::tool::Effect;
use crate::verify::{Case, Report, Run, reads_change_nothing, verify};
use serde_json::Value;
use std::collections::BTreeMap;

/// One run of a single-server draft: its faults applied, its tool list enforced.
pub struct DraftRun<'a, S: Simulated> {
    server: S,
    draft: &'a Draft<S>,
    counts: BTreeMap<String, u32>,
}

impl<'a, S: Simulated> DraftRun<'a, S> {
    pub fn new(draft: &'a Draft<S>) -> Result<Self, String> {
        let server = S::from_seed(&draft.seed).map_err(|e| e.to_string())?;
        Ok(Self {
            server,
            draft,
            counts: BTreeMap::new(),
        })
    }
}

impl<S: Simulated> Run for DraftRun<'_, S> {
    fn call(&mut self, tool: &str, args: &Value) -> Result<Value, ToolError> {
        if !self.draft.tools.iter().any(|t| t == tool) {
            return Err(ToolError::not_found(format!(
                "tool {tool} is not available"
            )));
        }
        let n = self.counts.entry(tool.to_string()).or_default();
        *n += 1;
        if let Some(f) = self.draft.faults.iter().find(|f| f.hits(tool, *n)) {
            return Err(ToolError::new(f.error, f.message.clone()));
        }
        let local = tool.strip_prefix(&format!("{}.", S::NAME)).unwrap_or(tool);
        crate::Server::call(&mut self.server, local, args)
    }
    fn passes(&self, answer: Option<&str>) -> bool {
        self.draft
            .predicate
            .eval(answer, &mut |a| self.server.holds(a))
    }
    fn snapshot(&self) -> Value {
        self.server.snapshot()
    }
    fn reads_only(&self, tool: &str) -> bool {
        let local = tool.strip_prefix(&format!("{}.", S::NAME)).unwrap_or(tool);
        S::toolbox()
            .get(local)
            .is_some_and(|t| t.effect == Effect::Read)
    }
    fn input_schema(&self, tool: &str) -> Option<Value> {
        let local = tool.strip_prefix(&format!("{}.", S::NAME))?;
        S::toolbox().get(local).map(|t| t.input_schema.clone())
    }
    fn check_arguments(&self, tool: &str, args: &Value) -> Result<(), ToolError> {
        let local = tool.strip_prefix(&format!("{}.", S::NAME)).unwrap_or(tool);
        let t = S::toolbox()
            .get(local)
            .ok_or_else(|| ToolError::not_found(format!("no tool {tool}")))?;
        t.validate(args)
    }
}

/// The stream a template's `n`-th sample draws from; stable across runs.
pub fn template_rng(template_id: &str, n: u64) -> Rng {
    let h = template_id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    Rng::new(h, n)
}

/// Checks a whole server: its surface, and `samples` drafts of every template.
/// Returns the problems found, each naming its place; empty means conformant.
pub fn check_server<S: Simulated>(samples: u64) -> Vec<String> {
    let mut problems = surface::<S>();
    let templates = S::templates();
    for cat in Category::ALL {
        if !templates.iter().any(|t| t.category == cat) {
            problems.push(format!(
                "{}: no template of category {}",
                S::NAME,
                cat.as_str()
            ));
        }
    }
    for t in &templates {
        if !t.id.starts_with(&format!("{}.", S::NAME)) {
            problems.push(format!("template {} is not named {}.<name>", t.id, S::NAME));
        }
        for n in 0..samples {
            let mut rng = template_rng(t.id, n);
            let mut draft = (t.build)(&mut rng);
            // Every other sample in the history a generated task gives it, so that a template
            // a background breaks (a reference that reads only the first page) is caught here.
            if n % 2 == 1 {
                S::furnish(&mut draft.seed, &mut rng);
            }
            problems.extend(
                check_draft(t, &draft)
                    .problems
                    .into_iter()
                    .map(|p| format!("{} sample {n}: {p}", t.id)),
            );
        }
    }
    problems
}

fn surface<S: Simulated>() -> Vec<String> {
    let mut problems = Vec::new();
    let specs: Vec<_> = S::toolbox().specs().collect();
    if specs.len() < 8 {
        problems.push(format!(
            "{} has {} tools; at least 8 are needed",
            S::NAME,
            specs.len()
        ));
    }
    for t in &specs {
        if t.description.len() < 20 {
            problems.push(format!(
                "{}.{}: the description is too short for an agent",
                S::NAME,
                t.name
            ));
        }
        if t.input_schema.get("type") != Some(&Value::from("object")) {
            problems.push(format!(
                "{}.{}: the input schema is not an object schema",
                S::NAME,
                t.name
            ));
        }
    }
    for c in S::capacities() {
        let sentence = c.sentence();
        if !specs
            .iter()
            .any(|t| t.effect == Effect::Write && t.description.contains(&sentence))
        {
            problems.push(format!(
                "{}: no tool that changes state says {sentence:?}",
                S::NAME
            ));
        }
    }
    let atoms = serde_json::to_value(schemars::schema_for!(S::Atom)).unwrap_or_default();
    let variants = atoms
        .get("oneOf")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if variants < 3 {
        problems.push(format!(
            "{} has {variants} predicates; at least 3 are needed",
            S::NAME
        ));
    }
    problems
}

/// Checks one draft: its wiring, then [`verify`].
pub fn check_draft<S: Simulated>(_template: &Template<S>, draft: &Draft<S>) -> Report {
    let mut problems = Vec::new();
    let known: Vec<String> = S::toolbox()
        .specs()
        .map(|t| format!("{}.{}", S::NAME, t.name))
        .collect();
    for t in &draft.tools {
        if !known.contains(t) {
            problems.push(format!("lists tool {t}, which {} does not have", S::NAME));
        }
    }
    for f in &draft.faults {
        if !draft.tools.contains(&f.tool) {
            problems.push(format!("a fault names {}, which is not listed", f.tool));
        }
    }
    for t in S::toolbox().specs() {
        if t.name.contains('_') && draft.goal.contains(t.name) {
            problems.push(format!("the goal names the tool {}", t.name));
        }
    }
    if draft.goal.to_lowercase().contains("mcp") {
        problems.push("the goal mentions MCP".into());
    }
    match serde_json::to_value(&draft.seed).and_then(serde_json::from_value::<S::Seed>) {
        Ok(back) if back == draft.seed => {}
        _ => problems.push("the seed does not survive a JSON round trip".into()),
    }
    match serde_json::to_value(&draft.predicate)
        .and_then(serde_json::from_value::<crate::Pred<S::Atom>>)
    {
        Ok(back) if back == draft.predicate => {}
        _ => problems.push("the predicate does not survive a JSON round trip".into()),
    }
    if let Err(e) = DraftRun::new(draft) {
        problems.push(e);
        return Report {
            problems,
            mutants: vec![],
        };
    }
    let case = Case {
        max_steps: draft.max_steps,
        available_tools: &draft.tools,
        references: &draft.references,
    };
    let fresh = || DraftRun::new(draft).expect("checked above");
    for (r, steps) in draft.references.iter().enumerate() {
        problems.extend(
            reads_change_nothing(steps, &fresh)
                .into_iter()
                .map(|p| format!("reference {}: {p}", r + 1)),
        );
    }
    let mut report = verify(&case, &fresh);
    problems.append(&mut report.problems);
    report.problems = problems;
    report
}

/// This process's resident memory in MiB (Linux `VmRSS`), for the tests that show a server's
/// state stays bounded whatever a run sends it.
pub fn resident_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
        })
        .expect("/proc/self/status has VmRSS")
        / 1024
}
