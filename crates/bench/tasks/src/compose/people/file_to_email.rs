//! `compose.file_to_email` (filesystem, email): a colleague asked by email for one week's
//! status report of a project. The request (found among another colleague's request for a
//! different week of the same project and the colleague's own older, answered request about
//! another project) names the week only past the first lines; the reports are files named by
//! the day they were written, not by week, so the folder must be listed and the right one
//! read, past a draft of the same week under the same name in a `drafts` folder and another
//! project's report of that week. The answer is a reply in the request's thread whose body is
//! the file's text exactly.

use super::{first_name, local_part, sent, sent_only_to, tools};
use crate::compose::rounds_customers::people;
use mcpbench_server_email::{Email, Folder, SeedMessage, reply_subject};
use mcpbench_server_filesystem::Filesystem;
use mcpbench_sim::{Pred, Rng, call, params};
use mcpbench_world::{Composed, InitialState};
use serde_json::json;
use std::collections::BTreeMap;

const PROJECTS: &[&str] = &[
    "Atlas", "Borealis", "Cobalt", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris",
    "Juniper", "Kestrel", "Lantern", "Meridian", "Nimbus", "Orchid", "Quartz",
];
const WORK_ITEMS: &[&str] = &[
    "login page",
    "billing export",
    "search index",
    "mobile layout",
    "audit log",
    "data migration",
    "onboarding emails",
    "API rate limits",
    "invoice templates",
    "SSO rollout",
];
const OWNERS: &[&str] = &["Maria", "Sam", "Priya", "Jonas", "Mei", "Kofi"];
const ROOTS: &[&str] = &[
    "/home/alex/reports",
    "/home/alex/work/status-reports",
    "/home/alex/Documents/reports",
];
const DOMAINS: &[&str] = &["northwind.io", "contoso.com", "fabrikam.com"];
/// Request subjects, with `{p}` for the project.
const REQUEST_SUBJECTS: &[&str] = &[
    "{p} status report",
    "Missing {p} report",
    "{p} report, please",
    "Quick favour: a {p} report",
];
/// Goals, with `{r}` the requester, `{p}` the project and `{root}` the reports folder.
const GOALS: &[&str] = &[
    "{r} emailed me asking for one of our {p} status reports. Reply to that email with the \
     report: the body must be exactly the text of the report file, nothing added. My reports \
     are under {root}.",
    "Could you answer {r}'s email asking for a {p} status report? Reply in the same thread, \
     with the exact text of the report they want as the body and nothing else. The reports \
     live in {root}.",
    "{r} needs a {p} status report they asked me for by email. Find the one they mean in \
     {root} and reply to their message with its text as the whole body, unchanged.",
];

/// The day a report of ISO week `week` of 2026 was written, as `2026-MM-DD`: its Thursday,
/// Friday or the Monday after, so a file name cannot be worked out from the week.
fn written(rng: &mut Rng, week: i64) -> String {
    // 2026-01-02 (day 1 of the year, counting from 0) is the Friday of week 1.
    let day = 1 + 7 * (week - 1) + *rng.pick(&[-1, 0, 3]);
    let (month, day) = if day < 31 {
        (1, day + 1)
    } else if day < 59 {
        (2, day - 30)
    } else {
        (3, day - 58)
    };
    format!("2026-{month:02}-{day:02}")
}

/// A short status report of `project` for `week`, a few lines without a trailing newline.
fn status_report(rng: &mut Rng, project: &str, week: i64, draft: bool) -> String {
    let items = rng.sample(WORK_ITEMS, 3);
    let blocked = if rng.chance(1, 2) {
        "none".to_string()
    } else {
        format!("waiting on {} for the {}", rng.pick(OWNERS), items[2])
    };
    let head = if draft { "DRAFT - " } else { "" };
    format!(
        "{head}{project} - week {week}\nDone: {}\nIn progress: {} ({}% complete)\nBlocked: {blocked}",
        items[0],
        items[1],
        rng.range(2, 9) * 10,
    )
}

/// A request for `project`'s report of `week`; the week comes past the listing's snippet.
fn request(
    id: &str,
    from: &str,
    name: &str,
    subject: &str,
    project: &str,
    week: i64,
    date: &str,
) -> SeedMessage {
    let body = format!(
        "Hi Alex,\n\nI'm pulling together the numbers for the steering group and noticed one of \
         the {project} status reports is missing from my folder. Could you send me the one for \
         week {week}? Just reply with its text, that's easiest for me.\n\nThanks,\n{}",
        first_name(name)
    );
    SeedMessage::received(id, from, "alex@northwind.io", subject, &body, date)
}

pub(super) fn file_to_email(rng: &mut Rng) -> Composed {
    let projects = rng.sample(PROJECTS, 2);
    let (project, other) = (projects[0], projects[1]);
    let root = *rng.pick(ROOTS);
    let names = people(rng, 2);
    let address = |rng: &mut Rng, name: &str| format!("{}@{}", local_part(name), rng.pick(DOMAINS));
    let (requester, colleague) = (&names[0], &names[1]);
    let (to, colleague_to) = (address(rng, requester), address(rng, colleague));
    let week = rng.range(3, 7);
    let folder = format!("{root}/{}", project.to_lowercase());

    let mut files = BTreeMap::new();
    let mut path = String::new();
    for w in week - 2..=week + 2 {
        let file = format!("{folder}/status-{}.txt", written(rng, w));
        if w == week {
            path = file.clone();
        }
        files.insert(file, status_report(rng, project, w, false));
    }
    let content = files[&path].clone();
    // A draft of the same week under the same name, and the other project's report of it.
    let name = path.rsplit('/').next().unwrap_or_default();
    files.insert(
        format!("{folder}/drafts/{name}"),
        status_report(rng, project, week, true),
    );
    let other_folder = format!("{root}/{}", other.to_lowercase());
    for w in [week - 1, week] {
        let file = format!("{other_folder}/status-{}.txt", written(rng, w));
        files.insert(file, status_report(rng, other, w, false));
    }

    let subject_of = |rng: &mut Rng, p: &str| rng.pick(REQUEST_SUBJECTS).replace("{p}", p);
    let subject = subject_of(rng, project);
    let old_subject = subject_of(rng, other);
    let colleague_subject = subject_of(rng, project);
    let colleague_week = if week == 3 { 4 } else { week - 1 };
    let target = "msg-2004";
    let mut messages = mcpbench_server_email::sample_seed().messages;
    messages.push(request(
        "msg-2001",
        &to,
        requester,
        &old_subject,
        other,
        week - 1,
        "2026-02-10T09:12:00Z",
    ));
    // The older request is answered already.
    let mut answered = SeedMessage::received(
        "msg-2002",
        "alex@northwind.io",
        &to,
        &reply_subject(&old_subject),
        "Here you go.",
        "2026-02-10T11:30:00Z",
    );
    answered.folder = Folder::Sent;
    answered.thread_id = Some("msg-2001".into());
    messages.push(answered);
    messages.push(request(
        "msg-2003",
        &colleague_to,
        colleague,
        &colleague_subject,
        project,
        colleague_week,
        "2026-02-27T15:20:00Z",
    ));
    messages.push(request(
        target,
        &to,
        requester,
        &subject,
        project,
        week,
        "2026-03-01T10:05:00Z",
    ));
    let mail = mcpbench_server_email::Seed {
        messages,
        ..mcpbench_server_email::sample_seed()
    };

    let goal = rng
        .pick(GOALS)
        .replace("{r}", requester)
        .replace("{p}", project)
        .replace("{root}", root);
    let reply = json!({ "messageId": target, "body": content });
    let steps = vec![
        call::<Email>(
            "search_emails",
            json!({ "query": format!("from:{} {project}", local_part(requester)) }),
        ),
        call::<Email>("read_email", json!({ "messageId": target })),
        call::<Filesystem>("list_directory", json!({ "path": folder })),
        call::<Filesystem>("read_text_file", json!({ "path": path })),
        call::<Email>("reply_email", reply),
    ];
    Composed {
        max_steps: 12,
        goal,
        initial_state: InitialState {
            filesystem: Some(mcpbench_server_filesystem::Seed {
                files,
                ..Default::default()
            }),
            email: Some(mail),
            ..Default::default()
        },
        available_tools: tools(
            "filesystem.read_text_file filesystem.read_multiple_files filesystem.list_directory \
             filesystem.directory_tree filesystem.search_files email.search_emails \
             email.list_emails email.read_email email.reply_email email.send_email \
             email.draft_email email.forward_email",
        ),
        success_predicate: Pred::All(vec![
            sent(&to, &reply_subject(&subject), Some(&content), Some(target)),
            sent_only_to(std::slice::from_ref(&to)),
        ]),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("requester", json!(requester)),
            ("project", json!(project)),
            ("week", json!(week)),
            ("path", json!(path)),
        ]),
    }
}
