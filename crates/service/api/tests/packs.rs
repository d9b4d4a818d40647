//! Private packs through the API: the public sees each pack's name and hash from the day it is
//! added and a family's file once the operator retires it, never before; an admin drafts a
//! month whose tasks come mostly from the live families.

mod support;

use serde_json::json;
use std::path::PathBuf;
use support::{Options, Service};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../sets/tests/fixtures/pack")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_pack_is_listed_by_hash_and_its_families_published_when_retired() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let (status, packs) = svc.get("/packs", None).await;
    assert_eq!((status, packs.clone()), (200, json!([])));
    let pack = mcpbench_pack::Pack::read(&fixture()).unwrap();
    mcpbench_sets::add_pack(&svc.pool, &svc.custody, &fixture(), 2)
        .await
        .unwrap();
    let (_, packs) = svc.get("/packs", None).await;
    assert_eq!(packs[0]["name"], "sets-test");
    assert_eq!(packs[0]["sha256"], pack.sha256.as_str());
    assert_eq!(
        (packs[0]["families"].clone(), packs[0]["retired"].clone()),
        (json!(3), json!(0))
    );
    assert_eq!(packs[0]["revealed"], json!([]));
    let family = &pack.families[0];
    let path = format!("/packs/sets-test/files/{}", family.file);
    let (status, body) = svc.get(&path, None).await;
    assert_eq!(status, 404, "a live family's file stays sealed: {body}");
    let text = serde_json::to_string(&packs).unwrap();
    assert!(
        !text.contains(&family.family.id),
        "the listing names no live family"
    );

    // An admin drafts a month from the live families.
    let admin = svc.token_for(&svc.vendor("ops", true).await).await;
    let (status, set) = svc
        .post(
            "/admin/sets",
            Some(&admin),
            &json!({"id": "2026-11", "generate": 8}),
        )
        .await;
    assert_eq!(status, 201, "{set}");
    let (status, refused) = svc
        .post(
            "/admin/sets",
            Some(&admin),
            &json!({"id": "2026-12", "generate": 8, "pack_share": 2.0}),
        )
        .await;
    assert_eq!(status, 422, "{refused}");

    mcpbench_sets::retire_family(&svc.pool, &svc.custody, "sets-test", &family.family.id)
        .await
        .unwrap();
    let (status, kind, file) = svc.get_text(&path).await;
    assert_eq!((status, kind.as_str()), (200, "application/json"));
    let bytes = &pack
        .files
        .iter()
        .find(|f| f.name == family.file)
        .unwrap()
        .bytes;
    assert_eq!(file.as_bytes(), bytes.as_slice());
    let (_, packs) = svc.get("/packs", None).await;
    assert_eq!(packs[0]["retired"], 1);
    assert_eq!(packs[0]["revealed"][0]["name"], family.file.as_str());
    assert_eq!(packs[0]["revealed"][0]["sha256"], family.sha256.as_str());
    assert_eq!(packs[0]["revealed"][0]["url"], path.as_str());
    assert_eq!(
        svc.get("/packs/sets-test/files/pack.json", None).await.0,
        404
    );
    assert_eq!(svc.get("/packs/nope/files/x.json", None).await.0, 404);
    let long = format!("/packs/{}/files/x.json", "a".repeat(300));
    assert_eq!(svc.get(&long, None).await.0, 404);
}
