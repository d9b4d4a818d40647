//! What one run's state may hold. Every vendor's concurrent runs share a worker's memory, so a
//! server's state must not grow with whatever an agent sends: each server states its bounds as
//! a [`Capacity`] (how many records, how many bytes in all), checks a change against it before
//! making it, and past a bound answers with the tool error [`Capacity::admit`] builds, which
//! names the bound and says that nothing was changed. The bounds sit far above anything a task
//! needs; they stop a run that writes without end, not an agent doing its work.
//!
//! A store keeps what it holds as a running total, its [`Ledger`]: measured once when the
//! server is built, then moved by each write's exact footprint (what it adds, what it takes
//! away, what an edit changes), so a write costs what it adds rather than a measure of the
//! whole store. The total and a fresh measure must agree after every call:
//! [`Simulated::audit`](crate::Simulated::audit) compares them, and debug builds check it after
//! every call a server answers.

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

    /// What `after` adds to `before`, dimension by dimension (nothing where it shrinks): what
    /// an edit must be admitted for.
    pub fn growth(before: Usage, after: Usage) -> Usage {
        Usage {
            records: after.records.saturating_sub(before.records),
            bytes: after.bytes.saturating_sub(before.bytes),
        }
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

/// What one store holds now, kept as a running total against its [`Capacity`]: build it from a
/// measure of the store, admit each write before making it, and record what the write changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ledger {
    capacity: Capacity,
    held: Usage,
}

impl Ledger {
    /// The ledger of a store that holds `held` now (measured once, when the server is built).
    pub fn new(capacity: Capacity, held: Usage) -> Self {
        Self { capacity, held }
    }

    /// What the store holds, by the running total.
    pub fn held(&self) -> Usage {
        self.held
    }

    /// Whether the store may take `adding` more ([`Capacity::admit`]).
    pub fn admit(&self, adding: Usage) -> Result<(), ToolError> {
        self.capacity.admit(self.held, adding)
    }

    /// Whether the store may have records worth `before` replaced by records worth `after`:
    /// only the growth is admitted, so an edit that shrinks or keeps the size always passes.
    pub fn admit_change(&self, before: Usage, after: Usage) -> Result<(), ToolError> {
        self.admit(Usage::growth(before, after))
    }

    /// Records that `added` was stored.
    pub fn add(&mut self, added: Usage) {
        self.held = self.held + added;
    }

    /// Records that `removed` left the store. More than it holds is a server's miscount:
    /// debug builds stop there; a release build keeps the total at zero rather than wrapping.
    pub fn remove(&mut self, removed: Usage) {
        debug_assert!(
            removed.records <= self.held.records && removed.bytes <= self.held.bytes,
            "the {} removes {removed:?} but holds {:?}",
            self.capacity.store,
            self.held
        );
        self.held = Usage {
            records: self.held.records.saturating_sub(removed.records),
            bytes: self.held.bytes.saturating_sub(removed.bytes),
        };
    }

    /// Records that records worth `before` now are worth `after`.
    pub fn change(&mut self, before: Usage, after: Usage) {
        self.remove(before);
        self.add(after);
    }

    /// Whether the running total is what a fresh `measured` says: an error naming both when
    /// not (a write that moved the total by other than what it changed).
    pub fn audit(&self, measured: Usage) -> Result<(), String> {
        if self.held == measured {
            return Ok(());
        }
        Err(format!(
            "the {} counts {} records and {} bytes, but holds {} records and {} bytes",
            self.capacity.store,
            self.held.records,
            self.held.bytes,
            measured.records,
            measured.bytes
        ))
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
    fn a_ledger_admits_growth_only_and_keeps_the_running_total() {
        let mut ledger = Ledger::new(
            MAILBOX,
            Usage {
                records: 1_999,
                bytes: 100,
            },
        );
        let small = Usage::of(1, "abc");
        let large = Usage::of(1, &"x".repeat(4 << 20));
        assert_eq!(ledger.admit(small), Ok(()));
        ledger.add(small);
        assert!(ledger.admit(small).is_err(), "the 2,001st record");
        // An edit that adds no record and shrinks is admitted however full the store is.
        assert_eq!(ledger.admit_change(large, small), Ok(()));
        assert!(ledger.admit_change(small, large).is_err());
        ledger.change(small, Usage::of(1, "abcdef"));
        ledger.remove(Usage::of(1, "abcdef"));
        assert_eq!(
            ledger.held(),
            Usage {
                records: 1_999,
                bytes: 100
            }
        );
        assert_eq!(ledger.audit(ledger.held()), Ok(()));
        let e = ledger.audit(Usage::default()).unwrap_err();
        assert!(e.contains("counts 1999 records and 100 bytes"), "{e}");
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
