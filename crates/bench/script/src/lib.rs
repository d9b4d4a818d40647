//! The generator-aware baseline, `script`: the strongest agent without a model we can write
//! knowing the public families as well as anyone who has read this repository. It stands for
//! the adversary of rule 10 (docs/tasks.md): on the public sets it shows what knowing the
//! generator buys; on a private month drawn from families it was not written against, it must
//! pass almost nothing, or the month ranks scripts rather than models.
//!
//! - `recognize`: every goal wording of every public family as a regular expression (its
//!   text, its choices as alternatives, its slots as captures), so a goal names its family and
//!   hands over the values its slots hold.

mod recognize;

pub use recognize::{Recognition, Recognizer};
