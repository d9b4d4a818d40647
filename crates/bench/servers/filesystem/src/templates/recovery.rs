//! Recovery templates: an injected fault or a natural error to work around.

use super::*;

/// Ways to ask for a rename that keeps the content, with `{from}` and `{to}`.
const RENAME_KEEP_ASKS: &[&str] = &[
    "Rename {from} to {to}, keeping its content.",
    "The draft is final now: {from} should be called {to}. Same content.",
    "Please give {from} its final name, {to}, without touching what's in it.",
    "I'm done editing {from}. Rename it to {to}; the text stays as it is.",
    "Could you turn {from} into {to}? Just the name changes.",
    "Make {from} become {to}, content unchanged.",
];

pub(super) fn move_after_outage(rng: &mut Rng) -> Draft<Filesystem> {
    let (from, to, content, files) = rename_pair(rng);
    let kind = *rng.pick(&[
        ErrorKind::Unavailable,
        ErrorKind::RateLimited,
        ErrorKind::Timeout,
    ]);
    let mv = call::<Filesystem>("move_file", json!({ "source": from, "destination": to }));
    Draft {
        goal: rng
            .pick(RENAME_KEEP_ASKS)
            .replace("{from}", &from)
            .replace("{to}", &to),
        max_steps: 4,
        seed: Seed {
            files,
            ..Seed::default()
        },
        tools: Filesystem::tools(&[
            "move_file",
            "read_text_file",
            "write_file",
            "list_directory",
        ]),
        predicate: renamed(&from, &to, &content),
        references: vec![vec![mv.clone(), mv]],
        faults: vec![Fault {
            tool: qualified::<Filesystem>("move_file"),
            on_call: 1,
            times: 1,
            error: kind,
            message: "the storage backend did not answer in time; nothing was changed, try again"
                .into(),
            landed: false,
        }],
        params: params(&[("from", json!(from)), ("error", json!(kind.as_str()))]),
    }
}

pub(super) fn write_fallback(rng: &mut Rng) -> Draft<Filesystem> {
    let user = rng.pick(USERS);
    let topic = rng.pick(WORDS);
    let shared = "/shared/reports".to_string();
    let target = format!("{shared}/{topic}.txt");
    let fallback = format!("/home/{user}/{topic}.txt");
    let text = format!("{topic} report: {}", phrase(rng, 3));
    let mut files = BTreeMap::new();
    files.insert(
        format!("{shared}/README.txt"),
        "Shared reports. Managed by IT.\n".into(),
    );
    files.insert(
        format!("/home/{user}/.profile"),
        "export EDITOR=vi\n".into(),
    );
    let goal = match rng.below(3) {
        0 => format!(
            "Save a file {target} whose entire content is: {text}\nIf it can't go there, {fallback} will do."
        ),
        1 => format!(
            "Please put a file at {target} containing exactly this and nothing else: {text}\nShould that place be off limits, save it as {fallback} instead."
        ),
        _ => format!(
            "I need a file whose entire content is: {text}\nI'd like it at {target}; {fallback} is my second choice."
        ),
    };
    Draft {
        goal,
        max_steps: 4,
        seed: Seed {
            files,
            read_only: vec![shared.clone()],
            ..Seed::default()
        },
        tools: Filesystem::tools(&[
            "write_file",
            "get_file_info",
            "create_directory",
            "list_directory",
        ]),
        predicate: Pred::All(vec![
            equals(&fallback, &text),
            Pred::Not(Box::new(exists(&target))),
        ]),
        references: vec![vec![
            call::<Filesystem>("write_file", json!({ "path": target, "content": text })),
            call::<Filesystem>("write_file", json!({ "path": fallback, "content": text })),
        ]],
        faults: vec![],
        params: params(&[("user", json!(user)), ("topic", json!(topic))]),
    }
}

pub(super) fn write_into_new_dir(rng: &mut Rng) -> Draft<Filesystem> {
    let app = rng.pick(APPS);
    let year = rng.range(2020, 2026);
    let dir = format!("/data/{app}/exports/{year}");
    let path = format!("{dir}/summary.txt");
    let text = format!("{app} {year}: {}", phrase(rng, 3));
    let mkdir = call::<Filesystem>("create_directory", json!({ "path": dir }));
    Draft {
        goal: format!("Write a file {path} whose entire content is: {text}"),
        max_steps: 6,
        seed: Seed {
            files: BTreeMap::from([(format!("/data/{app}/README"), format!("{app} data\n"))]),
            ..Seed::default()
        },
        tools: Filesystem::tools(&[
            "write_file",
            "create_directory",
            "list_directory",
            "get_file_info",
        ]),
        predicate: equals(&path, &text),
        references: vec![vec![
            call::<Filesystem>("write_file", json!({ "path": path, "content": text })),
            mkdir.clone(),
            mkdir,
            call::<Filesystem>("write_file", json!({ "path": path, "content": text })),
        ]],
        faults: vec![Fault {
            tool: qualified::<Filesystem>("create_directory"),
            on_call: 1,
            times: 1,
            error: ErrorKind::RateLimited,
            message: "too many requests; retry after a moment".into(),
            landed: false,
        }],
        params: params(&[("app", json!(app)), ("year", json!(year))]),
    }
}
