//! The public pack (`tasks/packs/public`), built into the crate (`build.rs`): the families the
//! public sets are drawn from. `tasks generate` without `--pack`, the public share of a month
//! and a rotation's candidates all draw here, so a public family has one form, its file.

use crate::pack::{Pack, PackFile};
use mcpbench_tasks::{GenerateError, Source, Task, generate_from};
use mcpbench_world::AnyTemplate;
use std::sync::LazyLock;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/public_pack.rs"));
}

static PUBLIC: LazyLock<(Pack, Vec<AnyTemplate>)> = LazyLock::new(|| {
    let pack = Pack::from_files(public_files())
        .unwrap_or_else(|e| panic!("the public pack built in does not load: {e}"));
    let templates = pack.templates();
    (pack, templates)
});

/// The public pack's files, as built in.
pub fn public_files() -> Vec<PackFile> {
    (embedded::FILES.iter())
        .map(|(name, bytes)| PackFile {
            name: (*name).to_string(),
            bytes: bytes.to_vec(),
        })
        .collect()
}

/// The public pack, compiled once.
pub fn public_pack() -> &'static Pack {
    &PUBLIC.0
}

/// The public families as the generator's templates (each also draws distractor worlds of its
/// server).
pub fn public_templates() -> &'static [AnyTemplate] {
    &PUBLIC.1
}

/// `count` public tasks from `seed`, none of whose goals repeats or comes near one of `avoid`,
/// drawn from the public pack.
pub fn generate_public(
    seed: u64,
    count: usize,
    avoid: &[String],
) -> Result<Vec<Task>, GenerateError> {
    let t = public_templates();
    generate_from(&Source::new(t, t), seed, count, avoid)
}
