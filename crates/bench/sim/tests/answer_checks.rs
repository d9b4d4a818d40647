//! The strict answer checks: a spray of numbers or a list of every candidate never passes, a
//! plain right answer does, and a check that nothing could pass is refused.

use mcpbench_sim::{AnswerCheck, Pred};
use serde_json::json;

fn only(value: f64) -> AnswerCheck {
    AnswerCheck::OnlyNumber {
        value,
        tolerance: 0.0,
    }
}

fn names(value: &str, others: &[&str]) -> AnswerCheck {
    AnswerCheck::Names {
        value: value.into(),
        others: others.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn only_number_takes_the_one_right_number_and_nothing_else() {
    let c = only(3.0);
    assert!(c.holds("3"));
    assert!(c.holds("There are 3 open bugs."));
    assert!(
        c.holds("3 open bugs as of 2026-03-04"),
        "a date is not a number here"
    );
    assert!(!c.holds("1 2 3"), "a spray fails");
    assert!(!c.holds("3 of 12 bugs are open"), "another number fails");
    assert!(!c.holds("none"));
    // The lenient check of version 1 still passes the spray: why the strict one exists.
    let lenient = AnswerCheck::Number {
        value: 3.0,
        tolerance: 0.0,
    };
    assert!(lenient.holds("1 2 3"));
    let within = AnswerCheck::OnlyNumber {
        value: 38.75,
        tolerance: 0.5,
    };
    assert!(within.holds("about 38.9 degrees"));
    assert!(!within.holds("38.9 or 40"));
}

#[test]
fn names_takes_the_right_candidate_and_no_other() {
    let c = names("Acme Corp", &["Globex", "Initech"]);
    assert!(c.holds("She works at Acme Corp."));
    assert!(
        !c.holds("Acme Corp, Globex or Initech"),
        "listing every candidate fails"
    );
    assert!(!c.holds("Globex"));
    assert!(!c.holds("Acme"), "a part of the phrase is not the phrase");
}

#[test]
fn the_checks_say_why_they_fail() {
    let p: Pred<()> = Pred::Answer(only(3.0));
    let why = p.unmet(Some("1 2 3"), &mut |_| true).unwrap();
    assert!(why.contains("2 other number"), "{why}");
    let p: Pred<()> = Pred::Answer(names("Acme Corp", &["Globex"]));
    let why = p.unmet(Some("Acme Corp or Globex"), &mut |_| true).unwrap();
    assert!(why.contains("Globex"), "{why}");
}

#[test]
fn a_check_nothing_could_pass_is_a_problem() {
    assert!(names("Acme Corp", &["Globex"]).problem().is_none());
    assert!(
        names("Acme Corp", &["Acme"]).problem().is_some(),
        "the right answer names a wrong one"
    );
    assert!(names("Acme", &[""]).problem().is_some());
    assert!(names("  ", &[]).problem().is_some());
    assert!(only(3.0).problem().is_none());
}

#[test]
fn the_new_checks_round_trip_in_the_task_format() {
    let c: AnswerCheck =
        serde_json::from_value(json!({"answer.names": {"value": "Acme", "others": ["Globex"]}}))
            .unwrap();
    assert_eq!(c, names("Acme", &["Globex"]));
    let c: AnswerCheck =
        serde_json::from_value(json!({"answer.only_number": {"value": 3}})).unwrap();
    assert_eq!(c, only(3.0));
    assert!(
        serde_json::from_value::<AnswerCheck>(json!({"answer.names": {"value": "Acme"}})).is_err(),
        "the other candidates are required"
    );
}

#[test]
fn names_from_the_states_candidates_leaves_out_what_nothing_could_pass() {
    let titles = [
        "Staff Engineer",
        "Engineer",
        "Product Designer",
        "Staff Engineer",
        "Support Lead",
    ];
    let c = AnswerCheck::names("Staff Engineer", titles);
    assert_eq!(
        c,
        names("Staff Engineer", &["Product Designer", "Support Lead"]),
        "the right one, a phrase it holds and repeats are no wrong candidates"
    );
    assert_eq!(c.problem(), None);
    assert!(c.holds("Ada Park is a Staff Engineer."));
    assert!(!c.holds("Staff Engineer, Product Designer or Support Lead"));
}
