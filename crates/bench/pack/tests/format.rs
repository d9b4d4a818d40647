//! The pack format as its authors meet it: every kind of draw step takes the generator's own
//! draws, guards (`when`, `until`, `require`) draw as documented, repeats nest, and a pack or a
//! family that is wrong is refused with every problem named by file and field.

use mcpbench_pack::{Pack, PackFile};
use mcpbench_sim::Rng;
use serde_json::{Value, json};

const MANIFEST: &str = r#"{"format": "mcpbench-pack/1", "name": "t"}"#;

/// A family that writes one note: `draw` and `content` (an expression) vary per test.
fn family(draw: Value, content: &str) -> Value {
    json!({
        "format": "mcpbench-family/1",
        "family": "fs.note",
        "servers": ["filesystem"],
        "category": "single-tool",
        "difficulty": "easy",
        "data": {"words": ["amber", "birch", "cedar", "dune", "elm", "fjord"]},
        "draw": draw,
        "goal": "Write {($content | tostring)} into /notes/a.txt.",
        "max_steps": 3,
        "initial_state": {"filesystem": {"files": {"/notes/readme.txt": "notes"}}},
        "predicate": {"filesystem.fileEquals": {"path": "/notes/a.txt", "content": {"$": "$content | tostring"}}},
        "references": [[{"tool": "filesystem.write_file",
                         "arguments": {"path": "/notes/a.txt", "content": {"$": "$content | tostring"}}}]],
        "params": {"content": {"$": "$content"}}
    })
    .as_object()
    .map(|m| {
        let mut m = m.clone();
        // The last step binds $content from the test's expression.
        let mut steps = m["draw"].as_array().cloned().unwrap_or_default();
        steps.push(json!({"let": "content", "value": content}));
        m.insert("draw".into(), Value::Array(steps));
        Value::Object(m)
    })
    .unwrap()
}

fn pack(files: &[(&str, String)]) -> Result<Pack, Vec<String>> {
    Pack::from_files(
        files
            .iter()
            .map(|(name, text)| PackFile {
                name: name.to_string(),
                bytes: text.clone().into_bytes(),
            })
            .collect(),
    )
    .map_err(|e| e.problems)
}

fn one(family: Value) -> Result<Pack, Vec<String>> {
    pack(&[
        ("pack.json", MANIFEST.into()),
        ("fs.note.json", family.to_string()),
    ])
}

/// What the family's `$content` is on the stream `(7, stream)`.
fn content(p: &Pack, stream: u64) -> Result<Value, String> {
    let body = p.families[0].family.draw(&mut Rng::new(7, stream))?;
    Ok(body.params["content"].clone())
}

#[test]
fn each_step_takes_the_generators_own_draws() {
    let p = one(family(
        json!([
            {"let": "w", "pick": "$words"},
            {"let": "s", "sample": "$words", "count": 3},
            {"let": "sh", "shuffle": "$words"},
            {"let": "n", "range": [5, "$s | length | . * 10"]},
            {"let": "c", "chance": [1, 3]}
        ]),
        "{w: $w, s: $s, sh: $sh, n: $n, c: $c}",
    ))
    .unwrap();
    for stream in 0..20 {
        let mut rng = Rng::new(7, stream);
        let words = ["amber", "birch", "cedar", "dune", "elm", "fjord"];
        let w = *rng.pick(&words);
        let s = rng.sample(&words, 3);
        let mut sh = words.to_vec();
        rng.shuffle(&mut sh);
        let n = rng.range(5, 30);
        let c = rng.chance(1, 3);
        assert_eq!(
            content(&p, stream).unwrap(),
            json!({"w": w, "s": s, "sh": sh, "n": n, "c": c}),
            "stream {stream}"
        );
    }
}

#[test]
fn a_step_whose_when_is_false_draws_nothing() {
    let with = one(family(
        json!([{"let": "skip", "pick": "$words", "when": "false"}, {"let": "w", "pick": "$words"}]),
        "[$skip, $w]",
    ))
    .unwrap();
    let without = one(family(
        json!([{"let": "w", "pick": "$words"}]),
        "[null, $w]",
    ))
    .unwrap();
    for stream in 0..10 {
        assert_eq!(content(&with, stream), content(&without, stream));
    }
}

#[test]
fn until_draws_the_step_again_and_require_the_whole_task() {
    let p = one(family(
        json!([
            {"let": "a", "pick": "$words"},
            {"let": "b", "pick": "$words", "until": "$b != $a"},
            {"require": "($a | length) + ($b | length) > 7", "why": "long enough"}
        ]),
        "[$a, $b]",
    ))
    .unwrap();
    for stream in 0..30 {
        let v = content(&p, stream).unwrap();
        let (a, b) = (v[0].as_str().unwrap(), v[1].as_str().unwrap());
        assert_ne!(a, b);
        assert!(a.len() + b.len() > 7, "{a} {b}");
    }
    let never = one(family(json!([{"require": "false", "why": "never"}]), "1")).unwrap();
    let e = content(&never, 0).unwrap_err();
    assert!(e.contains("100 draws") && e.contains("never"), "{e}");
}

#[test]
fn repeats_nest_and_see_what_they_yielded() {
    let p = one(family(
        json!([{
            "let": "grid", "repeat": 3, "as": "row", "so_far": "rows",
            "draw": [
                {"let": "cells", "repeat": "$row + 1", "as": "col",
                 "draw": [{"let": "w", "pick": "$words"}], "yield": "$w"}
            ],
            "yield": "{row: $row, before: ($rows | length), cells: $cells}"
        }]),
        "$grid",
    ))
    .unwrap();
    let grid = content(&p, 3).unwrap();
    for (r, row) in grid.as_array().unwrap().iter().enumerate() {
        assert_eq!(row["row"], json!(r));
        assert_eq!(row["before"], json!(r));
        assert_eq!(row["cells"].as_array().unwrap().len(), r + 1);
    }
}

#[test]
fn a_family_that_is_wrong_is_refused_with_each_problem_named() {
    let mut bad = family(
        json!([
            {"let": "a", "pick": "$wordz"},
            {"let": "a", "value": "1"},
            {"let": "b", "pick": "$words", "range": [1, 2]},
            {"let": "c", "world": "mainframe"}
        ]),
        "$a",
    );
    bad["servers"] = json!(["filesystem", "fax"]);
    // First the shape of every step, then (once each parses) every expression and name.
    let problems = one(bad.clone()).unwrap_err().join("\n");
    assert!(
        problems.contains("draw[2]: a step has one of the keys"),
        "{problems}"
    );
    assert!(problems.contains("not pick and range"), "{problems}");
    bad["draw"][2] = json!({"let": "b", "pick": "$words"});
    let problems = one(bad).unwrap_err().join("\n");
    for want in [
        "draw[0] ($a): the expression does not compile: undefined: $wordz",
        "draw[1] ($a): $a is already bound",
        "servers[1]: unknown server \"fax\"",
        "draw[3] ($c).world: unknown server \"mainframe\"",
    ] {
        assert!(problems.contains(want), "missing {want:?} in:\n{problems}");
    }
}

#[test]
fn a_draw_not_of_the_task_format_names_the_field() {
    let mut f = family(json!([]), "\"x\"");
    f["predicate"] = json!({"filesystem.fileEqualz": {"path": "/notes/a.txt"}});
    let p = one(f).unwrap();
    let e = content(&p, 0).unwrap_err();
    assert!(e.starts_with("predicate"), "{e}");
    let mut f = family(json!([]), "\"x\"");
    f["max_steps"] = json!("$content | length | . * 1000");
    let e = content(&one(f).unwrap(), 0).unwrap_err();
    assert!(
        e.contains("max_steps") && e.contains("outside 1..=100"),
        "{e}"
    );
    let f = family(json!([{"let": "e", "pick": "[]"}]), "$e");
    let e = content(&one(f).unwrap(), 0).unwrap_err();
    assert!(e.contains("draw[0] ($e): picks from an empty list"), "{e}");
}

#[test]
fn a_pack_holds_its_manifest_and_families_only() {
    let f = family(json!([]), "\"x\"").to_string();
    let cases: Vec<(Vec<(&str, String)>, &str)> = vec![
        (vec![("fs.note.json", f.clone())], "pack.json: missing"),
        (
            vec![("pack.json", MANIFEST.into()), ("notes.txt", "hi".into())],
            "notes.txt: a pack holds pack.json, lib.jq and family files",
        ),
        (
            vec![("pack.json", MANIFEST.into()), ("other.json", f.clone())],
            "named after it, fs.note.json",
        ),
        (
            vec![(
                "pack.json",
                r#"{"format": "mcpbench-pack/9", "name": "T t"}"#.into(),
            )],
            "is not \"mcpbench-pack/1\"",
        ),
        (
            vec![("pack.json", MANIFEST.into())],
            "the pack holds no family",
        ),
        (
            vec![
                ("pack.json", MANIFEST.into()),
                ("lib.jq", "def broken: ;".into()),
                ("fs.note.json", f.clone()),
            ],
            "fs.note.json",
        ),
    ];
    for (files, want) in cases {
        let problems = pack(&files).unwrap_err().join("\n");
        assert!(problems.contains(want), "missing {want:?} in:\n{problems}");
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pack.json"), MANIFEST).unwrap();
    std::fs::write(dir.path().join("fs.note.json"), &f).unwrap();
    std::fs::write(
        dir.path().join("huge.json"),
        vec![b' '; mcpbench_pack::MAX_FILE_BYTES + 1],
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let problems = Pack::read(dir.path()).unwrap_err().problems.join("\n");
    assert!(
        problems.contains("huge.json") && problems.contains("sub: a pack holds files only"),
        "{problems}"
    );
}

#[test]
fn the_pack_hash_covers_every_file() {
    let f = family(json!([]), "\"x\"").to_string();
    let a = one(serde_json::from_str(&f).unwrap()).unwrap();
    let b = pack(&[
        ("pack.json", MANIFEST.into()),
        ("fs.note.json", format!("{f} ")),
    ])
    .unwrap();
    assert_ne!(a.sha256, b.sha256);
    assert_eq!(a.sha256, mcpbench_pack::pack_hash(&a.files));
    assert_eq!(a.families[0].sha256.len(), 64);
}
