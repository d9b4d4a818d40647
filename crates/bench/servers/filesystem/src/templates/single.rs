//! Single-tool templates: one right call with the right arguments.

use super::*;

pub(super) fn write_note(rng: &mut Rng) -> Draft<Filesystem> {
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
        tools: Filesystem::tools(&[
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

pub(super) fn make_directory(rng: &mut Rng) -> Draft<Filesystem> {
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
        tools: Filesystem::tools(&[
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

pub(super) fn rename_pair(rng: &mut Rng) -> (String, String, String, BTreeMap<String, String>) {
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

/// Ways to ask for a rename with no copy left behind, with `{from}` and `{to}`.
const RENAME_ASKS: &[&str] = &[
    "Rename {from} to {to}. Do not change its content, and do not leave a copy behind.",
    "{from} is final: rename it to {to}, same content, and no leftover copy under the old name.",
    "Please call {from} {to} from now on. Its text stays the same and the old name should be gone.",
    "Can you rename {from} as {to}? Keep what's inside, and don't keep a duplicate.",
    "The file {from} needs the name {to}. Content untouched, only one file at the end.",
    "Move {from} to its final name {to}, leaving nothing at the old path and the content as it is.",
];

pub(super) fn rename_file(rng: &mut Rng) -> Draft<Filesystem> {
    let (from, to, content, files) = rename_pair(rng);
    Draft {
        goal: rng
            .pick(RENAME_ASKS)
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
            "delete_file",
        ]),
        predicate: renamed(&from, &to, &content),
        references: vec![vec![call::<Filesystem>(
            "move_file",
            json!({ "source": from, "destination": to }),
        )]],
        faults: vec![],
        params: params(&[("from", json!(from))]),
    }
}

pub(super) fn config(rng: &mut Rng) -> (Vec<(String, String)>, usize) {
    let picked = rng.sample(SETTINGS, 4);
    let lines = picked
        .iter()
        .map(|(k, vs)| (k.to_string(), rng.pick(vs).to_string()))
        .collect();
    (lines, rng.below(4) as usize)
}

pub(super) fn render(lines: &[(String, String)]) -> String {
    lines.iter().map(|(k, v)| format!("{k} = {v}\n")).collect()
}

pub(super) fn other_value(rng: &mut Rng, key: &str, current: &str) -> String {
    let (_, values) = SETTINGS
        .iter()
        .find(|(k, _)| *k == key)
        .expect("known setting");
    let others: Vec<&str> = values.iter().copied().filter(|v| *v != current).collect();
    rng.pick(&others).to_string()
}

/// One setting of an app's config file changed to another allowed value.
pub(super) struct ConfigChange {
    pub(super) app: &'static str,
    pub(super) path: String,
    pub(super) key: String,
    pub(super) old: String,
    pub(super) new: String,
    pub(super) before: String,
    pub(super) after: String,
}

pub(super) fn config_change(rng: &mut Rng) -> ConfigChange {
    let app = *rng.pick(APPS);
    let path = format!("/etc/{app}/{app}.conf");
    let (mut lines, at) = config(rng);
    let before = render(&lines);
    let (key, old) = lines[at].clone();
    let new = other_value(rng, &key, &old);
    lines[at].1 = new.clone();
    let after = render(&lines);
    ConfigChange {
        app,
        path,
        key,
        old,
        new,
        before,
        after,
    }
}

/// `to` holds `content` and nothing is left at `from`.
pub(super) fn renamed(from: &str, to: &str, content: &str) -> Pred<Atom> {
    Pred::All(vec![equals(to, content), Pred::Not(Box::new(exists(from)))])
}

pub(super) fn replace_setting(rng: &mut Rng) -> Draft<Filesystem> {
    let ConfigChange {
        app,
        path,
        key,
        old,
        new,
        before,
        after,
    } = config_change(rng);
    Draft {
        goal: format!(
            "In {path}, change the setting {key} from {old} to {new}. Leave every other line as it is."
        ),
        max_steps: 4,
        seed: Seed {
            files: BTreeMap::from([(path.clone(), before)]),
            ..Seed::default()
        },
        tools: Filesystem::tools(&["read_text_file", "edit_file", "write_file", "get_file_info"]),
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
