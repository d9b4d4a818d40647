//! Embeds the public pack (`tasks/packs/public`): the public generator's families travel inside
//! every binary that draws public sets or reads them (the `script` agent), wherever it runs.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("../../../tasks/packs/public");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let entry = entry.expect("a directory entry");
            println!("cargo:rerun-if-changed={}", entry.path().display());
            entry.file_name().to_string_lossy().into_owned()
        })
        .collect();
    names.sort();
    let mut code = String::from("pub(crate) const FILES: &[(&str, &[u8])] = &[\n");
    for name in names {
        let path = dir.join(&name);
        let path = path.canonicalize().unwrap_or(path);
        writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .expect("a string takes writes");
    }
    code.push_str("];\n");
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("public_pack.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
