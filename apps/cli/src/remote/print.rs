//! How the remote commands print a submission: its progress line, its scores and breakdowns,
//! its failures and diagnoses, a run's time and coverage.

use serde_json::Value;

pub(super) fn progress_line(done: i64, total: i64, status: &str) -> String {
    const WIDTH: i64 = 30;
    let filled = if total > 0 { done * WIDTH / total } else { 0 };
    format!(
        "[{}{}] {done}/{total} {status}",
        "#".repeat(filled as usize),
        "-".repeat((WIDTH - filled) as usize)
    )
}

fn rate(v: &Value) -> String {
    v.as_f64().map_or("-".into(), |r| format!("{r:.3}"))
}

/// A run's time: in milliseconds, or the bucket the service shows while its task is sealed.
pub(super) fn run_time(r: &Value) -> String {
    if let Some(ms) = r["duration_ms"].as_i64() {
        return format!("{ms} ms");
    }
    let range = &r["duration_range_ms"];
    match (range["at_least_ms"].as_i64(), range["below_ms"].as_i64()) {
        (Some(lo), Some(hi)) => format!("{lo}-{hi} ms"),
        (Some(lo), None) => format!(">= {lo} ms"),
        _ => "? ms".into(),
    }
}

/// A run's claims held over its claims, as `held/claims`; `-` without an analysis.
pub(super) fn coverage(analysis: &Value) -> String {
    match (
        analysis["claims_held"].as_u64(),
        analysis["claims"].as_u64(),
    ) {
        (Some(held), Some(claims)) => {
            let broken = analysis["guards_broken"].as_u64().unwrap_or(0);
            format!("{held}/{}", claims + broken)
        }
        _ => "-".into(),
    }
}

pub(super) fn print_submission(s: &Value, base: &str) {
    println!(
        "{} {} ({} on set {}): {} {}/{}",
        s["id"].as_str().unwrap_or_default(),
        s["name"].as_str().unwrap_or_default(),
        s["model"].as_str().unwrap_or_default(),
        s["set"].as_str().unwrap_or_default(),
        s["status"].as_str().unwrap_or_default(),
        s["progress"]["done"],
        s["progress"]["total"]
    );
    let about: Vec<String> = [
        "organisation",
        "model_version",
        "weights",
        "framework",
        "scaffold",
    ]
    .iter()
    .filter_map(|k| Some(format!("{k} {}", s["about"][*k].as_str()?)))
    .collect();
    if !about.is_empty() {
        println!("  {}", about.join(", "));
    }
    if let Some(level) = s["distractors"].as_str() {
        println!(
            "  at distractor level {level}: each task with that many extra tools (not ranked)"
        );
    }
    if let Some(error) = s["error"].as_str() {
        println!("  error: {error}");
    }
    let judge = &s["judge"];
    if judge.is_object() {
        println!(
            "  rubric judge ({}): mean {} over {} runs (passed {}, failed {}); not part of the scores",
            judge["models"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            rate(&judge["mean_score"]),
            judge["runs"],
            rate(&judge["mean_passed"]),
            rate(&judge["mean_failed"])
        );
    }
    let scores = &s["scores"];
    if scores.is_object() {
        let ci = &scores["success_ci95"];
        println!(
            "  success rate {} (95% interval {} to {}), {} of {} runs passed",
            rate(&scores["success_rate"]),
            rate(&ci[0]),
            rate(&ci[1]),
            scores["passed"],
            scores["tasks"]
        );
        let related = &scores["success_ci95_clustered"];
        if related.is_array() {
            println!(
                "  with runs of one template counted as related: {} to {} ({} templates)",
                rate(&related[0]),
                rate(&related[1]),
                scores["clusters"]
            );
        }
        let repeated = &scores["repeated"];
        for (i, (hat, at)) in repeated["pass_hat_k"]
            .as_array()
            .into_iter()
            .flatten()
            .zip(repeated["pass_at_k"].as_array().into_iter().flatten())
            .enumerate()
        {
            println!("  pass^{0} {1}, pass@{0} {2}", i + 1, rate(hat), rate(at));
        }
        if let Some(shapes) = scores["by_shape"].as_object() {
            let parts: Vec<String> = shapes
                .iter()
                .map(|(k, m)| format!("{k} {} of {}", rate(&m["success_rate"]), m["tasks"]))
                .collect();
            println!("  by task shape: {}", parts.join(", "));
        }
        println!(
            "  tool-call efficiency {}, hallucinated-tool rate {}, recovery rate {}",
            rate(&scores["efficiency"]),
            rate(&scores["hallucinated_tool_rate"]),
            rate(&scores["recovery_rate"])
        );
        println!(
            "  coverage {} (mostly done {}), tool names {}, schema {}, execution {}, resolved {}, distractor accuracy {}",
            rate(&scores["coverage"]),
            rate(&scores["mostly_done_rate"]),
            rate(&scores["tool_name_validity"]),
            rate(&scores["schema_compliance"]),
            rate(&scores["execution_success"]),
            rate(&scores["resolved_rate"]),
            rate(&scores["distractor_accuracy"])
        );
        if let Some(servers) = scores["by_server"].as_object() {
            for (server, m) in servers {
                println!("    {server:<12} {}", rate(&m["success_rate"]));
            }
        }
    }
    for group in s["failures"].as_array().into_iter().flatten() {
        println!(
            "  {} runs: {} (e.g. {}{})",
            group["count"],
            group["reason"].as_str().unwrap_or_default(),
            group["example_task"].as_str().unwrap_or_default(),
            group["example_detail"]
                .as_str()
                .map(|d| format!(": {d}"))
                .unwrap_or_default()
        );
    }
    for d in s["diagnoses"].as_array().into_iter().flatten() {
        println!(
            "  {} failed runs in {} (e.g. {}{})",
            d["count"],
            d["group"].as_str().unwrap_or_default(),
            d["example_task"].as_str().unwrap_or_default(),
            d["example_evidence"]
                .as_str()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        );
    }
    println!(
        "  page: {base}/web/submissions/{}",
        s["id"].as_str().unwrap_or_default()
    );
}
