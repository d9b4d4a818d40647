//! Rate limits on what one client can repeat cheaply: failed API-key exchanges (guessing keys,
//! or loading the database with lookups) and submissions (each queues a set's worth of jobs),
//! counted per client address and per vendor. Each limiter is a generic cell rate algorithm
//! (GCRA): `burst` events at once, then one per `interval`; one instant per key, so memory is
//! bounded by the number of keys, which is bounded too.
//!
//! Image uploads hold a slot each ([`crate::routes::upload::Slots`]): a few at once, one per
//! vendor. The counts are per API process: behind a load balancer with n replicas a client gets up to
//! n times the rate, which is still a bound.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most keys a limiter tracks; past it, keys whose budget is whole again are forgotten,
/// and if that is not enough the table starts afresh (logged).
const MAX_KEYS: usize = 100_000;

pub struct Limiter {
    interval: Duration,
    burst: u32,
    /// Per key, the theoretical arrival time: when its budget is whole again.
    tat: Mutex<HashMap<String, Instant>>,
}

impl Limiter {
    /// `burst` events at once, then one per `interval`.
    pub fn new(burst: u32, interval: Duration) -> Self {
        Self {
            interval,
            burst: burst.max(1),
            tat: Mutex::new(HashMap::new()),
        }
    }

    /// How long `key` must wait before one more event is allowed (zero: allowed now).
    fn wait(&self, tat: Option<Instant>, now: Instant) -> (Instant, Duration) {
        let next = tat.map_or(now, |t| t.max(now)) + self.interval;
        let tolerance = self.interval * self.burst;
        (next, (next - now).saturating_sub(tolerance))
    }

    /// Whether one more event for `key` would be allowed now, without counting one: the time
    /// to wait otherwise.
    pub fn check(&self, key: &str) -> Result<(), Duration> {
        let now = Instant::now();
        let table = self.tat.lock().unwrap_or_else(|e| e.into_inner());
        match self.wait(table.get(key).copied(), now).1 {
            d if d.is_zero() => Ok(()),
            d => Err(d),
        }
    }

    /// Counts one event for `key`: the time to wait when it is over the limit (and then it
    /// is not counted).
    pub fn hit(&self, key: &str) -> Result<(), Duration> {
        let now = Instant::now();
        let mut table = self.tat.lock().unwrap_or_else(|e| e.into_inner());
        let (next, wait) = self.wait(table.get(key).copied(), now);
        if !wait.is_zero() {
            return Err(wait);
        }
        if table.len() >= MAX_KEYS && !table.contains_key(key) {
            table.retain(|_, t| *t > now);
            if table.len() >= MAX_KEYS {
                tracing::warn!(
                    keys = table.len(),
                    "a rate limiter's table is full; starting afresh"
                );
                table.clear();
            }
        }
        table.insert(key.to_string(), next);
        Ok(())
    }
}

/// The API's limiters.
pub struct Limits {
    /// Failed key exchanges per client address.
    pub auth_failures_by_address: Limiter,
    /// Failed key exchanges per key prefix (one vendor's key).
    pub auth_failures_by_key: Limiter,
    /// Submissions per vendor.
    pub submissions_by_vendor: Limiter,
    /// Submissions per client address.
    pub submissions_by_address: Limiter,
    /// Image uploads being received: a few in all, one per vendor.
    pub uploads: crate::routes::upload::Slots,
    /// Trace archives streaming: a few in all, two per client address.
    pub archives: crate::archive::Streams,
    /// The bytes of traces held in memory by every reader at once.
    pub traces: crate::held::TraceMemory,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            auth_failures_by_address: Limiter::new(10, Duration::from_secs(6)),
            auth_failures_by_key: Limiter::new(5, Duration::from_secs(12)),
            submissions_by_vendor: Limiter::new(10, Duration::from_secs(6)),
            submissions_by_address: Limiter::new(20, Duration::from_secs(3)),
            uploads: Default::default(),
            archives: Default::default(),
            traces: Default::default(),
        }
    }
}

/// The key a client address is counted under: the address itself, or for IPv6 its /64 (one
/// host usually holds a whole /64, and would otherwise have 2^64 keys).
pub fn address_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_one_per_interval_and_each_key_on_its_own() {
        let l = Limiter::new(3, Duration::from_secs(60));
        for _ in 0..3 {
            assert_eq!(l.check("a"), Ok(()));
            assert_eq!(l.hit("a"), Ok(()));
        }
        let wait = l.hit("a").unwrap_err();
        assert!(
            wait > Duration::from_secs(55) && wait <= Duration::from_secs(60),
            "{wait:?}"
        );
        assert!(l.check("a").is_err(), "still over after a refused event");
        assert_eq!(l.hit("b"), Ok(()), "another key has its own budget");
        let fast = Limiter::new(1, Duration::from_millis(20));
        assert_eq!(fast.hit("k"), Ok(()));
        assert!(fast.hit("k").is_err());
        std::thread::sleep(Duration::from_millis(25));
        assert_eq!(fast.hit("k"), Ok(()), "the budget refills");
    }

    #[test]
    fn the_table_stays_bounded_whatever_the_keys() {
        let l = Limiter::new(1, Duration::from_millis(1));
        for i in 0..(MAX_KEYS + 10) {
            let _ = l.hit(&i.to_string());
        }
        assert!(l.tat.lock().unwrap().len() <= MAX_KEYS);
    }

    #[test]
    fn an_ipv6_host_is_counted_by_its_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(address_key(a), address_key(b));
        assert_ne!(address_key(a), address_key(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(address_key(mapped), "192.0.2.7");
    }
}

/// The client's address as the rate limits count it: the connection's peer, or behind a proxy
/// of ours (`MCPBENCH_TRUST_FORWARDED_FOR`) the last address of `X-Forwarded-For`. `None` when
/// neither is known (a router served without connection info, as in some tests).
#[derive(Clone, Copy, Debug)]
pub struct ClientAddr(pub Option<IpAddr>);

impl ClientAddr {
    /// The address of the request `parts` as the limits count it.
    pub fn of(parts: &http::request::Parts, state: &crate::AppState) -> Self {
        if state.config().admission.trust_forwarded_for {
            // The last entry is the one our proxy added; earlier ones are the client's to
            // write, so nothing but the last is read.
            let forwarded = parts
                .headers
                .get_all("x-forwarded-for")
                .iter()
                .next_back()
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.rsplit(',').next())
                .and_then(|a| a.trim().parse::<IpAddr>().ok());
            if forwarded.is_some() {
                return Self(forwarded);
            }
        }
        Self(
            parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|c| c.0.ip()),
        )
    }
}

impl axum::extract::FromRequestParts<crate::AppState> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut http::request::Parts,
        state: &crate::AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(Self::of(parts, state))
    }
}

impl Limits {
    /// Counts a failed key (exchanged, or used as a bearer credential) against its address and
    /// its prefix, and gives the refusal: `refused`, or 429 once the address or the prefix has
    /// failed too often lately. Only a key that failed is counted or held back: a live key
    /// always passes, whatever was guessed from its address or under its prefix (which is in
    /// clear in every token, so counting it before the key would let anyone lock a vendor out).
    /// Every guess costs one indexed lookup, as any authenticated request does.
    pub fn auth_failed(
        &self,
        state: &crate::AppState,
        addr: ClientAddr,
        key_prefix: Option<&str>,
        refused: crate::ApiError,
    ) -> crate::ApiError {
        if !state.config().admission.rate_limits {
            return refused;
        }
        let by_address = addr
            .0
            .map(|ip| self.auth_failures_by_address.hit(&address_key(ip)));
        let by_key = key_prefix.map(|k| self.auth_failures_by_key.hit(k));
        // Both are counted, so the chain is collected before it is searched.
        let over: Vec<_> = by_address.into_iter().chain(by_key).collect();
        match over.into_iter().find_map(Result::err) {
            None => refused,
            Some(wait) => crate::ApiError::rate_limited(
                "too many failed API keys from here lately; wait before trying again",
                wait,
            ),
        }
    }

    /// Counts a submission, or refuses it when its vendor or address submitted too often.
    pub fn submission(
        &self,
        state: &crate::AppState,
        addr: ClientAddr,
        vendor_id: i64,
    ) -> Result<(), crate::ApiError> {
        if !state.config().admission.rate_limits {
            return Ok(());
        }
        let refused = |wait| {
            crate::ApiError::rate_limited(
                "too many submissions lately; wait before submitting again",
                wait,
            )
        };
        if let Some(ip) = addr.0 {
            self.submissions_by_address
                .check(&address_key(ip))
                .map_err(refused)?;
        }
        self.submissions_by_vendor
            .hit(&vendor_id.to_string())
            .map_err(refused)?;
        if let Some(ip) = addr.0 {
            self.submissions_by_address
                .hit(&address_key(ip))
                .map_err(refused)?;
        }
        Ok(())
    }
}
