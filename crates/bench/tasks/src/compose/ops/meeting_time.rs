//! `compose.meeting_time_to_channel` (calendar + slack): two named colleagues asked in a
//! Slack channel when one of the user's meetings starts on some day; each gets an answer in
//! their question's thread, looked up in the calendar. Which meeting and which day are only in
//! Slack. The calendar holds the same title on other days and a similar title on the same
//! day; one of the two colleagues also has an older question that someone already answered.
//! A careless agent answers in the channel instead of the thread, answers the old question,
//! or reads the time of the wrong day's meeting.

use super::{fill, tools};
use mcpbench_server_calendar::{Calendar, Seed as CalendarSeed, SeedEvent};
use mcpbench_server_slack::world::{CHANNELS, Person, World};
use mcpbench_server_slack::{Background, DEFAULT_BOT, Slack, history_reads};
use mcpbench_sim::dates::{format_clock, parse_date, weekday};
use mcpbench_sim::{Pred, Rng, call, not, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;

/// (meeting title, a similar title seeded on the same day as a distractor).
const MEETINGS: &[(&str, &str)] = &[
    ("Design review", "Design review prep"),
    ("Sprint planning", "Sprint planning follow-up"),
    ("Budget sync", "Budget sync notes"),
    ("Customer call", "Customer call debrief"),
    ("Roadmap workshop", "Roadmap workshop dry run"),
    ("Hiring committee", "Hiring committee pre-read"),
    ("Vendor demo", "Vendor demo setup"),
];

/// Working days after the calendar's "now" (Monday 2026-03-02), with how a person says them.
const DAYS: &[(&str, &str)] = &[
    ("2026-03-03", "3 March"),
    ("2026-03-04", "4 March"),
    ("2026-03-05", "5 March"),
    ("2026-03-06", "6 March"),
    ("2026-03-09", "9 March"),
    ("2026-03-10", "10 March"),
    ("2026-03-11", "11 March"),
    ("2026-03-12", "12 March"),
];

/// Start times, in minutes of the day.
const SLOTS: &[i64] = &[540, 570, 600, 645, 675, 780, 810, 855, 900, 945, 990];

const MEETING_CHANNELS: &[&str] = &[
    "general",
    "design",
    "eng-backend",
    "data-team",
    "support",
    "releases",
];

/// Ways to ask, with the two `{a}` and `{b}` who asked, the `{channel}` and the `{form}` of
/// the answer.
const GOALS: [&str; 3] = [
    "{a} and {b} each asked in #{channel} on Slack when one of my meetings starts. Look the times up in my calendar and answer each of their open questions in its thread, reading exactly `{form}`.",
    "Could you answer {a}'s and {b}'s latest questions in the #{channel} Slack channel? They want to know when a meeting of mine starts; reply in each question's thread with `{form}`, using my calendar.",
    "In #{channel}, {a} and {b} are waiting to hear when a meeting on my calendar begins. Check the calendar and reply to each unanswered question in its thread, exactly as `{form}`.",
];

const FORMS: &[(&str, &str)] = &[
    ("<meeting> starts at <HH:MM>", "{t} starts at {h}"),
    ("<meeting>: <HH:MM>", "{t}: {h}"),
    ("<meeting> begins at <HH:MM>", "{t} begins at {h}"),
];

/// One question to answer: who asks, the meeting, its day and start.
struct Question {
    who: Person,
    title: &'static str,
    day: &'static str,
    said: &'static str,
    start: i64,
}

pub(super) fn meeting_time_to_channel(rng: &mut Rng) -> Composed {
    let meetings = rng.sample(MEETINGS, 3);
    let days = rng.sample(DAYS, 3);
    let mut w = World::new(rng, 5);
    let mut events = Vec::new();
    let mut questions = Vec::new();
    for k in 0..2 {
        let (title, similar) = meetings[k];
        let slots = rng.sample(SLOTS, 3);
        let (day, said) = days[k];
        // The meeting, a similar title that day, and the same title another day.
        events.push((title, day, slots[0]));
        events.push((similar, day, slots[1]));
        events.push((title, days[2].0, slots[2]));
        let who = w.people[k].clone();
        questions.push(Question {
            who,
            title,
            day,
            said,
            start: slots[0],
        });
    }
    let calendar = calendar(rng, events);
    let channel = *rng.pick(MEETING_CHANNELS);
    let id = w.channel(channel, true);
    w.chatter(rng, &id, 2);
    // An older question of the first asker, about the third meeting, already answered.
    let (old_title, _) = meetings[2];
    let old = w.say(
        &id,
        &questions[0].who.id,
        &format!("When does the {old_title} start on Friday?"),
    );
    let helper = w.people[3].id.clone();
    w.reply(&id, &old, &helper, "It was moved, check the invite");
    w.chatter(rng, &id, 1);
    let mut asked = Vec::new();
    for q in &questions {
        let day = parse_date(q.day).expect("a pool date");
        let text = format!(
            "When does the {} start on {} {}?",
            q.title,
            weekday(day),
            q.said
        );
        asked.push(w.say(&id, &q.who.id, &text));
    }
    w.chatter(rng, &id, 1);
    let others: Vec<&str> = CHANNELS.iter().copied().filter(|c| *c != channel).collect();
    let other = *rng.pick(&others);
    let elsewhere = w.channel(other, true);
    w.chatter(rng, &elsewhere, 2);

    let &(form, pattern) = rng.pick(FORMS);
    let answer = |q: &Question| fill(pattern, &[("t", q.title), ("h", &format_clock(q.start))]);
    // The channel's history down to the older open question, wherever a long history puts it.
    w.seed.background = Some(Background::draw(rng));
    let mut steps = vec![call::<Slack>("slack_list_channels", json!({}))];
    steps.extend(
        history_reads(&w.seed, &id, 100, Some(&asked[0]))
            .into_iter()
            .map(|args| call::<Slack>("slack_get_channel_history", args)),
    );
    // The fortnight on one page, whatever months of meetings the calendar holds around it.
    steps.extend([call::<Calendar>(
        "list_events",
        json!({ "timeMin": "2026-03-03T00:00", "timeMax": "2026-03-13T00:00", "maxResults": 250 }),
    )]);
    let mut checks = Vec::new();
    for (q, ts) in questions.iter().zip(&asked) {
        let text = answer(q);
        steps.push(call::<Slack>(
            "slack_reply_to_thread",
            json!({ "channel_id": id, "thread_ts": ts, "text": text }),
        ));
        checks.push(reply(channel, ts, Some(&text)));
    }
    checks.push(not(reply(channel, &old, None)));
    let first = |p: &Person| p.real_name.split(' ').next().unwrap_or("").to_string();
    let (a, b) = (first(&questions[0].who), first(&questions[1].who));
    let slots = [
        ("a", a.as_str()),
        ("b", b.as_str()),
        ("channel", channel),
        ("form", form),
    ];
    let template = *rng.pick(&GOALS);
    let goal = fill(template, &slots);
    Composed {
        max_steps: steps.len() as u32 + 5,
        goal,
        initial_state: InitialState {
            calendar: Some(calendar),
            slack: Some(w.seed),
            ..Default::default()
        },
        available_tools: tools(&[
            (
                "calendar",
                &[
                    "get_current_time",
                    "list_calendars",
                    "list_events",
                    "search_events",
                    "get_event",
                ],
            ),
            ("slack", super::SLACK_TOOLS),
            ("slack", &["slack_get_thread_replies", "slack_get_users"]),
        ]),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("meetings", json!([questions[0].title, questions[1].title])),
            ("dates", json!([questions[0].day, questions[1].day])),
            ("channel", json!(channel)),
        ]),
    }
}

/// The calendar of `(title, day, start)` events in shuffled order, with fillers.
fn calendar(rng: &mut Rng, mut plan: Vec<(&str, &str, i64)>) -> CalendarSeed {
    let fillers = rng.sample(
        &["Standup", "Lunch with Sam", "Focus time", "1:1 with Maria"],
        2,
    );
    let taken: Vec<i64> = plan.iter().map(|p| p.2).collect();
    let free: Vec<i64> = SLOTS
        .iter()
        .copied()
        .filter(|s| !taken.contains(s))
        .collect();
    let day = plan[0].1;
    plan.push((fillers[0], day, free[0]));
    plan.push((fillers[1], day, free[1]));
    rng.shuffle(&mut plan);
    let at = |d: &str, minutes: i64| format!("{d}T{}", format_clock(minutes));
    let events = (plan.iter().enumerate())
        .map(|(n, &(t, d, start))| {
            let length = *rng.pick(&[30, 45, 60]);
            let id = format!("evt-{}", 1001 + n);
            SeedEvent::new(&id, t, &at(d, start), &at(d, start + length))
        })
        .collect();
    CalendarSeed {
        events,
        ..CalendarSeed::default()
    }
}

/// A reply by the bot in the thread of `ts`, reading exactly `text` when given.
fn reply(channel: &str, ts: &str, text: Option<&str>) -> Pred<Atom> {
    Pred::Atom(Atom::slack(
        mcpbench_server_slack::Atom::ThreadReplyPosted {
            channel: channel.into(),
            thread_ts: ts.into(),
            text: text.map(String::from),
            text_contains: None,
            user: Some(DEFAULT_BOT.into()),
        },
    ))
}
