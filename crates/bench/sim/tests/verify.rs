//! The replay behind `verify` takes snapshots only where a change can be: of the server called,
//! never after a read-only tool. These tests show it still finds every state-changing call on
//! any server, and that the conformance check catches a read-only tool that writes.

use mcpbench_sim::verify::{Case, Run, reads_change_nothing, verify};
use mcpbench_sim::{Call, Step, ToolError};
use serde_json::{Value, json};

/// Two servers, `a` and `b`, each a counter: `add` writes, `peek` is declared read-only
/// (and `a.peek`, when `peek_writes`, wrongly counts its own calls).
#[derive(Default)]
struct Counters {
    a: i64,
    b: i64,
    peeks: i64,
    peek_writes: bool,
}

impl Run for Counters {
    fn call(&mut self, tool: &str, args: &Value) -> Result<Value, ToolError> {
        let n = args.get("n").and_then(Value::as_i64).unwrap_or(0);
        match tool {
            "a.add" => self.a += n,
            "b.add" => self.b += n,
            "a.peek" if self.peek_writes => self.peeks += 1,
            "a.peek" | "b.peek" => {}
            _ => return Err(ToolError::not_found(format!("no tool {tool}"))),
        }
        Ok(json!({"a": self.a, "b": self.b}))
    }
    fn passes(&self, _answer: Option<&str>) -> bool {
        self.a == 2 && self.b == 3
    }
    fn snapshot(&self) -> Value {
        json!({"a": self.server_snapshot("a.x"), "b": self.server_snapshot("b.x")})
    }
    fn server_snapshot(&self, tool: &str) -> Value {
        match tool.split_once('.').map(|(s, _)| s) {
            Some("a") => json!({"value": self.a, "peeks": self.peeks}),
            _ => json!({"value": self.b}),
        }
    }
    fn reads_only(&self, tool: &str) -> bool {
        tool.ends_with(".peek")
    }
    fn input_schema(&self, _tool: &str) -> Option<Value> {
        Some(json!({"type": "object", "properties": {"n": {"type": "integer"}}}))
    }
    fn check_arguments(&self, _tool: &str, _args: &Value) -> Result<(), ToolError> {
        Ok(())
    }
}

fn call(tool: &str, args: Value) -> Step {
    Step::Call(Call {
        tool: tool.into(),
        arguments: args,
    })
}

fn reference() -> Vec<Step> {
    vec![
        call("a.add", json!({"n": 2})),
        call("a.peek", json!({})),
        call("b.add", json!({"n": 3})),
        call("b.peek", json!({})),
    ]
}

#[test]
fn writes_on_every_server_are_found_and_their_mutants_die() {
    let tools: Vec<String> = ["a.add", "a.peek", "b.add", "b.peek"]
        .map(String::from)
        .to_vec();
    let references = vec![reference()];
    let case = Case {
        max_steps: 10,
        available_tools: &tools,
        references: &references,
    };
    let report = verify(&case, &Counters::default);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let described: Vec<&str> = report
        .mutants
        .iter()
        .map(|m| m.description.as_str())
        .collect();
    // The last write is on `b`; both writes have their argument changed; reads are left alone.
    assert_eq!(
        described,
        [
            "reference 1: last state-changing call (step 3) dropped",
            "reference 1: step 1 (a.add): n changed to 3",
            "reference 1: step 3 (b.add): n changed to 4",
        ]
    );
    assert!(report.mutants.iter().all(|m| m.killed));
}

#[test]
fn a_read_only_tool_that_writes_is_caught() {
    assert!(reads_change_nothing(&reference(), &Counters::default).is_empty());
    let lying = || Counters {
        peek_writes: true,
        ..Counters::default()
    };
    assert_eq!(
        reads_change_nothing(&reference(), &lying),
        ["step 2 (a.peek): a read-only tool changed the state"]
    );
}
