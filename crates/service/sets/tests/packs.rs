//! Private packs in a deployment, against a real PostgreSQL: a pack is stored sealed (nothing of
//! it in a `pg_dump` but hashes), listed by name and hash, drawn from for most of a generated
//! month and of a rotation's fresh tasks (ids that name no family), and revealed family by
//! family when the operator retires them.

mod support;

use mcpbench_db::packs;
use mcpbench_pack::Pack;
use mcpbench_sets::SetError;
use mcpbench_tasks::Task;
use std::path::PathBuf;
use support::{custody, fresh, opened, pg_dump};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pack")
}

/// Texts of the fixture pack that must never be found in the database in clear: its family
/// ids and their notes.
fn secrets(pack: &Pack) -> Vec<String> {
    let mut out: Vec<String> = pack.families.iter().map(|f| f.family.id.clone()).collect();
    out.extend(
        (pack.families.iter())
            .filter(|f| f.about.len() >= 20)
            .map(|f| f.about.chars().take(20).collect::<String>()),
    );
    assert!(out.len() >= 3);
    out
}

fn from_families(tasks: &[Task], pack: &Pack) -> usize {
    let ids: Vec<&str> = pack.families.iter().map(|f| f.family.id.as_str()).collect();
    tasks
        .iter()
        .filter(|t| {
            t.template
                .as_ref()
                .is_some_and(|r| ids.contains(&r.id.as_str()))
        })
        .count()
}

/// An id of a generated month: server, six hex digits, month; no family or template in it.
fn opaque(id: &str, month: &str) -> bool {
    let parts: Vec<&str> = id.split('-').collect();
    parts.len() == 3
        && parts[1].len() == 6
        && parts[1].bytes().all(|b| b.is_ascii_hexdigit())
        && parts[2] == month
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pack_is_stored_sealed_and_revealed_family_by_family() {
    let (pool, url) = fresh().await;
    let custody = custody();
    let pack = Pack::read(&fixture()).unwrap();
    let row = mcpbench_sets::add_pack(&pool, &custody, &fixture(), 2)
        .await
        .unwrap();
    assert_eq!(
        (row.name.as_str(), row.families, row.retired),
        ("sets-test", 3, 0)
    );
    assert_eq!(row.sha256, pack.sha256, "the listed hash is the pack's");
    let dump = pg_dump(&url);
    for secret in secrets(&pack) {
        assert!(
            !dump.contains(&secret),
            "{secret:?} is in the dump in clear"
        );
    }
    assert!(dump.contains(&pack.sha256));
    assert!(matches!(
        mcpbench_sets::add_pack(&pool, &custody, &fixture(), 2).await,
        Err(SetError::Conflict(_))
    ));

    // Retired one by one: each family's file in clear, matching its listed hash; the pack's
    // own files once the last is retired.
    let mut live = mcpbench_sets::live_families(&pool, custody.keyring.as_ref().unwrap())
        .await
        .unwrap()
        .len();
    assert_eq!(live, 3);
    for (k, family) in pack.families.iter().enumerate() {
        let id = &family.family.id;
        mcpbench_sets::retire_family(&pool, &custody, "sets-test", id)
            .await
            .unwrap();
        let name = format!("{id}.json");
        let bytes = packs::revealed_bytes(&pool, "sets-test", &name)
            .await
            .unwrap()
            .expect("the retired family's file is in clear");
        let file = pack.files.iter().find(|f| f.name == name).unwrap();
        assert_eq!(bytes, file.bytes);
        let listed = packs::revealed(&pool).await.unwrap();
        assert!(
            listed
                .iter()
                .any(|f| f.name == name && f.sha256 == family.sha256)
        );
        let pack_json = packs::revealed_bytes(&pool, "sets-test", "pack.json")
            .await
            .unwrap();
        assert_eq!(
            pack_json.is_some(),
            k == 2,
            "pack.json once every family is retired"
        );
        live -= 1;
        assert_eq!(
            mcpbench_sets::live_families(&pool, custody.keyring.as_ref().unwrap())
                .await
                .unwrap()
                .len(),
            live
        );
        assert!(matches!(
            mcpbench_sets::retire_family(&pool, &custody, "sets-test", id).await,
            Err(SetError::Conflict(_))
        ));
    }
    assert!(
        packs::revealed_bytes(&pool, "sets-test", "lib.jq")
            .await
            .unwrap()
            .is_some()
    );
    assert!(matches!(
        mcpbench_sets::retire_family(&pool, &custody, "sets-test", "no.such").await,
        Err(SetError::NotFound(_))
    ));
    let row = &mcpbench_sets::list_packs(&pool).await.unwrap()[0];
    assert_eq!(row.retired, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_month_draws_most_of_its_tasks_from_the_private_families() {
    let (pool, url) = fresh().await;
    let custody = custody();
    // Without a pack, a share is refused and the default draws everything in public.
    assert!(matches!(
        mcpbench_sets::generate_draft(&pool, &custody, "2026-10", 8, Some(0.5)).await,
        Err(SetError::Invalid(m)) if m.contains("no private family")
    ));
    let pack = Pack::read(&fixture()).unwrap();
    mcpbench_sets::add_pack(&pool, &custody, &fixture(), 2)
        .await
        .unwrap();
    assert!(matches!(
        mcpbench_sets::generate_draft(&pool, &custody, "2026-10", 8, Some(1.5)).await,
        Err(SetError::Invalid(_))
    ));
    let private = mcpbench_sets::generate_draft(&pool, &custody, "2026-11", 12, None)
        .await
        .unwrap();
    assert_eq!(private, 9, "three quarters by default");
    let month = opened(&pool, &custody, "2026-11").await;
    assert_eq!(from_families(&month, &pack), 9);
    for t in &month {
        assert!(opaque(&t.id, "202611"), "{} names its origin", t.id);
    }
    let half = mcpbench_sets::generate_draft(&pool, &custody, "2026-12", 12, Some(0.5))
        .await
        .unwrap();
    assert_eq!(half, 6);
    assert_eq!(
        from_families(&opened(&pool, &custody, "2026-12").await, &pack),
        6
    );
    let dump = pg_dump(&url);
    for secret in secrets(&pack) {
        assert!(
            !dump.contains(&secret),
            "{secret:?} is in the dump in clear"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotation_draws_its_fresh_tasks_from_the_private_families_too() {
    let (pool, _) = fresh().await;
    let custody = custody();
    let pack = Pack::read(&fixture()).unwrap();
    mcpbench_sets::add_pack(&pool, &custody, &fixture(), 2)
        .await
        .unwrap();
    mcpbench_sets::generate_draft(&pool, &custody, "2026-11", 16, Some(0.0))
        .await
        .unwrap();
    mcpbench_sets::activate(&pool, &custody, "2026-11")
        .await
        .unwrap();
    let before = opened(&pool, &custody, "2026-11").await;
    assert_eq!(from_families(&before, &pack), 0);
    let r = mcpbench_sets::rotate(&pool, &custody, "2026-11", "2026-12", 0.25, None)
        .await
        .unwrap();
    assert_eq!((r.kept, r.replaced), (12, 4));
    let after = opened(&pool, &custody, "2026-12").await;
    assert_eq!(
        from_families(&after, &pack),
        3,
        "three quarters of the fresh tasks"
    );
    let old: Vec<&str> = before.iter().map(|t| t.id.as_str()).collect();
    for t in after.iter().filter(|t| !old.contains(&t.id.as_str())) {
        assert!(opaque(&t.id, "202612"), "{} names its origin", t.id);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pack_that_does_not_prove_is_refused_whole() {
    let (pool, _) = fresh().await;
    let custody = custody();
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    // A family whose reference no longer reaches its goal: the predicate wants another price.
    let path = dir.path().join("shop.receive-stock-private.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut family: serde_json::Value = serde_json::from_str(&text).unwrap();
    family["predicate"] = serde_json::json!({"shop.productPrice": {"sku": "NOPE", "price": 1}});
    std::fs::write(&path, family.to_string()).unwrap();
    let e = mcpbench_sets::add_pack(&pool, &custody, dir.path(), 2)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("shop.receive-stock-private.json") && e.contains("fail their proof"),
        "{e}"
    );
    assert!(
        mcpbench_sets::list_packs(&pool).await.unwrap().is_empty(),
        "nothing stored"
    );
    // And one that does not load names no content.
    std::fs::write(dir.path().join("broken.json"), "{\"format\": 1}").unwrap();
    let e = mcpbench_sets::add_pack(&pool, &custody, dir.path(), 2)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("does not load") && e.contains("tasks check --pack"),
        "{e}"
    );
}
