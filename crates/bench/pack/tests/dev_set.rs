//! The public dev set is what the public pack draws from the seed in its manifest, byte for
//! byte: the families in `tasks/packs/public` are the public generator.

use mcpbench_pack::generate_public;
use mcpbench_tasks::{GENERATOR_VERSION, Manifest, write_generated};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn the_dev_set_regenerates_byte_for_byte_from_the_public_pack() {
    let dir = root().join("tasks/dev");
    let manifest = Manifest::read(&dir)
        .unwrap()
        .expect("tasks/dev/manifest.json");
    assert_eq!(
        manifest.generator_version, GENERATOR_VERSION,
        "the dev set was made by another generator version"
    );
    let fresh = tempfile::tempdir().unwrap();
    let draw = |seed, count| generate_public(seed, count, &[]);
    let written = write_generated(
        fresh.path(),
        &manifest.set,
        manifest.seed,
        manifest.count,
        draw,
        None,
    )
    .unwrap();
    assert_eq!(written, manifest, "the manifest differs");
    let produced = names(fresh.path());
    assert_eq!(
        names(&dir),
        produced,
        "the set has other files than the generator writes"
    );
    for name in &produced {
        let a = std::fs::read(dir.join(name)).unwrap();
        let b = std::fs::read(fresh.path().join(name)).unwrap();
        assert!(
            a == b,
            "{name} differs from what seed {} draws from the public pack",
            manifest.seed
        );
    }
}
