//! What the API keeps for readers without a session: serialized boards per query, the
//! leaderboard page's content, and whole pages and answers every such reader sees alike. All
//! of it is dropped together when what the public sees changes
//! ([`crate::board::invalidate_on_notify`]), and lives a few seconds at most in any case.

use crate::board::Form;
use axum::body::Bytes;
use mcpbench_core::board::Query;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// How long anything kept is served without a notification by default; bounds staleness if
/// one is lost ([`crate::Config::kept_for`]).
pub const KEPT_FOR: Duration = Duration::from_secs(5);
/// Entries per shelf; past it the stale go first, then the oldest.
const MAX_ENTRIES: usize = 512;

/// Where a page is kept. Shelves fill apart, so that a crawler walking every comparison pair
/// cannot push the leaderboard's pages out.
#[derive(Clone, Copy, Debug)]
pub enum Shelf {
    /// The leaderboard page's content per page query.
    Board,
    /// Whole pages and answers every reader without a session sees alike (`web::shared_key`).
    Shared,
}

/// A bounded map whose entries are served while fresh.
struct Fresh<K, V> {
    entries: RwLock<HashMap<K, (Instant, V)>>,
    ttl: Duration,
}

impl<K: Hash + Eq + Clone, V: Clone> Fresh<K, V> {
    fn new(ttl: Duration) -> Self {
        Self {
            entries: RwLock::new(HashMap::new()),
            ttl,
        }
    }

    fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries
            .get(key)
            .filter(|(at, _)| at.elapsed() < self.ttl)
            .map(|(_, v)| v.clone())
    }

    fn put(&self, key: K, value: V) {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES && !entries.contains_key(&key) {
            entries.retain(|_, (at, _)| at.elapsed() < self.ttl);
            // All fresh: the oldest goes (a scan of a few hundred, only when full).
            if entries.len() >= MAX_ENTRIES {
                let oldest = entries.iter().min_by_key(|(_, (at, _))| *at);
                if let Some(oldest) = oldest.map(|(k, _)| k.clone()) {
                    entries.remove(&oldest);
                }
            }
        }
        entries.insert(key, (Instant::now(), value));
    }

    fn clear(&self) {
        self.entries
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// The API's kept boards and pages.
pub struct BoardCache {
    boards: Fresh<(Query, Form), Bytes>,
    board_pages: Fresh<String, Arc<str>>,
    shared_pages: Fresh<String, Arc<str>>,
    /// The set of the official board (every board request naming no set asks for it).
    official: Fresh<(), String>,
    /// One lock per page being made, so that readers who all miss at once (when a page ages
    /// out under load) wait for one making rather than each making it.
    making: std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// What [`BoardCache::kept`] found.
pub enum Kept {
    /// Fresh content kept under the key.
    Found(Arc<str>),
    /// Nothing fresh: make it while holding this (`None` when there was no key).
    Make(Option<tokio::sync::OwnedMutexGuard<()>>),
}

impl BoardCache {
    /// Keeps what it is given for `ttl` at most.
    pub fn new(ttl: Duration) -> Self {
        Self {
            boards: Fresh::new(ttl),
            board_pages: Fresh::new(ttl),
            shared_pages: Fresh::new(ttl),
            official: Fresh::new(ttl),
            making: std::sync::Mutex::new(HashMap::new()),
        }
    }

    fn shelf(&self, shelf: Shelf) -> &Fresh<String, Arc<str>> {
        match shelf {
            Shelf::Board => &self.board_pages,
            Shelf::Shared => &self.shared_pages,
        }
    }

    /// What is kept under `key` on `shelf` while fresh, or else the lock for making it, which
    /// the caller holds until what it makes is kept: readers who miss at once wait for one
    /// making, then find its page. Without a key nothing is kept and no lock is taken.
    pub async fn kept(&self, shelf: Shelf, key: Option<&str>) -> Kept {
        let Some(key) = key else {
            return Kept::Make(None);
        };
        if let Some(found) = self.shelf(shelf).get(key) {
            return Kept::Found(found);
        }
        let making = self.making(key).await;
        match self.shelf(shelf).get(key) {
            Some(found) => Kept::Found(found),
            None => Kept::Make(Some(making)),
        }
    }

    /// Held while the page for `key` is made; look in the cache again once it is held.
    pub async fn making(&self, key: &str) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = {
            let mut making = self.making.lock().unwrap_or_else(|e| e.into_inner());
            if making.len() >= MAX_ENTRIES {
                // Locks no one holds are dropped; a held one stays with its holders.
                making.retain(|_, l| Arc::strong_count(l) > 1);
            }
            making.entry(key.to_string()).or_default().clone()
        };
        lock.lock_owned().await
    }

    /// Keeps `content` under `key` on `shelf`.
    pub fn put_page(&self, shelf: Shelf, key: String, content: Arc<str>) {
        self.shelf(shelf).put(key, content);
    }

    pub fn get(&self, q: &Query, form: Form) -> Option<Bytes> {
        self.boards.get(&(q.clone(), form))
    }

    pub fn put(&self, q: Query, form: Form, body: Bytes) {
        self.boards.put((q, form), body);
    }

    /// The official board's set, as last found.
    pub fn official(&self) -> Option<String> {
        self.official.get(&())
    }

    pub fn put_official(&self, set: String) {
        self.official.put((), set);
    }

    pub fn clear(&self) {
        self.official.clear();
        self.boards.clear();
        self.board_pages.clear();
        self.shared_pages.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_shelf_drops_its_oldest_and_leaves_the_other_alone() {
        let cache = BoardCache::new(KEPT_FOR);
        cache.put_page(Shelf::Board, "board".into(), Arc::from("the board"));
        for i in 0..MAX_ENTRIES {
            cache.put_page(Shelf::Shared, format!("pair {i}"), Arc::from("a pair"));
        }
        cache.put_page(Shelf::Shared, "one more".into(), Arc::from("another"));
        let shared = &cache.shared_pages;
        assert_eq!(shared.get("pair 0"), None, "the oldest went");
        assert!(shared.get("pair 1").is_some());
        assert!(shared.get("one more").is_some());
        assert_eq!(shared.entries.read().unwrap().len(), MAX_ENTRIES);
        assert_eq!(
            cache.board_pages.get("board").as_deref(),
            Some("the board"),
            "a crawler over shared pages leaves the board's alone"
        );
        // Putting a key that is already kept replaces it and evicts nothing.
        cache.put_page(Shelf::Shared, "pair 1".into(), Arc::from("again"));
        assert!(shared.get("pair 2").is_some());
        cache.clear();
        assert_eq!(cache.board_pages.get("board"), None);
    }
}
