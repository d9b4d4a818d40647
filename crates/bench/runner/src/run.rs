//! One agent through one task.

use crate::protocol::{AgentReply, AgentRequest, McpServerRef, PROTOCOL};
use crate::signature::sign_request;
use mcpbench_egress::{GuardedClient, Policy, Timeouts};
use mcpbench_gateway::Gateway;
use mcpbench_gateway::trace::{AgentExchange, Header, Line, RunSummary};
use mcpbench_scoring::{RunCounts, Usage};
use mcpbench_tasks::{Task, TaskRun};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// The largest reply an agent may send.
const MAX_REPLY_BYTES: usize = 1 << 20;

/// Why a run ended as it did (one type from here to the database and the API).
pub use mcpbench_scoring::RunReason as Reason;

/// The agent: where it listens, what it is called in traces, the secret we sign with.
#[derive(Clone, Debug)]
pub struct AgentTarget {
    pub label: String,
    pub url: String,
    pub signing_secret: Vec<u8>,
    /// Set when the agent runs in our sandbox: it reaches the gateway at this URL (inside its
    /// pod), and `url` is our own loopback forward into the pod, so no egress policy applies.
    pub sandbox_gateway: Option<String>,
}

/// The outcome of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub task_id: String,
    pub run_id: String,
    pub passed: bool,
    pub reason: Reason,
    /// What exactly went wrong, for `agent_error`, `timeout` and `harness_error`.
    pub detail: Option<String>,
    pub counts: RunCounts,
    pub duration: Duration,
    pub answer: Option<String>,
    /// What the agent said the run used; `None` when it said nothing or said it badly.
    pub usage: Option<Usage>,
    /// For a task under attack, whether the attacker's goal was met (docs/metrics.md).
    pub attack_met: Option<bool>,
    pub trace: Vec<Line>,
    /// The state the run's calls left (a run the gateway held to the end), for its analysis
    /// without a replay ([`crate::analysis_with`] takes it).
    pub final_state: Option<FinalState>,
}

/// The state a run's calls left, held until its analysis takes it: the run's own copies of
/// the servers it called, released as soon as they are judged. Clones of a [`RunResult`] share
/// it.
#[derive(Clone)]
pub struct FinalState(Arc<Mutex<Option<TaskRun<Arc<Task>>>>>);

impl FinalState {
    fn new(run: TaskRun<Arc<Task>>) -> Self {
        Self(Arc::new(Mutex::new(Some(run))))
    }

    /// The final state, once: a later call (or a clone's) finds `None`.
    pub fn take(&self) -> Option<TaskRun<Arc<Task>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl std::fmt::Debug for FinalState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FinalState(..)")
    }
}

/// Runs tasks against agents through one gateway.
///
/// Agent URLs go through [`mcpbench_egress`]: each one is checked before each post and the
/// client connects only to addresses the policy permits. [`Runner::new`] uses
/// [`Policy::local`], for `mcpbench eval` and loopback agents; a hosted service must call
/// [`Runner::with_egress`] with [`Policy::hosted`].
pub struct Runner {
    gateway: Arc<Gateway>,
    /// Where agents reach the gateway, `http://host:port`.
    gateway_url: String,
    http: GuardedClient,
    /// For sandboxed agents, reached through a loopback forward of our own.
    sandbox_http: GuardedClient,
    /// The wall-clock budget of one task.
    pub time_budget: Duration,
    /// The set [`Runner::run`] traces its tasks under ([`Runner::run_in_set`] names its own).
    pub set: String,
}

fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

impl Runner {
    /// A runner that may call agents on this machine and private networks ([`Policy::local`]).
    pub fn new(gateway: Arc<Gateway>, gateway_url: &str, time_budget: Duration, set: &str) -> Self {
        Self {
            gateway,
            gateway_url: gateway_url.trim_end_matches('/').into(),
            http: agent_client(Policy::local()),
            sandbox_http: agent_client(Policy::local()),
            time_budget,
            set: set.into(),
        }
    }

    /// The same runner, calling agents only where `policy` permits.
    pub fn with_egress(self, policy: Policy) -> Self {
        Self {
            http: agent_client(policy),
            ..self
        }
    }

    /// Runs `task` against `agent` once, traced as a task of this runner's set.
    pub async fn run(&self, task: Arc<Task>, agent: &AgentTarget) -> RunResult {
        self.run_in_set(task, agent, &self.set).await
    }

    /// Runs `task` of `set` against `agent` once (a worker's runner serves every set).
    pub async fn run_in_set(&self, task: Arc<Task>, agent: &AgentTarget, set: &str) -> RunResult {
        let started = Instant::now();
        let started_at = SystemTime::now();
        let open = match self.gateway.open_run(task.clone()) {
            Ok(open) => open,
            Err(e) => {
                return harness_error(
                    &task,
                    format!("could not build the task's servers: {e}"),
                    started,
                );
            }
        };
        // Closes the run if this future is dropped before it ends (a worker stopping a
        // cancelled job); after the normal close below it finds nothing to do.
        let _open_guard = CloseOnDrop {
            gateway: &self.gateway,
            run_id: open.run_id.clone(),
        };
        let deadline = started_at + self.time_budget;
        let gateway_url = agent
            .sandbox_gateway
            .as_deref()
            .unwrap_or(&self.gateway_url)
            .trim_end_matches('/');
        let request = AgentRequest {
            protocol: PROTOCOL.into(),
            run_id: open.run_id.clone(),
            goal: task.goal.clone(),
            max_steps: task.max_steps,
            deadline: rfc3339(deadline),
            mcp_servers: open
                .servers
                .iter()
                .map(|s| McpServerRef {
                    name: s.clone(),
                    url: format!("{}/mcp/{}/{s}", gateway_url, open.run_id),
                    headers: BTreeMap::from([(
                        "Authorization".into(),
                        format!("Bearer {}", open.token),
                    )]),
                })
                .collect(),
        };
        let (exchange, timed_out) = self.post(&request, agent, started).await;
        let mut closed = match self.gateway.close_run(&open.run_id) {
            Some(c) => c,
            None => {
                return harness_error(&task, "the run vanished from the gateway".into(), started);
            }
        };
        if let Some(server) = closed.refused_copy() {
            return harness_error(
                &task,
                format!(
                    "a call found the {server} server unavailable on our side: its state could \
                     not be set up for this run (the memory this worker's database engines \
                     share is the likely cause)"
                ),
                started,
            );
        }
        if closed.refused_requests > 0 {
            // The run's id, never its task: this line can be of a private set's run.
            tracing::warn!(
                run = %open.run_id,
                refused = closed.refused_requests,
                "an agent went on past the requests one run may make"
            );
        }
        let counts = closed.counts;
        let (reason, detail) = if counts.budget_exceeded {
            (
                Reason::BudgetExceeded,
                Some(format!(
                    "{} tool calls for a budget of {}",
                    counts.tool_calls, task.max_steps
                )),
            )
        } else if let Some(e) = &exchange.error {
            (
                if timed_out {
                    Reason::Timeout
                } else {
                    Reason::AgentError
                },
                Some(e.clone()),
            )
        } else if closed.predicate_holds(exchange.answer.as_deref()) {
            (Reason::Passed, None)
        } else {
            (
                Reason::PredicateFalse,
                closed.predicate_unmet(exchange.answer.as_deref()),
            )
        };
        let attack_met = closed.attack_met(exchange.answer.as_deref());
        let duration = started.elapsed();
        let summary = RunSummary {
            passed: reason == Reason::Passed,
            reason,
            detail: detail.clone(),
            counts,
            duration_ms: duration.as_millis() as u64,
            attack_met,
        };
        let mut trace = vec![Line::Header(Header::of(
            &task,
            open.run_id.clone(),
            set,
            &agent.label,
            rfc3339(started_at),
            std::mem::take(&mut closed.revisions),
        ))];
        trace.extend(
            std::mem::take(&mut closed.events)
                .into_iter()
                .map(Line::Event),
        );
        trace.push(Line::Agent(exchange.clone()));
        trace.push(Line::Result(summary));
        RunResult {
            task_id: task.id.clone(),
            run_id: open.run_id,
            passed: reason == Reason::Passed,
            reason,
            detail,
            counts,
            duration,
            answer: exchange.answer,
            usage: exchange.usage,
            attack_met,
            trace,
            final_state: Some(FinalState::new(closed.into_task_run())),
        }
    }

    /// Posts the request and reads the reply, within the time budget; and whether the budget
    /// ran out first.
    async fn post(
        &self,
        request: &AgentRequest,
        agent: &AgentTarget,
        started: Instant,
    ) -> (AgentExchange, bool) {
        let body = serde_json::to_vec(request).expect("requests serialize");
        // Signed as it leaves: the timestamp is the second of sending.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let signed = sign_request(&agent.signing_secret, &request.run_id, now, &body);
        let start_us = started.elapsed().as_micros() as u64;
        let http = match agent.sandbox_gateway {
            Some(_) => &self.sandbox_http,
            None => &self.http,
        };
        let post = match http.post(&agent.url) {
            Ok(post) => post,
            Err(refusal) => {
                let exchange = AgentExchange {
                    start_us,
                    end_us: start_us,
                    status: None,
                    answer: None,
                    usage: None,
                    usage_error: None,
                    error: Some(format!("the agent's URL was refused: {refusal}")),
                };
                return (exchange, false);
            }
        };
        let attempt = async {
            let mut post = post.header("content-type", "application/json");
            for (name, value) in signed.headers() {
                post = post.header(name, value);
            }
            let response = post
                .body(body)
                .send()
                .await
                .map_err(|e| (None, format!("could not reach the agent: {}", describe(&e))))?;
            let status = response.status().as_u16();
            let bytes = read_capped(response).await.map_err(|e| (Some(status), e))?;
            if status != 200 {
                let snippet: String = String::from_utf8_lossy(&bytes).chars().take(200).collect();
                return Err((
                    Some(status),
                    format!("the agent answered HTTP {status}: {snippet}"),
                ));
            }
            let reply = AgentReply::parse(&bytes).map_err(|e| {
                (
                    Some(status),
                    format!("malformed reply: expected JSON {{\"answer\": string}}: {e}"),
                )
            })?;
            Ok((status, reply))
        };
        let outcome = tokio::time::timeout(self.time_budget, attempt).await;
        let end_us = started.elapsed().as_micros() as u64;
        let timed_out = outcome.is_err();
        let exchange = match outcome {
            Ok(Ok((status, reply))) => AgentExchange {
                start_us,
                end_us,
                status: Some(status),
                answer: reply.answer,
                usage: reply.usage,
                usage_error: reply.usage_error,
                error: None,
            },
            Ok(Err((status, error))) => AgentExchange {
                start_us,
                end_us,
                status,
                answer: None,
                usage: None,
                usage_error: None,
                error: Some(error),
            },
            Err(_) => AgentExchange {
                start_us,
                end_us,
                status: None,
                answer: None,
                usage: None,
                usage_error: None,
                error: Some(format!(
                    "no reply within the task's time budget of {:?}",
                    self.time_budget
                )),
            },
        };
        (exchange, timed_out)
    }
}

struct CloseOnDrop<'a> {
    gateway: &'a Gateway,
    run_id: String,
}

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.gateway.close_run(&self.run_id);
    }
}

/// The client for agent calls; the whole call is bounded by the task's time budget instead.
fn agent_client(policy: Policy) -> GuardedClient {
    let timeouts = Timeouts {
        connect: Duration::from_secs(10),
        request: None,
    };
    GuardedClient::new(policy, timeouts)
}

fn describe(e: &reqwest::Error) -> String {
    use std::error::Error;
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

async fn read_capped(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("the reply broke off: {}", describe(&e)))?
    {
        if out.len() + chunk.len() > MAX_REPLY_BYTES {
            return Err(format!("the reply is larger than {MAX_REPLY_BYTES} bytes"));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// A run our side could not carry out, for a caller that made the run itself (a pod that
/// could not be started): never scored, tried again by [`crate::evaluate_each`].
pub fn harness_error_result(task: &Task, detail: String) -> RunResult {
    harness_error(task, detail, Instant::now())
}

fn harness_error(task: &Task, detail: String, started: Instant) -> RunResult {
    RunResult {
        task_id: task.id.clone(),
        run_id: String::new(),
        passed: false,
        reason: Reason::HarnessError,
        detail: Some(detail),
        counts: RunCounts::default(),
        duration: started.elapsed(),
        answer: None,
        usage: None,
        attack_met: None,
        trace: Vec::new(),
        final_state: None,
    }
}
