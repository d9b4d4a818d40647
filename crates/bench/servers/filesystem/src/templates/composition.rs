//! Composition templates: several calls, reading before writing.

use super::*;

pub(super) fn move_by_extension(rng: &mut Rng) -> Draft<Filesystem> {
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
        tools: Filesystem::tools(&[
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

pub(super) fn merge_files(rng: &mut Rng) -> Draft<Filesystem> {
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
        tools: Filesystem::tools(&[
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

pub(super) fn find_largest(rng: &mut Rng) -> Draft<Filesystem> {
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
    let others: Vec<String> = names.iter().map(|n| format!("{n}.bin")).collect();
    Draft {
        goal: format!("Which file in {dir} is the largest? Reply with just its file name."),
        max_steps: 5,
        seed: Seed {
            files,
            ..Seed::default()
        },
        tools: Filesystem::tools(&[
            "list_directory",
            "list_directory_with_sizes",
            "get_file_info",
            "read_text_file",
        ]),
        predicate: Pred::Answer(mcpbench_sim::AnswerCheck::names(
            &answer,
            others.iter().map(String::as_str),
        )),
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

pub(super) fn backup_then_edit(rng: &mut Rng) -> Draft<Filesystem> {
    let ConfigChange {
        app,
        path,
        key,
        old,
        new,
        before,
        after,
    } = config_change(rng);
    let backup = format!("{path}.bak");
    Draft {
        goal: format!(
            "Before touching {path}, save an exact copy of it as {backup}. Then change its setting {key} from {old} to {new}, leaving the other lines alone."
        ),
        max_steps: 6,
        seed: Seed {
            files: BTreeMap::from([(path.clone(), before.clone())]),
            ..Seed::default()
        },
        tools: Filesystem::tools(&[
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
