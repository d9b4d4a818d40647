//! The vendor command line against a running `mcpbench up`: login (refused with a wrong key,
//! kept with the right one), submit with --watch to completion, runs, publish, and the exit
//! statuses and sentences of what goes wrong.

mod support;

use support::{mcpbench, serve_agent, text, up};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vendor_logs_in_submits_watches_lists_runs_and_publishes() {
    let data = tempfile::tempdir().unwrap();
    let (up, tasks) = up(data.path(), 4, false).await;
    let config = data.path().join("config");

    // Not logged in yet: the command cannot run, and says what to do.
    let o = mcpbench(
        &config,
        &["status", "00000000-0000-0000-0000-000000000000"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("mcpbench login"), "{}", text(&o));

    // A wrong key is refused by the API (exit 1) and nothing is kept.
    let o = mcpbench(
        &config,
        &["login", "--server", &up.url, "--api-key", "mcpb_wrong"],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(!config.join("credentials.json").exists());
    // A server that is not there cannot be reached (exit 2).
    let o = mcpbench(
        &config,
        &["login", "--server", "http://127.0.0.1:9"],
        Some("k\n"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("cannot reach"), "{}", text(&o));

    // The right key, read from stdin, is kept for this user only.
    let o = mcpbench(
        &config,
        &["login", "--server", &format!("{}/", up.url)],
        Some(&format!("{}\n", up.demo_key)),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("API key:"),
        "no prompt when the key comes on standard input: {}",
        text(&o)
    );
    let creds = config.join("credentials.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&creds).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // The oracle, served here, solves every task; --watch follows it to its scores.
    let agent = serve_agent(mcpbench_agents::AgentKind::Oracle, &tasks).await;
    let config_dir = config.clone();
    let agent_url = agent.clone();
    let o = tokio::task::spawn_blocking(move || {
        mcpbench(
            &config_dir,
            &[
                "submit",
                "--name",
                "cli",
                "--model",
                "oracle-1",
                "--endpoint",
                &agent_url,
                "--organisation",
                "Acme AI",
                "--model-version",
                "2025-06-01",
                "--weights",
                "open",
                "--framework",
                "LangGraph 0.2",
                "--scaffold",
                "own",
                "--watch",
            ],
            None,
        )
    })
    .await
    .unwrap();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("completed 4/4"), "{out}");
    assert!(
        out.contains(
            "organisation Acme AI, model_version 2025-06-01, weights open, \
             framework LangGraph 0.2, scaffold own"
        ),
        "what it says of itself is shown back: {out}"
    );
    assert!(out.contains("success rate 1.000"), "{out}");
    assert!(
        out.contains("[##############################] 4/4 completed"),
        "{out}"
    );
    let id = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();

    let o = mcpbench(&config, &["runs", &id], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let lines = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.contains("\tpass\t"))
        .count();
    assert_eq!(lines, 4, "{}", text(&o));
    let o = mcpbench(&config, &["runs", &id, "--failed"], None);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).lines().count(),
        0,
        "{}",
        text(&o)
    );

    // At a distractor level: the same tasks with five more tools each, said so, not ranked.
    let config_dir = config.clone();
    let agent_url = agent.clone();
    let o = tokio::task::spawn_blocking(move || {
        mcpbench(
            &config_dir,
            &[
                "submit",
                "--name",
                "wide",
                "--model",
                "oracle-1",
                "--endpoint",
                &agent_url,
                "--distractors",
                "5",
                "--watch",
            ],
            None,
        )
    })
    .await
    .unwrap();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("at distractor level 5") && out.contains("success rate 1.000"),
        "{out}"
    );

    let o = mcpbench(&config, &["publish", &id], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = mcpbench(&config, &["status", &id], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("completed"), "{}", text(&o));

    // A model on the standard track: the key goes in once and is never shown back.
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "std",
            "--model",
            "Acme 3",
            "--model-endpoint",
            "http://127.0.0.1:9/v1",
            "--model-id",
            "acme-3",
            "--model-api-key",
            "sk-cli-secret-42",
            "--model-prices",
            "0.40,1.60",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!text(&o).contains("sk-cli-secret-42"));
    let model_id = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    let o = mcpbench(&config, &["status", &model_id, "--json"], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let shown: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(shown["kind"], "model", "{shown}");
    assert_eq!(shown["model_endpoint"]["model"], "acme-3");
    assert_eq!(shown["model_endpoint"]["key"], true);
    assert_eq!(shown["model_endpoint"]["prices"]["input_per_mtok"], 0.4);
    assert!(!text(&o).contains("sk-cli-secret-42"));
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "x",
            "--model",
            "m",
            "--model-endpoint",
            "http://127.0.0.1:9/v1",
            "--model-id",
            "m",
            "--model-prices",
            "cheap",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("per million tokens"), "{}", text(&o));
    // With an image, --model-endpoint names the model the image calls: a docker submission,
    // which reports its own cost (the service says so of the prices).
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "x",
            "--model",
            "m",
            "--image",
            "registry.example/acme/agent@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "--model-endpoint",
            "http://127.0.0.1:9/v1",
            "--model-id",
            "m",
            "--model-prices",
            "1,1",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("an image reports its own cost"),
        "{}",
        text(&o)
    );
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "x",
            "--model",
            "m",
            "--endpoint",
            "http://127.0.0.1:9/",
            "--model-endpoint",
            "http://127.0.0.1:9/v1",
            "--model-id",
            "m",
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "an endpoint calls no model of ours: {}",
        text(&o)
    );

    // What goes wrong is said, with the API's words, and exits 1.
    let o = mcpbench(
        &config,
        &["status", "00000000-0000-0000-0000-000000000000"],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "x",
            "--model",
            "m",
            "--endpoint",
            "ftp://example.org/",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("422"), "{}", text(&o));
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "x",
            "--model",
            "m",
            "--endpoint",
            &agent,
            "--organisation",
            "=cmd()",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("about.organisation"), "{}", text(&o));
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "x",
            "--model",
            "m",
            "--endpoint",
            &agent,
            "--weights",
            "half",
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "clap names the choices: {}",
        text(&o)
    );
    // Usage errors are clap's (exit 2): no agent given, two agents given.
    let o = mcpbench(&config, &["submit", "--name", "x", "--model", "m"], None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "x",
            "--model",
            "m",
            "--endpoint",
            &agent,
            "--image",
            "a@sha256:00",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));

    // list, --json, cancel, logout.
    let o = mcpbench(&config, &["list"], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let lines: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(
        lines.len(),
        3,
        "the model, the one at a distractor level and the oracle, newest first: {}",
        text(&o)
    );
    assert!(lines[0].starts_with(&model_id), "{lines:?}");
    assert!(
        lines[2].starts_with(&id) && lines[2].contains("completed\t4/4\t1.000"),
        "{lines:?}"
    );
    let o = mcpbench(&config, &["list", "--json", "--limit", "1"], None);
    let listed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        listed.as_array().unwrap().len(),
        1,
        "newest first, one asked for"
    );
    let o = mcpbench(&config, &["status", &id, "--json"], None);
    let status: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (status["id"].as_str(), status["status"].as_str()),
        (Some(id.as_str()), Some("completed"))
    );
    let o = mcpbench(&config, &["runs", &id, "--json"], None);
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 4);
    assert!(runs[0]["analysis"].is_object(), "{runs}");
    let o = mcpbench(&config, &["cancel", &id], None);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a completed submission cannot be cancelled: {}",
        text(&o)
    );
    assert!(text(&o).contains("409"), "{}", text(&o));
    // rotate-key: a new key is kept here, and the commands go on with it; the old key still
    // works through the deployment's grace period (a day under `up`).
    let kept = |config: &std::path::Path| -> String {
        let creds = std::fs::read_to_string(config.join("credentials.json")).unwrap();
        let creds: serde_json::Value = serde_json::from_str(&creds).unwrap();
        creds["api_key"].as_str().unwrap().to_string()
    };
    assert_eq!(kept(&config), up.demo_key);
    let o = mcpbench(&config, &["rotate-key"], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("the old one works until"), "{}", text(&o));
    let rotated = kept(&config);
    assert!(rotated.starts_with("mcpb_") && rotated != up.demo_key);
    let o = mcpbench(&config, &["list"], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let http = reqwest::Client::new();
    for key in [&up.demo_key, &rotated] {
        let r = (http.post(format!("{}/auth/token", up.url)))
            .json(&serde_json::json!({ "api_key": key }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "both keys work in the grace");
    }
    let o = mcpbench(&config, &["logout"], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!config.join("credentials.json").exists());
    let o = mcpbench(&config, &["status", &id], None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not logged in"), "{}", text(&o));
    drop(up);
}
