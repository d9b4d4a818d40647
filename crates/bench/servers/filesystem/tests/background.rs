//! A filesystem at a real scale: the lived-in tree a generated task gives it, beside the task's
//! own files and under the same roots, leaving every folder the task reads as it was.

use mcpbench_server_filesystem::{Background, FILES, Filesystem, Seed};
use mcpbench_sim::background::one_slip_apart;
use mcpbench_sim::{Rng, Server, Simulated};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

fn own() -> Seed {
    let files = [
        ("/home/dana/notes/budget-0.txt", "rice notes\n"),
        ("/home/dana/.profile", "export EDITOR=vi\n"),
        ("/etc/acme/acme.conf", "port = 8080\n"),
        ("/var/acme/deploy.log", "deploy log data\n"),
        ("/reports/README.txt", "Reports.\n"),
    ];
    Seed {
        files: files
            .iter()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect(),
        directories: vec!["/archive/acme".into()],
        ..Seed::default()
    }
}

fn with(seed: Seed, files: u32) -> Seed {
    Seed {
        background: Some(Background { seed: 11, files }),
        ..seed
    }
}

fn files(fs: &Filesystem) -> BTreeMap<String, String> {
    serde_json::from_value(Simulated::snapshot(fs)["files"].clone()).unwrap()
}

fn list(fs: &mut Filesystem, path: &str) -> Value {
    Server::call(fs, "list_directory", &json!({ "path": path })).expect("the listing")
}

/// Every folder that holds a seed file directly, or that the seed names.
fn kept(seed: &Seed) -> BTreeSet<String> {
    let parent = |p: &str| match p.rfind('/') {
        Some(0) | None => "/".to_string(),
        Some(i) => p[..i].to_string(),
    };
    let mut kept: BTreeSet<String> = seed.files.keys().map(|p| parent(p)).collect();
    kept.extend(seed.directories.iter().cloned());
    kept
}

#[test]
fn the_tree_sits_beside_the_seeds_own_files_under_the_same_roots() {
    let plain = Filesystem::from_seed(&own()).unwrap();
    let fs = Filesystem::from_seed(&with(own(), 150)).unwrap();
    let (before, after) = (files(&plain), files(&fs));
    assert_eq!(after.len(), before.len() + 150);
    for (path, content) in &before {
        assert_eq!(after.get(path), Some(content), "{path}");
    }
    // Under the seed's home and its system folders, and nowhere else.
    let added: Vec<&String> = after.keys().filter(|p| !before.contains_key(*p)).collect();
    for p in &added {
        assert!(
            ["/home/dana/", "/etc/", "/var/", "/archive/"]
                .iter()
                .any(|r| p.starts_with(r)),
            "{p}"
        );
    }
    assert!(added.iter().any(|p| p.starts_with("/etc/")), "{added:?}");
    assert!(
        added
            .iter()
            .filter(|p| p.starts_with("/home/dana/"))
            .count()
            > 75
    );
    // Nested three folders deep below the home, and no loose file in the home itself.
    assert!(added.iter().any(|p| p.split('/').count() >= 7), "{added:?}");
    assert!(
        added
            .iter()
            .filter_map(|p| p.strip_prefix("/home/dana/"))
            .all(|rest| rest.contains('/'))
    );
    // The same background, the same tree; another seed, another one.
    let again = Filesystem::from_seed(&with(own(), 150)).unwrap();
    assert_eq!(Simulated::snapshot(&again), Simulated::snapshot(&fs));
    let other = Seed {
        background: Some(Background {
            seed: 12,
            files: 150,
        }),
        ..own()
    };
    let other = Filesystem::from_seed(&other).unwrap();
    assert_ne!(Simulated::snapshot(&other), Simulated::snapshot(&fs));
}

#[test]
fn folders_the_task_reads_list_as_they_did() {
    let seed = own();
    let mut plain = Filesystem::from_seed(&seed).unwrap();
    let mut fs = Filesystem::from_seed(&with(seed.clone(), 1000)).unwrap();
    for dir in kept(&seed).into_iter().filter(|d| d != "/home/dana") {
        assert_eq!(list(&mut fs, &dir), list(&mut plain, &dir), "{dir}");
    }
    // The home gains folders of its own; /reports, holding a seed file, gains no neighbour.
    let home = list(&mut fs, "/home/dana").to_string();
    assert!(home.contains("[DIR] notes") && home.contains("[FILE] .profile"));
    assert!(home.matches("[DIR]").count() >= 4, "{home}");
    assert!(
        !files(&fs)
            .keys()
            .any(|p| p.starts_with("/reports/") && p != "/reports/README.txt")
    );
}

#[test]
fn no_template_finds_its_folders_or_paths_changed_by_the_background() {
    for t in Filesystem::templates() {
        for n in 0..30 {
            let draft = (t.build)(&mut Rng::new(3, n));
            let seed = Seed {
                background: Some(Background::draw(&mut Rng::new(4, n))),
                ..draft.seed.clone()
            };
            let mut plain = Filesystem::from_seed(&draft.seed).unwrap();
            let mut fs = Filesystem::from_seed(&seed).unwrap();
            let (before, after) = (files(&plain), files(&fs));
            let homes: BTreeSet<String> = (before.keys())
                .filter_map(|p| p.strip_prefix("/home/"))
                .filter_map(|rest| rest.split_once('/'))
                .map(|(user, _)| format!("/home/{user}"))
                .collect();
            for dir in kept(&draft.seed).difference(&homes) {
                assert_eq!(
                    list(&mut fs, dir),
                    list(&mut plain, dir),
                    "{} {n}: {dir}",
                    t.id
                );
            }
            for path in after.keys().filter(|p| !before.contains_key(*p)) {
                for own in before.keys() {
                    assert!(!one_slip_apart(own, path), "{} {n}: {path} / {own}", t.id);
                }
                assert!(!draft.goal.contains(path.as_str()), "{} {n}: {path}", t.id);
            }
        }
    }
}

#[test]
fn a_seed_without_a_home_gets_one_of_its_own() {
    let seed = Seed {
        files: BTreeMap::from([("/etc/ledger/ledger.conf".into(), "workers = 4\n".into())]),
        ..Seed::default()
    };
    let fs = Filesystem::from_seed(&with(seed, 80)).unwrap();
    let all = files(&fs);
    assert_eq!(all.len(), 81);
    let homes: BTreeSet<&str> = (all.keys())
        .filter_map(|p| p.strip_prefix("/home/"))
        .filter_map(|rest| rest.split('/').next())
        .collect();
    assert_eq!(homes.len(), 1, "{homes:?}");
    let name = homes.iter().next().unwrap();
    assert!(
        mcpbench_sim::background::FIRST_NAMES
            .iter()
            .any(|f| f.to_lowercase() == *name),
        "{name}"
    );
}

#[test]
fn the_largest_background_leaves_most_of_the_room_to_the_run() {
    let fs = Filesystem::from_seed(&with(own(), 1000)).unwrap();
    let snap = Simulated::snapshot(&fs);
    let entries =
        snap["files"].as_object().unwrap().len() + snap["directories"].as_array().unwrap().len();
    let bytes: usize = files(&fs).values().map(String::len).sum();
    assert_eq!(snap["files"].as_object().unwrap().len(), 1005);
    assert!(entries < FILES.records / 3, "{entries} entries");
    assert!(bytes < FILES.bytes / 40, "{bytes} bytes");
}

#[test]
fn a_tree_leaves_out_what_its_exclude_patterns_name() {
    let mut fs = Filesystem::from_seed(&with(own(), 150)).unwrap();
    let whole = Server::call(&mut fs, "directory_tree", &json!({ "path": "/home/dana" })).unwrap();
    let trimmed = Server::call(
        &mut fs,
        "directory_tree",
        &json!({ "path": "/home/dana", "excludePatterns": ["Pictures", "Music", "*.md"] }),
    )
    .unwrap();
    let (whole, trimmed) = (whole.to_string(), trimmed.to_string());
    assert!(
        whole.contains("\"Pictures\"") && whole.contains(".md\""),
        "{whole}"
    );
    assert!(!trimmed.contains("\"Pictures\"") && !trimmed.contains(".jpg"));
    assert!(!trimmed.contains(".md\"") && trimmed.contains("\"notes\""));
    assert!(trimmed.len() < whole.len() / 2);
}

#[test]
fn a_background_larger_than_a_filesystem_takes_is_refused() {
    let err = Filesystem::from_seed(&with(own(), 1001)).unwrap_err();
    assert!(err.to_string().contains("1000"), "{err}");
}
