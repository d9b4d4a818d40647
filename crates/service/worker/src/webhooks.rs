//! Completion webhooks (docs/protocol.md, section 10): when a submission that names a URL ends,
//! a worker POSTs what it came to, signed as requests to agents are (Standard Webhooks, with
//! the submission's signing secret). Each housekeeping round sends what is due; a failed
//! attempt (no 2xx within the time limit) is due again after a wait that grows six-fold, and
//! the fifth failure gives up. Every attempt goes through the egress policy, as agent calls do.

use mcpbench_db::{PgPool, webhooks};
use mcpbench_egress::GuardedClient;
use serde_json::json;
use std::time::{Duration, SystemTime};

/// Attempts before a webhook is given up.
pub const ATTEMPTS: i32 = 5;
/// The most webhooks one round sends, so that a backlog does not hold up the housekeeping.
const PER_ROUND: usize = 20;
/// How long one attempt may take.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The client webhooks are sent with: the egress policy's, bounded in time.
pub fn client(policy: mcpbench_egress::Policy) -> GuardedClient {
    GuardedClient::new(
        policy,
        mcpbench_egress::Timeouts {
            connect: Duration::from_secs(5),
            request: Some(TIMEOUT),
        },
    )
}

/// Sends the webhooks due, up to [`PER_ROUND`]. `lease` is how long a claimed one waits
/// before another worker may send it; `backoff` the wait after a first failure.
pub async fn send_due(pool: &PgPool, http: &GuardedClient, lease: Duration, backoff: Duration) {
    for _ in 0..PER_ROUND {
        let due = match webhooks::claim(pool, lease + TIMEOUT).await {
            Ok(Some(due)) => due,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(error = %e, "claiming a webhook failed");
                return;
            }
        };
        let id = due.submission_id;
        let recorded = match send(http, &due).await {
            Ok(()) => {
                tracing::info!(submission = %id, attempt = due.attempt, "webhook delivered");
                webhooks::delivered(pool, id).await
            }
            Err(reason) => {
                let retry = (due.attempt < ATTEMPTS).then(|| wait(backoff, due.attempt));
                tracing::warn!(submission = %id, attempt = due.attempt, reason, retry = ?retry, "webhook not delivered");
                webhooks::failed(pool, id, &reason, retry).await
            }
        };
        if let Err(e) = recorded {
            tracing::warn!(submission = %id, error = %e, "recording a webhook's outcome failed");
        }
    }
}

/// The wait after failed attempt `attempt` (from 1): `backoff`, then six times longer each
/// time (10 s, 1 min, 6 min, 36 min by default).
fn wait(backoff: Duration, attempt: i32) -> Duration {
    backoff * 6u32.pow(attempt.clamp(1, ATTEMPTS) as u32 - 1)
}

/// One attempt; why it failed, in words a vendor can act on.
async fn send(http: &GuardedClient, due: &webhooks::Due) -> Result<(), String> {
    let body = serde_json::to_vec(&body(due)).expect("a webhook body serializes");
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let message = format!("finished-{}", due.submission_id);
    let signed = mcpbench_runner::sign_request(&due.signing_secret, &message, now, &body);
    let mut request = http
        .post(&due.url)
        .map_err(|r| format!("the URL is refused: {r}"))?
        .header("content-type", "application/json");
    for (name, value) in signed.headers() {
        request = request.header(name, value);
    }
    let response = request.body(body).send().await.map_err(|e| {
        if e.is_timeout() {
            format!("no answer within {} s", TIMEOUT.as_secs())
        } else {
            // Without the URL, which the vendor knows and a log line need not repeat.
            format!("the request failed: {}", e.without_url())
        }
    })?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("answered {status}"))
    }
}

/// What the webhook says: the submission's end, as its vendor's `GET /submissions/{id}` would.
fn body(due: &webhooks::Due) -> serde_json::Value {
    let overall = due
        .scores
        .as_ref()
        .and_then(|s| s.get())
        .map(|s| &s.overall);
    let rfc3339 = |t: time::OffsetDateTime| {
        humantime::format_rfc3339_seconds(SystemTime::from(t)).to_string()
    };
    json!({
        "type": "submission.finished",
        "timestamp": humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        "data": {
            "submission_id": due.submission_id,
            "set": due.set_id,
            "status": due.status,
            "success_rate": overall.and_then(|o| o.success_rate),
            "success_ci95": overall.and_then(|o| o.success_ci95),
            "finished_at": due.finished_at.map(rfc3339),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_wait_is_six_times_the_last_and_the_fifth_failure_is_the_last() {
        let s = Duration::from_secs;
        let waits: Vec<Duration> = (1..ATTEMPTS).map(|a| wait(s(10), a)).collect();
        assert_eq!(waits, [s(10), s(60), s(360), s(2160)]);
    }
}
