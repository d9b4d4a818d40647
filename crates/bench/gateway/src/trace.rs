//! The trace format, `mcpbench-trace/1` (documented in docs/trace-format.md): JSON Lines, a
//! header line, one line per event, and a result line. Field names are stable; new fields may
//! be added, none removed or renamed, without a new format version.

use mcpbench_scoring::{RunCounts, RunReason, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const FORMAT: &str = "mcpbench-trace/1";

/// The first line of a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    pub run_id: String,
    pub task_id: String,
    /// The task set (`dev`, `2026-11`, ...).
    pub set: String,
    /// Who ran: `oracle`, `null`, `random`, `heuristic`, or the agent's URL.
    pub agent: String,
    /// The MCP protocol revisions the agent used, in order of first use.
    pub protocol_revisions: Vec<String>,
    /// Wall-clock start, RFC 3339, UTC.
    pub started_at: String,
    pub max_steps: u32,
    /// The servers the task needs.
    pub servers: Vec<String>,
    /// The servers offered beside them that the task does not need (benchmark version 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub distractor_servers: Vec<String>,
}

impl Header {
    /// The header of a run of `task`.
    pub fn of(
        task: &mcpbench_tasks::Task,
        run_id: String,
        set: &str,
        agent: &str,
        started_at: String,
        protocol_revisions: Vec<String>,
    ) -> Self {
        Self {
            format: FORMAT.into(),
            run_id,
            task_id: task.id.clone(),
            set: set.into(),
            agent: agent.into(),
            protocol_revisions,
            started_at,
            max_steps: task.max_steps,
            servers: task.servers.clone(),
            distractor_servers: task.distractor_servers.clone(),
        }
    }
}

/// What became of one MCP request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The request was answered normally.
    Ok,
    /// A tool ran (or was stopped) and answered with an error the agent reads (`isError`).
    ToolError,
    /// The request was refused at the protocol level (JSON-RPC error), e.g. an unlisted tool.
    ProtocolError,
}

impl Outcome {
    /// The name the trace writes.
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::ToolError => "tool_error",
            Outcome::ProtocolError => "protocol_error",
        }
    }
}

/// One MCP request of the agent and the gateway's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// 1-based, in order of arrival.
    pub seq: u32,
    /// Microseconds from the start of the run to the request and to the answer.
    pub start_us: u64,
    pub end_us: u64,
    pub server: String,
    /// `initialize`, `server/discover`, `tools/list`, `tools/call`.
    pub method: String,
    /// The revision of this request, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    pub outcome: Outcome,
    /// The tool's result (for `tools/call`) or a summary (for `tools/list`: the tool names).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The error text the agent saw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The tool is not among the task's tools.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hallucinated: bool,
    /// The arguments did not match the tool's input schema.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub invalid_arguments: bool,
    /// The call came after the step budget was spent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_budget: bool,
    /// The error was injected by one of the task's faults.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub injected_fault: bool,
    /// A call of a listed tool of a server the task does not need (a distractor server).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub distractor: bool,
    /// Bytes of the request's arguments and of the answer, as JSON.
    pub request_bytes: u64,
    pub response_bytes: u64,
}

/// One line of a trace file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line {
    Header(Header),
    Event(Event),
    /// The agent's HTTP exchange with the harness.
    Agent(AgentExchange),
    Result(RunSummary),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentExchange {
    /// Microseconds from the start of the run to the request and to the reply (or giving up).
    pub start_us: u64,
    pub end_us: u64,
    /// The HTTP status of the agent's reply; absent when there was none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// What the agent said the run used, as read from its reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Why the reply's `usage` was set aside (the run's usage is then unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The last line: the verdict and the counts scores are made of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub passed: bool,
    pub reason: RunReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(flatten)]
    pub counts: RunCounts,
    pub duration_ms: u64,
    /// For a task under attack: whether the attacker's goal held on the final state, given
    /// the agent's answer, whatever the verdict (docs/metrics.md); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack_met: Option<bool>,
}

/// A whole trace as JSON Lines text.
pub fn to_jsonl(lines: &[Line]) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(&serde_json::to_string(line).expect("trace lines serialize"));
        out.push('\n');
    }
    out
}

/// Cuts the largest tool results of `lines` ([`mcpbench_tasks::cut`]: their size and digest
/// stay) until the trace's JSON Lines take at most `limit` bytes, and gives how many it cut.
/// A run's calls are bounded in number and size, but a result is the world's answer, so a
/// trace of many large reads could still outgrow what a store takes: it is kept, cut, rather
/// than refused (a refusal would be ours, and the run would go again). The replay of a trace
/// reads arguments, never results, so a cut trace replays the same.
pub fn fit(lines: &mut [Line], limit: usize) -> usize {
    let mut size = to_jsonl(lines).len();
    let mut by_size: Vec<(usize, usize)> = (lines.iter().enumerate())
        .filter_map(|(i, l)| match l {
            Line::Event(e) => (e.result.as_ref())
                .filter(|r| r.get(mcpbench_tasks::CUT).is_none())
                .map(|r| (r.to_string().len(), i)),
            _ => None,
        })
        .collect();
    by_size.sort_unstable_by(|a, b| b.cmp(a));
    let mut cut = 0;
    for (bytes, i) in by_size {
        if size <= limit {
            break;
        }
        if let Line::Event(e) = &mut lines[i]
            && let Some(result) = e.result.take()
        {
            let kept = mcpbench_tasks::cut(&result);
            size = size + kept.to_string().len() - bytes;
            e.result = Some(kept);
            cut += 1;
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u32, result: Value) -> Line {
        Line::Event(Event {
            seq,
            start_us: 0,
            end_us: 0,
            server: "filesystem".into(),
            method: "tools/call".into(),
            protocol: None,
            tool: Some("read_text_file".into()),
            arguments: Some(serde_json::json!({"path": "/a"})),
            outcome: Outcome::Ok,
            result: Some(result),
            error: None,
            hallucinated: false,
            invalid_arguments: false,
            over_budget: false,
            injected_fault: false,
            distractor: false,
            request_bytes: 13,
            response_bytes: 0,
        })
    }

    #[test]
    fn an_outcome_is_named_as_the_trace_writes_it() {
        for o in [Outcome::Ok, Outcome::ToolError, Outcome::ProtocolError] {
            assert_eq!(serde_json::to_value(&o).unwrap(), o.as_str());
        }
    }

    #[test]
    fn a_trace_is_fitted_by_cutting_its_largest_results_first() {
        let mut lines = vec![
            event(1, Value::String("a".repeat(10_000))),
            event(2, Value::String("b".repeat(100))),
            event(3, Value::String("c".repeat(50_000))),
        ];
        let whole = to_jsonl(&lines).len();
        assert_eq!(
            fit(&mut lines, whole),
            0,
            "a trace within the limit is left whole"
        );
        assert_eq!(fit(&mut lines, 20_000), 1);
        assert!(to_jsonl(&lines).len() <= 20_000);
        let Line::Event(third) = &lines[2] else {
            unreachable!()
        };
        assert_eq!(
            third.result.as_ref().unwrap()[mcpbench_tasks::CUT]["bytes"],
            50_002
        );
        let Line::Event(first) = &lines[0] else {
            unreachable!()
        };
        assert_eq!(first.result, Some(Value::String("a".repeat(10_000))));
        assert_eq!(fit(&mut lines, 1_000), 1, "then the next largest");
        let Line::Event(first) = &lines[0] else {
            unreachable!()
        };
        assert!(
            first
                .result
                .as_ref()
                .unwrap()
                .get(mcpbench_tasks::CUT)
                .is_some()
        );
        assert!(to_jsonl(&lines).len() <= 1_000);
    }
}
