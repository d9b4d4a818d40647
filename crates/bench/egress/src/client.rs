//! HTTP clients that connect only to addresses the policy permits.

use crate::check::{check_url, refusal_of, resolve};
use crate::{Policy, Refusal, Timeouts};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::sync::Arc;

/// Resolves names, then keeps only the addresses the policy permits, so the connection goes to
/// a checked address; fails when none is left, naming the first refused one.
struct CheckingResolver {
    policy: Policy,
}

impl Resolve for CheckingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        Box::pin(async move {
            let name = name.as_str();
            // The port is replaced by the URL's when reqwest connects.
            let addrs = resolve(name, 0).await?;
            let (permitted, refused): (Vec<_>, Vec<_>) =
                addrs.into_iter().partition(|a| policy.permits(a.ip()));
            if permitted.is_empty() {
                let refusal = refused
                    .iter()
                    .find_map(|a| refusal_of(name, a.ip(), &policy))
                    .unwrap_or(Refusal::Unresolvable { host: name.into() });
                return Err(refusal.into());
            }
            let addrs: Addrs = Box::new(permitted.into_iter());
            Ok(addrs)
        })
    }
}

/// A `reqwest::Client` that resolves names through the policy's checks, never follows
/// redirects, ignores proxy settings, and (unless the policy allows http) speaks only https.
///
/// It does **not** check IP-literal hosts, which skip the resolver: run [`check_url`] on every
/// URL before every request, or use [`GuardedClient`], which does.
pub fn client(policy: Policy, timeouts: Timeouts) -> reqwest::Client {
    let mut builder = reqwest::Client::builder()
        .dns_resolver(Arc::new(CheckingResolver { policy }))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .https_only(!policy.allow_http)
        .referer(false)
        .connect_timeout(timeouts.connect);
    if let Some(request) = timeouts.request {
        builder = builder.timeout(request);
    }
    builder.build().expect("the HTTP client builds")
}

/// A [`client`] and its policy together: every request's URL is checked with [`check_url`]
/// before a request exists, so no URL can skip the check.
#[derive(Clone, Debug)]
pub struct GuardedClient {
    policy: Policy,
    http: reqwest::Client,
}

impl GuardedClient {
    pub fn new(policy: Policy, timeouts: Timeouts) -> Self {
        Self {
            policy,
            http: client(policy, timeouts),
        }
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// A request to `url` after [`check_url`] passes; the refusal otherwise.
    pub fn request(
        &self,
        method: reqwest::Method,
        url: &str,
    ) -> Result<reqwest::RequestBuilder, Refusal> {
        let url = check_url(url, &self.policy)?;
        Ok(self.http.request(method, url))
    }

    pub fn get(&self, url: &str) -> Result<reqwest::RequestBuilder, Refusal> {
        self.request(reqwest::Method::GET, url)
    }

    pub fn post(&self, url: &str) -> Result<reqwest::RequestBuilder, Refusal> {
        self.request(reqwest::Method::POST, url)
    }
}
