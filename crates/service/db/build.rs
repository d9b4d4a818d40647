//! `sqlx::migrate!` embeds the migrations when this crate compiles; this makes a new or changed
//! migration file recompile it (cargo would not notice one otherwise, and a build reusing its
//! target directory would run without it).

fn main() {
    println!("cargo:rerun-if-changed=../../../migrations");
}
