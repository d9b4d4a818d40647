//! `mcpbench eval`: a task set against an agent, with progress, a summary and a report.

use crate::{curve, judging};
use anyhow::{Context, bail};
use clap::Args;
use mcpbench_agents::AgentKind;
use mcpbench_gateway::{GatewayConfig, trace};
use mcpbench_runner::{
    AgentTarget, EvalOptions, LocalGateway, Report, RunResult, Runner, evaluate,
};
use mcpbench_tasks::{Task, load_dir, parse_levels, with_distractors};
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct EvalArgs {
    /// The directory of task files.
    #[arg(long)]
    tasks: PathBuf,
    /// `oracle`, `null`, `random`, `heuristic`, `script` (reference agents served here), or an agent's
    /// URL; or --image.
    #[arg(long, required_unless_present = "image")]
    agent: Option<String>,
    #[command(flatten)]
    image: crate::eval_image::ImageArgs,
    /// Runs at a time.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Where report.json and the traces go.
    #[arg(long, default_value = "mcpbench-eval")]
    out: PathBuf,
    /// Print the report as JSON on stdout (with --distractors, the curve); progress and
    /// summary go to stderr.
    #[arg(long)]
    json: bool,
    /// Seconds an agent has for one task.
    #[arg(long, default_value_t = 120)]
    time_budget: u64,
    /// The secret requests to a URL agent are signed with.
    #[arg(
        long,
        env = "MCPBENCH_SIGNING_SECRET",
        hide_env_values = true,
        default_value = ""
    )]
    signing_secret: String,
    /// Run the set once per level of extra tools (`0,5,10,20,all`) and print and plot success
    /// against the tools offered (curve.json, curve.svg; each level's report under level-N/).
    #[arg(long, value_name = "LEVELS")]
    distractors: Option<String>,
    /// Runs of each task, one after another as the service runs a submission's trials: with 2
    /// or more, pass^k and pass@k for each k up to N, and the interval that counts a task's
    /// runs as related, computed as the service computes them.
    #[arg(long, default_value_t = 1, conflicts_with = "distractors",
          value_parser = clap::value_parser!(u32).range(1..=10))]
    trials: u32,
    /// Only these tasks, by id (repeat it, or separate ids with commas).
    #[arg(long = "task", value_name = "ID", value_delimiter = ',')]
    only: Vec<String>,
    /// Only the tasks matching every one of `server=NAME`, `category=NAME`,
    /// `difficulty=easy|medium|hard`, comma-separated (as the service's task filters: a task
    /// matches a server it uses).
    #[arg(long, value_name = "KEY=VALUE,...")]
    filter: Option<String>,
    /// The optional rubric judge: each run's answer and trace read by a model against its
    /// task's rubric; shown and stored apart from the scores.
    #[command(flatten)]
    judge: mcpbench_config::JudgeArgs,
}

/// `--filter`: each key at most once, each value one the task format knows.
#[derive(Debug, Default, PartialEq)]
struct Filter {
    server: Option<String>,
    category: Option<mcpbench_tasks::Category>,
    difficulty: Option<mcpbench_tasks::Difficulty>,
}

impl Filter {
    fn parse(text: &str) -> anyhow::Result<Self> {
        let mut f = Filter::default();
        for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = (pair.split_once('='))
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| anyhow::anyhow!("--filter: {pair:?} is not KEY=VALUE"))?;
            let twice = || anyhow::anyhow!("--filter: {key} is given twice");
            match key {
                "server" if f.server.is_none() => {
                    if !mcpbench_tasks::SERVERS.contains(&value) {
                        bail!(
                            "--filter: server must be one of {}",
                            mcpbench_tasks::SERVERS.join(", ")
                        );
                    }
                    f.server = Some(value.to_string());
                }
                "category" if f.category.is_none() => {
                    let all = mcpbench_tasks::Category::ALL;
                    let found = all.into_iter().find(|c| c.as_str() == value);
                    f.category = Some(found.ok_or_else(|| {
                        let names: Vec<&str> = all.iter().map(|c| c.as_str()).collect();
                        anyhow::anyhow!("--filter: category must be one of {}", names.join(", "))
                    })?);
                }
                "difficulty" if f.difficulty.is_none() => {
                    let all = mcpbench_tasks::Difficulty::ALL;
                    let found = all.into_iter().find(|d| d.as_str() == value);
                    f.difficulty = Some(found.ok_or_else(|| {
                        let names: Vec<&str> = all.iter().map(|d| d.as_str()).collect();
                        anyhow::anyhow!("--filter: difficulty must be one of {}", names.join(", "))
                    })?);
                }
                "server" | "category" | "difficulty" => return Err(twice()),
                _ => bail!("--filter: {key:?} is not server, category or difficulty"),
            }
        }
        Ok(f)
    }

    fn keeps(&self, t: &Task) -> bool {
        self.server.as_ref().is_none_or(|s| t.servers.contains(s))
            && self.category.is_none_or(|c| t.category == c)
            && self.difficulty.is_none_or(|d| t.difficulty == d)
    }
}

/// The tasks `--task` and `--filter` keep; an id that is not in the set is an error (a typo
/// would otherwise run nothing, or less than asked).
fn chosen(tasks: Vec<Task>, only: &[String], filter: Option<&str>) -> anyhow::Result<Vec<Task>> {
    let filter = filter.map(Filter::parse).transpose()?.unwrap_or_default();
    if let Some(missing) = only.iter().find(|id| !tasks.iter().any(|t| &t.id == *id)) {
        bail!("--task: there is no task {missing:?} in the set");
    }
    let kept: Vec<Task> = (tasks.into_iter())
        .filter(|t| only.is_empty() || only.contains(&t.id))
        .filter(|t| filter.keeps(t))
        .collect();
    if kept.is_empty() {
        bail!("no task of the set matches --task and --filter");
    }
    Ok(kept)
}

pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    if args.concurrency == 0 || args.concurrency > 256 {
        bail!("--concurrency must be between 1 and 256");
    }
    let tasks = load_dir(&args.tasks).map_err(|errors| {
        let lines: Vec<String> = errors.iter().take(20).map(ToString::to_string).collect();
        anyhow::anyhow!("the tasks do not load:\n{}", lines.join("\n"))
    })?;
    if tasks.is_empty() {
        bail!("{} holds no task files", args.tasks.display());
    }
    let tasks = chosen(tasks, &args.only, args.filter.as_deref())?;
    let tasks: Vec<_> = tasks.into_iter().map(Arc::new).collect();
    let set = args
        .tasks
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("tasks")
        .to_string();
    let levels = args
        .distractors
        .as_deref()
        .map(parse_levels)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--distractors: {e}"))?;
    let judge = mcpbench_worker::judge_from_args(&args.judge).map_err(|e| anyhow::anyhow!(e))?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let gateway = LocalGateway::start(GatewayConfig::default())
            .await
            .context("starting the gateway")?;
        let agent = match &args.image.image {
            Some(image) => Agent::Image(args.image.prepare(image).await?, gateway_addr(&gateway)?),
            None => {
                let (target, _server) = agent_target(&args, &tasks).await?;
                Agent::Target(target)
            }
        };
        let runner = Arc::new(Runner::new(
            gateway.gateway.clone(),
            &gateway.base_url,
            Duration::from_secs(args.time_budget),
            &set,
        ));
        let Some(levels) = levels else {
            // Each task's trials together, as a submission's are queued.
            let runs: Vec<Arc<Task>> = (tasks.iter())
                .flat_map(|t| std::iter::repeat_n(t.clone(), args.trials as usize))
                .collect();
            let (mut report, results) = one_pass(&args, &runner, runs.clone(), &agent).await;
            if let Some(judge) = &judge {
                judging::judge_report(judge, &runs, &results, &mut report, args.concurrency).await;
            }
            write_outputs(&args.out, &report, &results)?;
            print_summary(&report);
            eprintln!("report and traces in {}", args.out.display());
            if args.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            }
            return anyhow::Ok(());
        };
        let mut passes = Vec::new();
        for level in &levels {
            let variants: Vec<Arc<Task>> = tasks
                .iter()
                .map(|t| Arc::new(with_distractors(t, *level)))
                .collect();
            eprintln!("distractor level {level}");
            let (report, results) = one_pass(&args, &runner, variants.clone(), &agent).await;
            let dir = args.out.join(format!("level-{level}"));
            write_outputs(&dir, &report, &results)?;
            passes.push((*level, variants, report));
        }
        let curve = curve::build(&tasks, &passes);
        curve::write(&args.out, &curve)?;
        curve::print(&curve);
        eprintln!(
            "curve.json, curve.svg and each level's report and traces in {}",
            args.out.display()
        );
        if args.json {
            println!("{}", serde_json::to_string_pretty(&curve)?);
        }
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// What runs the tasks: an agent at a URL (a reference agent served here runs until the
/// process ends), or an image in the sandbox with the gateway its pods reach.
enum Agent {
    Target(AgentTarget),
    Image(crate::eval_image::ImageAgent, std::net::SocketAddr),
}

/// The gateway's address, which pods reach through their proxy.
fn gateway_addr(gateway: &LocalGateway) -> anyhow::Result<std::net::SocketAddr> {
    let addr = gateway.base_url.trim_start_matches("http://");
    addr.parse()
        .with_context(|| format!("the gateway's address {addr:?}"))
}

/// The tasks against the agent once, with progress on standard error.
async fn one_pass(
    args: &EvalArgs,
    runner: &Arc<Runner>,
    tasks: Vec<Arc<Task>>,
    agent: &Agent,
) -> (Report, Vec<RunResult>) {
    let mut progress = Progress::new(std::io::stderr().is_terminal());
    let options = EvalOptions {
        concurrency: args.concurrency,
        ..EvalOptions::default()
    };
    let on_done = |done, total, r: &RunResult| progress.show(done, total, r);
    let out = match agent {
        Agent::Target(target) => {
            evaluate(runner.clone(), tasks, target.clone(), &options, on_done).await
        }
        Agent::Image(image, gateway) => {
            let budget = Duration::from_secs(args.time_budget);
            (image.evaluate(runner.clone(), *gateway, tasks, &options, budget, on_done)).await
        }
    };
    progress.finish();
    out
}

/// The agent to call: a reference agent served on a loopback port, or the given URL.
async fn agent_target(
    args: &EvalArgs,
    tasks: &[Arc<Task>],
) -> anyhow::Result<(AgentTarget, Option<tokio::task::JoinHandle<()>>)> {
    let agent = args.agent.as_deref().unwrap_or_default();
    match agent.parse::<AgentKind>() {
        Ok(kind) => {
            let mut secret = [0u8; 32];
            getrandom::fill(&mut secret)
                .map_err(|e| anyhow::anyhow!("reading the system's random source: {e}"))?;
            let listener = mcpbench_config::bind(mcpbench_config::LOOPBACK)?;
            let url = format!("http://{}/", listener.local_addr()?);
            let app = mcpbench_agents::router(kind, tasks, &secret);
            let server = tokio::spawn(async move {
                let _ = mcpbench_agents::serve(listener, app).await;
            });
            Ok((
                AgentTarget {
                    label: agent.to_string(),
                    url,
                    signing_secret: secret.to_vec(),
                    sandbox_gateway: None,
                },
                Some(server),
            ))
        }
        Err(_) if agent.starts_with("http://") || agent.starts_with("https://") => Ok((
            AgentTarget {
                label: agent.to_string(),
                url: agent.to_string(),
                signing_secret: args.signing_secret.clone().into_bytes(),
                sandbox_gateway: None,
            },
            None,
        )),
        Err(e) => bail!("--agent: {e}, or an http(s):// URL"),
    }
}

struct Progress {
    terminal: bool,
    passed: usize,
}

impl Progress {
    fn new(terminal: bool) -> Self {
        Self {
            terminal,
            passed: 0,
        }
    }

    fn show(&mut self, done: usize, total: usize, r: &RunResult) {
        self.passed += usize::from(r.passed);
        if self.terminal {
            let width = 30;
            let filled = done * width / total.max(1);
            eprint!(
                "\r[{}{}] {done}/{total} passed {}",
                "#".repeat(filled),
                "-".repeat(width - filled),
                self.passed
            );
            let _ = std::io::stderr().flush();
        } else {
            let detail = r
                .detail
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            eprintln!(
                "[{done}/{total}] {} {}{detail}",
                r.task_id,
                r.reason.as_str()
            );
        }
    }

    fn finish(&self) {
        if self.terminal {
            eprintln!();
        }
    }
}

pub(crate) fn write_outputs(
    out: &std::path::Path,
    report: &Report,
    results: &[RunResult],
) -> anyhow::Result<()> {
    let traces = out.join("traces");
    std::fs::create_dir_all(&traces).with_context(|| format!("creating {}", traces.display()))?;
    std::fs::write(
        out.join("report.json"),
        serde_json::to_string_pretty(report)? + "\n",
    )?;
    // A task run more than once (`--trials`) has a trace per trial: `ID.trial-N.jsonl`.
    let mut runs: HashMap<&str, usize> = HashMap::new();
    for r in results {
        *runs.entry(r.task_id.as_str()).or_default() += 1;
    }
    let mut trial: HashMap<&str, usize> = HashMap::new();
    for r in results {
        let n = trial.entry(r.task_id.as_str()).or_default();
        *n += 1;
        if r.trace.is_empty() {
            continue;
        }
        let name = match runs[r.task_id.as_str()] {
            1 => format!("{}.jsonl", r.task_id),
            _ => format!("{}.trial-{n}.jsonl", r.task_id),
        };
        std::fs::write(traces.join(name), trace::to_jsonl(&r.trace))?;
    }
    Ok(())
}

fn pct(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{:.1}%", v * 100.0))
}

fn print_summary(report: &Report) {
    let s = &report.scores.overall;
    let ci = s.success_ci95.map_or("n/a".into(), |[lo, hi]| {
        format!("{:.1}-{:.1}%", lo * 100.0, hi * 100.0)
    });
    eprintln!(
        "\nagent {} on {} ({} tasks, {:.1} s)",
        report.agent, report.set, s.tasks, report.duration_s
    );
    eprintln!(
        "  success rate            {} ({} of {}), 95% CI {ci}",
        pct(s.success_rate),
        s.passed,
        s.tasks
    );
    if let (Some([lo, hi]), Some(d)) = (s.success_ci95_clustered, s.design_effect) {
        eprintln!(
            "  with related runs       95% CI {:.1}-{:.1}% ({} templates, design effect {d:.2})",
            lo * 100.0,
            hi * 100.0,
            s.clusters
        );
    }
    eprintln!(
        "  tool-call efficiency    {}",
        s.efficiency.map_or("n/a".into(), |e| format!(
            "{e:.3} (calls / max_steps, lower is better)"
        ))
    );
    eprintln!(
        "  hallucinated-tool rate  {} ({} of {} calls)",
        pct(s.hallucinated_tool_rate),
        s.hallucinated_calls,
        s.tool_calls
    );
    eprintln!("  recovery rate           {}", pct(s.recovery_rate));
    if let Some(r) = &report.scores.repeated {
        let each = |v: &[f64]| {
            let parts: Vec<String> = v.iter().map(|x| format!("{:.1}%", x * 100.0)).collect();
            parts.join(", ")
        };
        eprintln!(
            "  pass^k, k = 1..{}        {} (every one of k trials passes)",
            r.k_max,
            each(&r.pass_hat_k)
        );
        eprintln!(
            "  pass@k, k = 1..{}        {} (one of k trials passes)",
            r.k_max,
            each(&r.pass_at_k)
        );
    }
    if let Some(sec) = &report.scores.security {
        let o = &sec.overall;
        eprintln!(
            "  under attack            utility {} ({} of {}), under attack {} ({} of {}), \
             attack success {} ({} of {})",
            pct(o.utility),
            o.twins_passed,
            o.twin_runs,
            pct(o.utility_under_attack),
            o.passed_under_attack,
            o.attacked_runs,
            pct(o.attack_success_rate),
            o.attacks_met,
            o.attacked_runs
        );
        let kinds: Vec<String> = (sec.by_kind.iter())
            .map(|(k, f)| format!("{k} {}", pct(f.attack_success_rate)))
            .collect();
        eprintln!("  attack success by kind  {}", kinds.join(", "));
    }
    if !report.scores.by_shape.is_empty() {
        let parts: Vec<String> = report
            .scores
            .by_shape
            .iter()
            .map(|(k, m)| format!("{k} {} of {}", pct(m.success_rate), m.tasks))
            .collect();
        eprintln!("  by task shape           {}", parts.join(", "));
    }
    let p = &s.process;
    eprintln!(
        "  claims coverage         {} (mostly done: {})",
        pct(p.coverage),
        pct(p.mostly_done_rate)
    );
    eprintln!(
        "  calls                   names {}, schema {}, execution {}",
        pct(p.tool_name_validity),
        pct(p.schema_compliance),
        pct(p.execution_success)
    );
    eprintln!(
        "  against the references  selection {}, parameters {}, {} the calls, resolved {}",
        pct(p.selection_accuracy),
        pct(p.parameter_accuracy),
        p.call_ratio.map_or("n/a".into(), |r| format!("{r:.2}x")),
        pct(p.resolved_rate)
    );
    eprintln!(
        "  distractors             accuracy {} (gate 50: {}), {} of calls",
        p.distractor_accuracy
            .map_or("n/a".into(), |a| format!("{a:.1}")),
        match p.distractor_gate {
            Some(true) => "passed",
            Some(false) => "failed",
            None => "n/a",
        },
        pct(p.distractor_call_share)
    );
    if !p.failures.is_empty() {
        let groups: Vec<String> = p.failures.iter().map(|(g, n)| format!("{g} {n}")).collect();
        eprintln!("  failures                {}", groups.join(", "));
    }
    if report.harness_errors > 0 {
        eprintln!(
            "  harness errors          {} (not counted)",
            report.harness_errors
        );
    }
    eprintln!(
        "\n  {:<12} {:>6} {:>8} {:>16}",
        "server", "tasks", "passed", "success (95% CI)"
    );
    for (server, m) in &report.scores.by_server {
        let ci = m.success_ci95.map_or(String::new(), |[lo, hi]| {
            format!(" ({:.0}-{:.0}%)", lo * 100.0, hi * 100.0)
        });
        eprintln!(
            "  {server:<12} {:>6} {:>8} {:>7}{ci}",
            m.tasks,
            m.passed,
            pct(m.success_rate)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_names_known_values_each_once() {
        let f = Filter::parse("server=github, difficulty=hard").unwrap();
        assert_eq!(f.server.as_deref(), Some("github"));
        assert_eq!(f.difficulty, Some(mcpbench_tasks::Difficulty::Hard));
        assert_eq!(f.category, None);
        for (bad, says) in [
            ("server=gitlab", "server must be one of"),
            ("category=nonsense", "category must be one of"),
            ("difficulty=trivial", "difficulty must be one of"),
            ("server=github,server=slack", "given twice"),
            ("colour=red", "is not server, category or difficulty"),
            ("github", "is not KEY=VALUE"),
        ] {
            let e = Filter::parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
