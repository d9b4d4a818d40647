//! How many of something each key holds at once: connections per address, archives per
//! address, uploads per vendor, open requests per client. A place is counted while its
//! [`Held`] lives and given back when it drops, however the holder ends (answered, cut,
//! panicked), and a key holding nothing leaves no entry behind, so the table is as large as
//! the keys holding something now.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// The places held under each key.
pub(crate) struct Tally<K: Eq + Hash>(Arc<Mutex<HashMap<K, usize>>>);

impl<K: Eq + Hash> Default for Tally<K> {
    fn default() -> Self {
        Self(Arc::default())
    }
}

impl<K: Eq + Hash> Clone for Tally<K> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

/// One place under a key of a [`Tally`]; given back when dropped.
pub(crate) struct Held<K: Eq + Hash> {
    tally: Tally<K>,
    key: Option<K>,
}

impl<K: Eq + Hash + Clone> Tally<K> {
    /// A place under `key` when it holds fewer than `max`; `None` (and nothing counted) when
    /// it holds them all.
    pub(crate) fn try_hold(&self, key: K, max: usize) -> Option<Held<K>> {
        self.hold_with(key, max, || (), || Ok(()))
            .ok()
            .map(|(held, ())| held)
    }

    /// As [`Tally::try_hold`], refusing with `full()` when the key holds `max`, and with what
    /// `also` refuses once the key has room (a cap in all that the caller keeps beside the
    /// table, asked under the table's lock). A refusal counts nothing.
    pub(crate) fn hold_with<T, E>(
        &self,
        key: K,
        max: usize,
        full: impl FnOnce() -> E,
        also: impl FnOnce() -> Result<T, E>,
    ) -> Result<(Held<K>, T), E> {
        let mut table = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if table.get(&key).copied().unwrap_or(0) >= max {
            return Err(full());
        }
        let extra = also()?;
        *table.entry(key.clone()).or_default() += 1;
        Ok((
            Held {
                tally: self.clone(),
                key: Some(key),
            },
            extra,
        ))
    }

    /// The places held under `key` now.
    #[cfg(test)]
    pub(crate) fn held(&self, key: &K) -> usize {
        let table = self.0.lock().unwrap_or_else(|e| e.into_inner());
        table.get(key).copied().unwrap_or(0)
    }

    /// The keys holding anything now.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl<K: Eq + Hash> Drop for Held<K> {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else { return };
        let mut table = self.tally.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = table.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                table.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_holds_at_most_its_share_and_gets_each_place_back() {
        let tally = Tally::default();
        let a: Vec<_> = (0..3).map(|_| tally.try_hold("a", 3).unwrap()).collect();
        assert!(tally.try_hold("a", 3).is_none(), "a fourth place for a");
        let b = tally
            .try_hold("b", 3)
            .expect("another key has its own share");
        assert_eq!(tally.held(&"a"), 3);
        drop(a);
        assert_eq!(tally.held(&"a"), 0);
        assert_eq!(tally.keys(), 1, "a key holding nothing leaves no entry");
        drop(b);
        assert_eq!(tally.keys(), 0);
    }

    #[test]
    fn a_refusal_by_the_other_cap_counts_nothing() {
        let tally = Tally::default();
        assert_eq!(
            tally
                .hold_with("a", 3, || "full", || Err::<(), _>("all"))
                .err(),
            Some("all")
        );
        assert_eq!(tally.keys(), 0);
        let (held, n) = tally
            .hold_with("a", 3, || "full", || Ok::<_, &str>(7))
            .unwrap();
        assert_eq!((tally.held(&"a"), n), (1, 7));
        drop(held);
        assert_eq!(tally.held(&"a"), 0);
    }
}
