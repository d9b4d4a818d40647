//! The committed artifacts are exactly what the code produces: the task JSON Schema and the
//! catalogue of tools agents see; and the dev set's id names the tasks it was published with
//! (that the public pack regenerates it from its seed is `mcpbench-pack`'s `tests/dev_set.rs`).

use mcpbench_tasks::{Manifest, task_schema};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// Fails unless the committed file `relative` holds `want`; with `UPDATE_SCHEMA` set, writes it.
fn assert_current(relative: &str, want: &str) {
    let path = root().join(relative);
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{relative} is stale; run with UPDATE_SCHEMA=1 to rewrite it"
    );
}

#[test]
fn task_schema_file_is_current() {
    let mut want = serde_json::to_string_pretty(&task_schema()).unwrap();
    want.push('\n');
    assert_current("schemas/task.schema.json", &want);
}

/// Every tool of every server as an agent lists it (name, description, input schema): a
/// change to what agents see is a change to the benchmark, so it shows in review.
#[test]
fn tool_catalogue_file_is_current() {
    let catalogue: serde_json::Map<String, serde_json::Value> = mcpbench_tasks::SERVERS
        .iter()
        .map(|server| {
            let tools: Vec<serde_json::Value> = mcpbench_world::catalog(server)
                .expect("every server has a catalogue")
                .iter()
                .map(|t| {
                    serde_json::json!({
                        "name": t.name,
                        "description": t.description,
                        "inputSchema": t.input_schema,
                    })
                })
                .collect();
            (server.to_string(), serde_json::Value::from(tools))
        })
        .collect();
    let mut want = serde_json::to_string_pretty(&catalogue).unwrap();
    want.push('\n');
    assert_current("schemas/tools.json", &want);
}

#[test]
fn servers_page_is_current() {
    let want = mcpbench_tasks::servers_markdown();
    assert_current("docs/servers.md", &want);
}

/// Every id the dev set was published under, with the SHA-256 of its task files (in manifest
/// order, each file's bytes): a set id names one list of tasks for good, so results run on it
/// are never attributed to other tasks. A dev set that changes needs a new `DEV_SET` and a new
/// line here; the old lines stay.
const PUBLISHED: &[(&str, &str)] = &[
    (
        "dev-v2",
        "694868346b7d92472ea89dccf1841eac31070fab354ebdf752272628a4f0d93f",
    ),
    (
        "dev-v2-1",
        "1e23d51c5ad8594e08e5aabd187c47c18ee8f33e91fd03b1dd0527b0dfcf5371",
    ),
    (
        "dev-v2-2",
        "742066ba7de0acd5494268602dfc3bcd618b450d1c82e0afda8cd074893c9652",
    ),
    (
        "dev-v2-3",
        "57e2480011e79fe63f4b32e49a574a72ca9985970f4c28e5fd827bbfa4d1da31",
    ),
    (
        "dev-v2-4",
        "66005476e319b7b9704a72a17b30aa6b24bfa54df242de974314bb37e63144b5",
    ),
    (
        "dev-v2-5",
        "9f1bebeb07696eed42a5c1d0a958264f6444f3bb7e838723bdccf530fd8fed94",
    ),
    (
        "dev-v2-6",
        "5f833c1b515cef2e7214d45dfcf16a58174e59085026e5f39cf397db6e1af208",
    ),
    (
        "dev-v2-7",
        "53ae2ed9def8abe2958e1697444217d267f12603bff6690a2640e1d46f4bd421",
    ),
    (
        "dev-v2-8",
        "3b6f6c55d72ff0352953a3e8b33cf28577a0145cb396627fe2dd26956b36fac8",
    ),
    (
        "dev-v2-9",
        "a4b112dae65e54542778b9ea022eff9a782de24f2c677ec459ea2e377bbce837",
    ),
    (
        "dev-v2-10",
        "7ad986d9f22f15841de39699de5dcd714eac4bab90545c315d1124aecf8dfdb2",
    ),
    (
        "dev-v2-11",
        "a5c0287ac22fc93f1264cd492b684c13841daf7f7696f9b0cd261ca5c39f9800",
    ),
    (
        "dev-v2-12",
        "cdb48cc116649b857c47a92e9136b60c6be2748b8181314a5503c2e91da34158",
    ),
];

#[test]
fn the_dev_sets_id_names_the_tasks_it_was_published_with() {
    use sha2::{Digest, Sha256};
    let dir = root().join("tasks/dev");
    let manifest: Manifest =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest.set, mcpbench_tasks::DEV_SET);
    let mut digest = Sha256::new();
    for id in &manifest.tasks {
        digest.update(std::fs::read(dir.join(format!("{id}.json"))).unwrap());
    }
    let digest = hex::encode(digest.finalize());
    let pinned = PUBLISHED
        .iter()
        .find(|(id, _)| *id == manifest.set)
        .unwrap_or_else(|| panic!("add ({:?}, {digest:?}) to PUBLISHED", manifest.set));
    assert_eq!(
        pinned.1, digest,
        "tasks/dev changed while its set id stayed {:?}: give the new dev set a new id \
         (DEV_SET) and add it to PUBLISHED, so results on the old one stay with their tasks",
        manifest.set
    );
    let ids: std::collections::BTreeSet<&str> = PUBLISHED.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids.len(), PUBLISHED.len(), "an id is published once");
}
