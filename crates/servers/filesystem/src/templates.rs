//! Template grammars for tasks on the filesystem alone. Every parameter is drawn from a
//! bounded pool or range, and every goal states each concrete value the task needs.

use crate::{Atom, Filesystem, Seed};
use mcpbench_sim::{
    Category, Difficulty, Draft, ErrorKind, Fault, Pred, Rng, Step, Template, call, qualified,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;

const USERS: &[&str] = &[
    "dana", "omar", "li", "priya", "jonas", "mei", "tariq", "ines", "kofi", "sven",
];
const APPS: &[&str] = &[
    "acme", "billing", "ingest", "search", "gateway", "payments", "ledger", "notify",
];
const WORDS: &[&str] = &[
    "eggs",
    "rice",
    "tomatoes",
    "invoice",
    "quarterly",
    "budget",
    "roadmap",
    "meeting",
    "deploy",
    "backup",
    "review",
    "summary",
    "draft",
    "launch",
    "metrics",
    "onboarding",
    "audit",
    "retro",
];
const SETTINGS: &[(&str, &[&str])] = &[
    ("port", &["8080", "9090", "3000", "5432", "7000"]),
    ("log_level", &["info", "debug", "warn", "error"]),
    ("workers", &["2", "4", "8", "16"]),
    ("timeout_seconds", &["30", "60", "90", "120"]),
    ("region", &["eu-west", "us-east", "ap-south"]),
];

pub(crate) fn all() -> Vec<Template<Filesystem>> {
    use Category::*;
    use Difficulty::*;
    vec![
        Template {
            id: "filesystem.write_note",
            category: SingleTool,
            difficulty: Easy,
            build: write_note,
        },
        Template {
            id: "filesystem.make_directory",
            category: SingleTool,
            difficulty: Easy,
            build: make_directory,
        },
        Template {
            id: "filesystem.rename_file",
            category: SingleTool,
            difficulty: Medium,
            build: rename_file,
        },
        Template {
            id: "filesystem.replace_setting",
            category: SingleTool,
            difficulty: Medium,
            build: replace_setting,
        },
        Template {
            id: "filesystem.move_by_extension",
            category: Composition,
            difficulty: Medium,
            build: move_by_extension,
        },
        Template {
            id: "filesystem.merge_files",
            category: Composition,
            difficulty: Hard,
            build: merge_files,
        },
        Template {
            id: "filesystem.find_largest",
            category: Composition,
            difficulty: Medium,
            build: find_largest,
        },
        Template {
            id: "filesystem.backup_then_edit",
            category: Composition,
            difficulty: Hard,
            build: backup_then_edit,
        },
        Template {
            id: "filesystem.move_after_outage",
            category: Recovery,
            difficulty: Easy,
            build: move_after_outage,
        },
        Template {
            id: "filesystem.write_fallback",
            category: Recovery,
            difficulty: Medium,
            build: write_fallback,
        },
        Template {
            id: "filesystem.write_into_new_dir",
            category: Recovery,
            difficulty: Hard,
            build: write_into_new_dir,
        },
    ]
}

fn tools(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| qualified::<Filesystem>(n)).collect()
}

fn atom(a: Atom) -> Pred<Atom> {
    Pred::Atom(a)
}

fn exists(path: &str) -> Pred<Atom> {
    atom(Atom::FileExists { path: path.into() })
}

fn equals(path: &str, content: &str) -> Pred<Atom> {
    atom(Atom::FileEquals {
        path: path.into(),
        content: content.into(),
    })
}

fn params(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn phrase(rng: &mut Rng, n: usize) -> String {
    rng.sample(WORDS, n).join(" ")
}

/// A few unrelated files so that listings are not trivially short.
fn clutter(rng: &mut Rng, dir: &str, files: &mut BTreeMap<String, String>) {
    for i in 0..rng.range(1, 3) {
        let word = rng.pick(WORDS);
        files.insert(
            format!("{dir}/{word}-{i}.txt"),
            format!("{} notes\n", rng.pick(WORDS)),
        );
    }
}

fn write_note(rng: &mut Rng) -> Draft<Filesystem> {
    let user = rng.pick(USERS);
    let dir = format!("/home/{user}/notes");
    let name = format!("{}.txt", rng.pick(WORDS));
    let path = format!("{dir}/{name}");
    let text = phrase(rng, 3).replace(' ', ", ");
    let mut files = BTreeMap::new();
    clutter(rng, &dir, &mut files);
    files.remove(&path);
    Draft {
        goal: format!("Create a file at {path} whose entire content is exactly: {text}"),
        max_steps: 3,
        seed: Seed {
            files,
            ..Seed::default()
        },
        tools: tools(&[
            "write_file",
            "read_text_file",
            "list_directory",
            "edit_file",
        ]),
        predicate: equals(&path, &text),
        references: vec![vec![call::<Filesystem>(
            "write_file",
            json!({ "path": path, "content": text }),
        )]],
        faults: vec![],
        params: params(&[("user", json!(user)), ("file", json!(name))]),
    }
}

fn make_directory(rng: &mut Rng) -> Draft<Filesystem> {
    let app = rng.pick(APPS);
    let year = rng.range(2019, 2026);
    let month = rng.range(1, 12);
    let path = format!("/srv/{app}/reports/{year}/{month:02}");
    let mut files = BTreeMap::new();
    clutter(rng, &format!("/srv/{app}"), &mut files);
    Draft {
        goal: format!("Make sure the folder {path} exists, creating any missing parent folders."),
        max_steps: 3,
        seed: Seed {
            files,
            ..Seed::default()
        },
        tools: tools(&[
            "create_directory",
            "list_directory",
            "directory_tree",
            "get_file_info",
        ]),
        predicate: atom(Atom::DirExists { path: path.clone() }),
        references: vec![vec![call::<Filesystem>(
            "create_directory",
            json!({ "path": path }),
        )]],
        faults: vec![],
        params: params(&[
            ("app", json!(app)),
            ("year", json!(year)),
            ("month", json!(month)),
        ]),
    }
}

fn rename_pair(rng: &mut Rng) -> (String, String, String, BTreeMap<String, String>) {
    let user = rng.pick(USERS);
    let topic = rng.pick(WORDS);
    let dir = format!("/home/{user}/documents");
    let from = format!("{dir}/{topic}-draft.md");
    let to = format!("{dir}/{topic}-final.md");
    let content = format!("# {topic}\n\n{}\n", phrase(rng, 4));
    let mut files = BTreeMap::new();
    clutter(rng, &dir, &mut files);
    files.insert(
        format!("{dir}/{topic}-notes.md"),
        format!("notes on {topic}\n"),
    );
    files.insert(from.clone(), content.clone());
    (from, to, content, files)
}

fn rename_file(rng: &mut Rng) -> Draft<Filesystem> {
    let (from, to, content, files) = rename_pair(rng);
    Draft {
        goal: format!(
            "Rename {from} to {to}. Do not change its content, and do not leave a copy behind."
        ),
        max_steps: 4,
        seed: Seed {
            files,
            ..Seed::default()
        },
        tools: tools(&[
            "move_file",
            "read_text_file",
            "write_file",
            "list_directory",
            "delete_file",
        ]),
        predicate: Pred::All(vec![
            equals(&to, &content),
            Pred::Not(Box::new(exists(&from))),
        ]),
        references: vec![vec![call::<Filesystem>(
            "move_file",
            json!({ "source": from, "destination": to }),
        )]],
        faults: vec![],
        params: params(&[("from", json!(from))]),
    }
}

fn config(rng: &mut Rng) -> (Vec<(String, String)>, usize) {
    let picked = rng.sample(SETTINGS, 4);
    let lines = picked
        .iter()
        .map(|(k, vs)| (k.to_string(), rng.pick(vs).to_string()))
        .collect();
    (lines, rng.below(4) as usize)
}

fn render(lines: &[(String, String)]) -> String {
    lines.iter().map(|(k, v)| format!("{k} = {v}\n")).collect()
}

fn other_value(rng: &mut Rng, key: &str, current: &str) -> String {
    let (_, values) = SETTINGS
        .iter()
        .find(|(k, _)| *k == key)
        .expect("known setting");
    let others: Vec<&str> = values.iter().copied().filter(|v| *v != current).collect();
    rng.pick(&others).to_string()
}

fn replace_setting(rng: &mut Rng) -> Draft<Filesystem> {
    let app = rng.pick(APPS);
    let path = format!("/etc/{app}/{app}.conf");
    let (mut lines, at) = config(rng);
    let before = render(&lines);
    let (key, old) = lines[at].clone();
    let new = other_value(rng, &key, &old);
    lines[at].1 = new.clone();
    let after = render(&lines);
    Draft {
        goal: format!(
            "In {path}, change the setting {key} from {old} to {new}. Leave every other line as it is."
        ),
        max_steps: 4,
        seed: Seed {
            files: BTreeMap::from([(path.clone(), before)]),
            ..Seed::default()
        },
        tools: tools(&["read_text_file", "edit_file", "write_file", "get_file_info"]),
        predicate: equals(&path, &after),
        references: vec![
            vec![call::<Filesystem>(
                "edit_file",
                json!({ "path": path, "edits": [{ "oldText": format!("{key} = {old}"), "newText": format!("{key} = {new}") }] }),
            )],
            vec![call::<Filesystem>(
                "write_file",
                json!({ "path": path, "content": after }),
            )],
        ],
        faults: vec![],
        params: params(&[
            ("app", json!(app)),
            ("key", json!(key)),
            ("new", json!(new)),
        ]),
    }
}

fn move_by_extension(rng: &mut Rng) -> Draft<Filesystem> {
    let app = rng.pick(APPS);
    let ext = *rng.pick(&["log", "tmp", "bak", "csv"]);
    let src = format!("/var/{app}");
    let dst = format!("/archive/{app}");
    let n = rng.range(2, 4) as usize;
    let names = rng.sample(WORDS, n + 2);
    let mut files = BTreeMap::new();
    let mut moves = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if i < n {
            let file = format!("{name}.{ext}");
            files.insert(format!("{src}/{file}"), format!("{name} {ext} data\n"));
            moves.push(file);
        } else {
            files.insert(format!("{src}/{name}.txt"), format!("{name} stays\n"));
        }
    }
    let create_dst = rng.chance(1, 2);
    let mut directories = vec![];
    if !create_dst {
        directories.push(dst.clone());
    }
    let mut steps = vec![call::<Filesystem>("list_directory", json!({ "path": src }))];
    if create_dst {
        steps.push(call::<Filesystem>(
            "create_directory",
            json!({ "path": dst }),
        ));
    }
    let mut checks = vec![];
    for file in &moves {
        let (from, to) = (format!("{src}/{file}"), format!("{dst}/{file}"));
        checks.push(equals(&to, &files[&from]));
        checks.push(Pred::Not(Box::new(exists(&from))));
        steps.push(call::<Filesystem>(
            "move_file",
            json!({ "source": from, "destination": to }),
        ));
    }
    for (path, content) in files.iter().filter(|(p, _)| p.ends_with(".txt")) {
        checks.push(equals(path, content));
    }
    Draft {
        goal: format!(
            "Move every .{ext} file directly inside {src} into the folder {dst}{}, keeping their file names. Leave all other files where they are.",
            if create_dst {
                " (create that folder first; it does not exist yet)"
            } else {
                ""
            }
        ),
        max_steps: (n + 4) as u32,
        seed: Seed {
            files,
            directories,
            ..Seed::default()
        },
        tools: tools(&[
            "list_directory",
            "search_files",
            "move_file",
            "create_directory",
            "read_text_file",
            "write_file",
            "delete_file",
        ]),
        predicate: Pred::All(checks),
        references: vec![steps],
        faults: vec![],
        params: params(&[
            ("app", json!(app)),
            ("ext", json!(ext)),
            ("count", json!(n)),
            ("create_destination", json!(create_dst)),
        ]),
    }
}

fn merge_files(rng: &mut Rng) -> Draft<Filesystem> {
    let app = rng.pick(APPS);
    let dir = format!("/data/{app}");
    let n = rng.range(2, 3) as usize;
    let quarters: Vec<String> = (1..=n).map(|q| format!("{dir}/q{q}.csv")).collect();
    let mut files = BTreeMap::new();
    for q in &quarters {
        let rows: Vec<String> = (0..rng.range(1, 3))
            .map(|_| format!("{},{}", rng.pick(WORDS), rng.range(1, 999)))
            .collect();
        files.insert(q.clone(), rows.join("\n"));
    }
    let out = format!("{dir}/all.csv");
    let merged = quarters
        .iter()
        .map(|q| files[q].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let list = quarters.join(", ");
    Draft {
        goal: format!(
            "Create {out} holding the rows of {list}, in that order: the content of each file, one after the other, separated by a single line break, with nothing added."
        ),
        max_steps: (n + 3) as u32,
        seed: Seed {
            files,
            ..Seed::default()
        },
        tools: tools(&[
            "read_text_file",
            "read_multiple_files",
            "write_file",
            "list_directory",
            "edit_file",
        ]),
        predicate: equals(&out, &merged),
        references: vec![vec![
            call::<Filesystem>("read_multiple_files", json!({ "paths": quarters })),
            call::<Filesystem>("write_file", json!({ "path": out, "content": merged })),
        ]],
        faults: vec![],
        params: params(&[("app", json!(app)), ("files", json!(n))]),
    }
}

fn find_largest(rng: &mut Rng) -> Draft<Filesystem> {
    let user = rng.pick(USERS);
    let dir = format!("/srv/uploads/{user}");
    let count = rng.range(3, 5) as usize;
    let names = rng.sample(WORDS, count);
    let mut sizes: Vec<i64> = (0..names.len()).map(|i| 10 + 7 * i as i64).collect();
    rng.shuffle(&mut sizes);
    let files: BTreeMap<String, String> = names
        .iter()
        .zip(&sizes)
        .map(|(n, s)| (format!("{dir}/{n}.bin"), "x".repeat(*s as usize)))
        .collect();
    let (largest, _) = names
        .iter()
        .zip(&sizes)
        .max_by_key(|(_, s)| **s)
        .expect("non-empty");
    let answer = format!("{largest}.bin");
    Draft {
        goal: format!("Which file in {dir} is the largest? Reply with just its file name."),
        max_steps: 5,
        seed: Seed {
            files,
            ..Seed::default()
        },
        tools: tools(&[
            "list_directory",
            "list_directory_with_sizes",
            "get_file_info",
            "read_text_file",
        ]),
        predicate: Pred::Answer(mcpbench_sim::AnswerCheck::Matches {
            value: answer.clone(),
        }),
        references: vec![vec![
            call::<Filesystem>(
                "list_directory_with_sizes",
                json!({ "path": dir, "sortBy": "size" }),
            ),
            Step::Answer { answer },
        ]],
        faults: vec![],
        params: params(&[("user", json!(user)), ("files", json!(names.len()))]),
    }
}

fn backup_then_edit(rng: &mut Rng) -> Draft<Filesystem> {
    let app = rng.pick(APPS);
    let path = format!("/etc/{app}/{app}.conf");
    let backup = format!("{path}.bak");
    let (mut lines, at) = config(rng);
    let before = render(&lines);
    let (key, old) = lines[at].clone();
    let new = other_value(rng, &key, &old);
    lines[at].1 = new.clone();
    let after = render(&lines);
    Draft {
        goal: format!(
            "Before touching {path}, save an exact copy of it as {backup}. Then change its setting {key} from {old} to {new}, leaving the other lines alone."
        ),
        max_steps: 6,
        seed: Seed {
            files: BTreeMap::from([(path.clone(), before.clone())]),
            ..Seed::default()
        },
        tools: tools(&[
            "read_text_file",
            "write_file",
            "edit_file",
            "move_file",
            "list_directory",
        ]),
        predicate: Pred::All(vec![equals(&backup, &before), equals(&path, &after)]),
        references: vec![vec![
            call::<Filesystem>("read_text_file", json!({ "path": path })),
            call::<Filesystem>("write_file", json!({ "path": backup, "content": before })),
            call::<Filesystem>(
                "edit_file",
                json!({ "path": path, "edits": [{ "oldText": format!("{key} = {old}"), "newText": format!("{key} = {new}") }] }),
            ),
        ]],
        faults: vec![],
        params: params(&[
            ("app", json!(app)),
            ("key", json!(key)),
            ("new", json!(new)),
        ]),
    }
}

fn move_after_outage(rng: &mut Rng) -> Draft<Filesystem> {
    let (from, to, content, files) = rename_pair(rng);
    let kind = *rng.pick(&[
        ErrorKind::Unavailable,
        ErrorKind::RateLimited,
        ErrorKind::Timeout,
    ]);
    let mv = call::<Filesystem>("move_file", json!({ "source": from, "destination": to }));
    Draft {
        goal: format!("Rename {from} to {to}, keeping its content."),
        max_steps: 4,
        seed: Seed {
            files,
            ..Seed::default()
        },
        tools: tools(&[
            "move_file",
            "read_text_file",
            "write_file",
            "list_directory",
        ]),
        predicate: Pred::All(vec![
            equals(&to, &content),
            Pred::Not(Box::new(exists(&from))),
        ]),
        references: vec![vec![mv.clone(), mv]],
        faults: vec![Fault {
            tool: qualified::<Filesystem>("move_file"),
            on_call: 1,
            times: 1,
            error: kind,
            message: "the storage backend did not answer in time; nothing was changed, try again"
                .into(),
        }],
        params: params(&[("from", json!(from)), ("error", json!(kind.as_str()))]),
    }
}

fn write_fallback(rng: &mut Rng) -> Draft<Filesystem> {
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
    Draft {
        goal: format!(
            "Save a file {target} whose entire content is: {text}\nIf that location cannot be written to, save it as {fallback} instead."
        ),
        max_steps: 4,
        seed: Seed {
            files,
            read_only: vec![shared.clone()],
            ..Seed::default()
        },
        tools: tools(&[
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

fn write_into_new_dir(rng: &mut Rng) -> Draft<Filesystem> {
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
        tools: tools(&[
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
        }],
        params: params(&[("app", json!(app)), ("year", json!(year))]),
    }
}
