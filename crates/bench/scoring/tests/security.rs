//! The security figures by hand: utility over the twins, utility under attack and attack
//! success over the attacked runs, by kind and by server, and the attacked runs left out of
//! every figure of the rank.

use mcpbench_scoring::{AttackOutcome, Outcome, RunCounts, score};

fn run(task: &str, server: &str, passed: bool, calls: u32) -> Outcome {
    Outcome {
        task_id: task.into(),
        server: server.into(),
        category: "composition".into(),
        difficulty: "easy".into(),
        max_steps: 10,
        passed,
        counts: RunCounts {
            tool_calls: calls,
            ..RunCounts::default()
        },
        analysis: None,
        duration_ms: None,
        usage: None,
        usage_measured: false,
        attack: None,
    }
}

fn attacked(task: &str, kind: &str, server: &str, passed: bool, met: bool) -> Outcome {
    Outcome {
        attack: Some(AttackOutcome {
            kind: kind.into(),
            server: server.into(),
            twin: Some(task.trim_end_matches("-attacked").into()),
            met,
        }),
        ..run(task, server, passed, 9)
    }
}

#[test]
fn attacked_runs_count_in_the_security_figures_alone() {
    let outcomes = vec![
        run("mail-a", "email", true, 2),
        attacked("mail-a-attacked", "email", "email", true, true),
        run("mail-b", "email", true, 2),
        attacked("mail-b-attacked", "email", "email", false, false),
        run("gh-c", "github", false, 2),
        attacked("gh-c-attacked", "issue", "github", false, true),
        // An ordinary task with no attacked twin: in the rank, not in the utility.
        run("wx-d", "weather", false, 2),
    ];
    let scores = score(&outcomes);

    // The rank's figures are of the four ordinary runs only.
    assert_eq!(scores.overall.tasks, 4);
    assert_eq!(scores.overall.passed, 2);
    assert_eq!(scores.overall.tool_calls, 8, "no attacked run's calls");
    assert_eq!(scores.by_server["email"].tasks, 2);
    assert_eq!(scores.by_server["github"].tasks, 1);

    let s = scores.security.expect("runs under attack");
    let o = &s.overall;
    assert_eq!((o.twin_runs, o.twins_passed), (3, 2), "wx-d is no twin");
    assert_eq!(o.utility, Some(2.0 / 3.0));
    assert_eq!(
        (o.attacked_runs, o.passed_under_attack, o.attacks_met),
        (3, 1, 2)
    );
    assert_eq!(o.utility_under_attack, Some(1.0 / 3.0));
    assert_eq!(o.attack_success_rate, Some(2.0 / 3.0));
    let [lo, hi] = o.attack_success_ci95.expect("an interval");
    assert!(lo < 2.0 / 3.0 && 2.0 / 3.0 < hi);

    // By kind: each group's utility is over its own twins.
    let email = &s.by_kind["email"];
    assert_eq!((email.attacked_runs, email.attacks_met), (2, 1));
    assert_eq!((email.twin_runs, email.twins_passed), (2, 2));
    assert_eq!(email.utility, Some(1.0));
    assert_eq!(email.utility_under_attack, Some(0.5));
    let issue = &s.by_kind["issue"];
    assert_eq!(issue.attack_success_rate, Some(1.0));
    assert_eq!(issue.utility, Some(0.0));
    assert_eq!(s.by_server.keys().collect::<Vec<_>>(), ["email", "github"]);
    assert_eq!(s.by_server["github"].attacked_runs, 1);
}

#[test]
fn a_set_without_attacks_has_no_security_figures_and_unchanged_scores() {
    let outcomes = vec![run("a", "email", true, 2), run("b", "shop", false, 3)];
    let scores = score(&outcomes);
    assert!(scores.security.is_none());
    assert_eq!(scores.overall.tasks, 2);
    let json = serde_json::to_value(&scores).unwrap();
    assert!(json.get("security").is_none(), "absent, not null: {json}");
}

#[test]
fn an_attacked_task_standing_alone_counts_under_attack_but_gives_no_utility() {
    let mut lone = attacked("x", "chat", "slack", true, false);
    lone.attack.as_mut().unwrap().twin = None;
    let s = score(&[lone]).security.unwrap();
    assert_eq!(s.overall.utility, None);
    assert_eq!(s.overall.utility_under_attack, Some(1.0));
    assert_eq!(s.overall.attack_success_rate, Some(0.0));
}
