//! What one run's state may hold. Every vendor's concurrent runs share a worker's memory, so a
//! server's state must not grow with whatever an agent sends: each server states its bounds as
//! a [`Capacity`] (how many records, how many bytes in all), checks a change against it before
//! making it, and past a bound answers with the tool error [`Capacity::admit`] builds, which
//! names the bound and says that nothing was changed. The bounds sit far above anything a task
//! needs; they stop a run that writes without end, not an agent doing its work.

use crate::error::ToolError;
use serde::Serialize;
use std::io;
use std::ops::Add;

/// The bounds of one store of a run's state: a mailbox, a workspace, a knowledge graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// The store, as the agent reads it: `mailbox`.
    pub store: &'static str,
    /// The most records it holds.
    pub records: usize,
    /// What its records are, plural: `messages and labels`.
    pub noun: &'static str,
    /// The most bytes its records take together, as the server measures them ([`footprint`]
    /// unless it keeps plain content, like files).
    pub bytes: usize,
}

/// How much of a [`Capacity`] a store uses, or how much a change adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub records: usize,
    pub bytes: usize,
}

impl Usage {
    /// `records` records whose content is `value`, measured by [`footprint`].
    pub fn of<T: Serialize + ?Sized>(records: usize, value: &T) -> Self {
        Usage {
            records,
            bytes: footprint(value),
        }
    }

    /// Bytes only: a change that replaces content and adds no record.
    pub fn bytes(bytes: usize) -> Self {
        Usage { records: 0, bytes }
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            records: self.records.saturating_add(other.records),
            bytes: self.bytes.saturating_add(other.bytes),
        }
    }
}

impl Capacity {
    /// Whether a store using `held` may take `adding` more. A change that adds no records (or
    /// no bytes) is never refused for them, so a store seeded above a bound can still be
    /// edited and emptied. The refusal names the bound and says nothing was changed.
    pub fn admit(&self, held: Usage, adding: Usage) -> Result<(), ToolError> {
        let over = |held: usize, adding: usize, max: usize| {
            adding > 0 && held.saturating_add(adding) > max
        };
        let limit = if over(held.records, adding.records, self.records) {
            format!("{} {}", grouped(self.records), self.noun)
        } else if over(held.bytes, adding.bytes, self.bytes) {
            format!("{} in all", size(self.bytes))
        } else {
            return Ok(());
        };
        Err(ToolError::precondition(format!(
            "the {store} is full: a run's {store} holds at most {limit}; nothing was changed",
            store = self.store
        )))
    }

    /// The sentence that states the bounds in the descriptions of the tools that fill the
    /// store: `A run's mailbox holds at most 2,000 messages and labels and 4 MiB in all.`
    pub fn sentence(&self) -> String {
        format!(
            "A run's {} holds at most {} {} and {} in all.",
            self.store,
            grouped(self.records),
            self.noun,
            size(self.bytes)
        )
    }
}

/// The bytes `value` takes as compact JSON, counted without building the text: what a record
/// costs a run's state, measured the same way on every server.
pub fn footprint<T: Serialize + ?Sized>(value: &T) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        // Only a map with keys JSON cannot have fails; count it as full rather than free.
        Err(_) => usize::MAX,
    }
}

/// `5000` as `5,000`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count as the agent reads it: `4 MiB`, `512 KiB`, `100 bytes`.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{} bytes", grouped(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    const MAILBOX: Capacity = Capacity {
        store: "mailbox",
        records: 2_000,
        noun: "messages",
        bytes: 4 << 20,
    };

    #[test]
    fn a_change_within_the_bounds_is_admitted() {
        let held = Usage {
            records: 1_999,
            bytes: (4 << 20) - 10,
        };
        assert_eq!(
            MAILBOX.admit(
                held,
                Usage {
                    records: 1,
                    bytes: 10
                }
            ),
            Ok(())
        );
    }

    #[test]
    fn past_a_bound_the_refusal_names_it() {
        let held = Usage {
            records: 2_000,
            bytes: 0,
        };
        let e = MAILBOX.admit(held, Usage::of(1, "x")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::FailedPrecondition);
        assert_eq!(
            e.message,
            "the mailbox is full: a run's mailbox holds at most 2,000 messages; nothing was changed"
        );
        let e = MAILBOX
            .admit(Usage::default(), Usage::bytes((4 << 20) + 1))
            .unwrap_err();
        assert!(
            e.message
                .ends_with("at most 4 MiB in all; nothing was changed"),
            "{e}"
        );
    }

    #[test]
    fn a_change_that_adds_nothing_is_never_refused() {
        let over = Usage {
            records: 9_999,
            bytes: 99 << 20,
        };
        assert_eq!(MAILBOX.admit(over, Usage::default()), Ok(()));
        assert_eq!(
            MAILBOX.admit(over, Usage::bytes(0)),
            Ok(()),
            "an edit that does not grow the store"
        );
    }

    #[test]
    fn footprint_is_the_length_of_compact_json() {
        let value = serde_json::json!({"to": ["a@b.c"], "body": "héllo"});
        assert_eq!(footprint(&value), value.to_string().len());
        assert_eq!(
            Usage::of(1, "abc"),
            Usage {
                records: 1,
                bytes: 5
            }
        );
    }

    #[test]
    fn the_sentence_states_every_bound() {
        assert_eq!(
            MAILBOX.sentence(),
            "A run's mailbox holds at most 2,000 messages and 4 MiB in all."
        );
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(size(256 << 10), "256 KiB");
        assert_eq!(size(100), "100 bytes");
    }
}
