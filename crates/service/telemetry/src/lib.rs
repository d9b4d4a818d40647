//! Logs and metrics shared by the API and the worker.
//!
//! Logs: `tracing` with an env filter (`MCPBENCH_LOG`, default `info`), human-readable or, with
//! the JSON switch, one JSON object a line. Ids go in span fields; secrets never go anywhere
//! near a log line (config types redact them in `Debug`).
//!
//! Metrics: one Prometheus registry per process, rendered in the text exposition format at
//! `/metrics`: HTTP latency by route, run durations by outcome, a worker's own time per job by
//! stage, queue depth and running jobs.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::sync::Arc;
use tracing_subscriber::EnvFilter;

/// Starts logging to stderr; `json` switches to JSON lines. `filter` is an env-filter
/// directive such as `info` or `mcpbench_api=debug,info`; a bad one falls back to `info`.
/// Safe to call twice (the second call does nothing).
pub fn init_logging(json: bool, filter: &str) {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = if json {
        builder.json().flatten_event(true).try_init()
    } else {
        builder.try_init()
    };
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HttpLabels {
    method: String,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunLabels {
    reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CalendarLabels {
    step: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StageLabels {
    stage: String,
}

/// The process's metrics. Cheap to share (`Arc`); every method takes `&self`.
pub struct Metrics {
    registry: Registry,
    http: Family<HttpLabels, Histogram>,
    runs: Family<RunLabels, Histogram>,
    stages: Family<StageLabels, Histogram>,
    queued: Gauge,
    running: Gauge,
    calendar: Family<CalendarLabels, Counter>,
}

impl Metrics {
    pub fn new() -> Arc<Self> {
        let mut registry = Registry::with_prefix("mcpbench");
        // 0.1 ms .. ~1.6 s: an API request.
        let http = Family::<HttpLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0001, 2.0, 15))
        });
        // 10 ms .. ~5.5 min: one agent run.
        let runs = Family::<RunLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.01, 2.0, 16))
        });
        // 0.1 ms .. ~1.6 s: a job's own work around its run (claim, prepare, store, ...).
        let stages = Family::<StageLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0001, 2.0, 15))
        });
        let queued = Gauge::default();
        let running = Gauge::default();
        let calendar = Family::<CalendarLabels, Counter>::default();
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency by method, route and status",
            http.clone(),
        );
        registry.register(
            "run_duration_seconds",
            "Agent run durations by outcome",
            runs.clone(),
        );
        registry.register(
            "job_stage_duration_seconds",
            "A worker's own time per job outside the agent's run, by stage: claim, prepare, \
             store, analyse, record",
            stages.clone(),
        );
        registry.register("queue_jobs_queued", "Jobs waiting to run", queued.clone());
        registry.register("queue_jobs_running", "Jobs being run", running.clone());
        registry.register(
            "calendar_steps",
            "Steps of the calendar's turn of the months by step (draft, activate, retire, \
             release, tick) and outcome (done, failed)",
            calendar.clone(),
        );
        Arc::new(Self {
            registry,
            http,
            runs,
            stages,
            queued,
            running,
            calendar,
        })
    }

    /// One HTTP request; `route` is the matched route pattern, never the raw path (ids would
    /// make the label set unbounded).
    pub fn observe_http(&self, method: &str, route: &str, status: u16, seconds: f64) {
        self.http
            .get_or_create(&HttpLabels {
                method: method.into(),
                route: route.into(),
                status,
            })
            .observe(seconds);
    }

    /// One finished run and how it ended (`passed`, `timeout`, ...).
    pub fn observe_run(&self, reason: &str, seconds: f64) {
        self.runs
            .get_or_create(&RunLabels {
                reason: reason.into(),
            })
            .observe(seconds);
    }

    /// One stage of a job outside its run (`claim`, `prepare`, `store`, `analyse`, `record`):
    /// where a worker's time between runs goes.
    pub fn observe_stage(&self, stage: &str, seconds: f64) {
        self.stages
            .get_or_create(&StageLabels {
                stage: stage.into(),
            })
            .observe(seconds);
    }

    /// One step of the calendar, carried out or failed (a failed one is tried again).
    pub fn count_calendar_step(&self, step: &str, done: bool) {
        self.calendar
            .get_or_create(&CalendarLabels {
                step: step.into(),
                outcome: if done { "done" } else { "failed" }.into(),
            })
            .inc();
    }

    /// The queue as last sampled.
    pub fn set_queue(&self, queued: i64, running: i64) {
        self.queued.set(queued);
        self.running.set(running);
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}

/// The content type of [`Metrics::render`].
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_metrics_carry_what_was_observed() {
        let m = Metrics::new();
        m.observe_http("GET", "/leaderboard", 200, 0.002);
        m.observe_run("timeout", 120.0);
        m.observe_stage("store", 0.004);
        m.set_queue(7, 2);
        let text = m.render();
        assert!(text.contains(
            r#"mcpbench_http_request_duration_seconds_count{method="GET",route="/leaderboard",status="200"} 1"#
        ), "{text}");
        assert!(text.contains(r#"mcpbench_run_duration_seconds_count{reason="timeout"} 1"#));
        assert!(text.contains(r#"mcpbench_job_stage_duration_seconds_sum{stage="store"} 0.004"#));
        assert!(text.contains("mcpbench_queue_jobs_queued 7"));
        assert!(text.contains("mcpbench_queue_jobs_running 2"));
        assert!(text.ends_with("# EOF\n"));
    }
}
