//! When the slow requests came: whether they cluster in a few seconds, and what the machine
//! was doing in those seconds against the rest (each process's CPU, the host's steal).

use super::machine::Second;
use std::time::Instant;

/// A request slower than this is counted as slow: the gateway's p99 target.
const SLOW_MICROS: u64 = 5_000;

#[derive(Default, Clone, Copy)]
struct Bucket {
    requests: usize,
    slow: usize,
    worst: u64,
    /// Servers opened (`initialize` or `server/discover`): runs starting.
    opened: usize,
}

/// Prints how the requests over 5 ms spread over the month's seconds, and every second's line
/// when `MONTH_TIMELINE` is set. `requests` are (when the routing layer began timing,
/// microseconds taken, whether it opened a server).
pub fn report(requests: &[(Instant, u64, bool)], seconds: &[Second]) {
    if seconds.is_empty() {
        return;
    }
    let mut buckets = vec![Bucket::default(); seconds.len()];
    for &(at, micros, opening) in requests {
        // The second a request began in: the first whose end is after it (the last holds the
        // few after the final sample).
        let i = seconds
            .partition_point(|s| s.end <= at)
            .min(seconds.len() - 1);
        let b = &mut buckets[i];
        b.requests += 1;
        b.slow += usize::from(micros > SLOW_MICROS);
        b.worst = b.worst.max(micros);
        b.opened += usize::from(opening);
    }
    let start = seconds[0].end - std::time::Duration::from_secs(1);
    let second = |i: usize| {
        let (b, s) = (buckets[i], seconds[i]);
        format!(
            "  at {:>4.0} s: {:>4} of {:>5} requests slow, worst {:>5.1} ms, {:>4} servers \
             opened; steal {:>3.0} ms, CPU ms: routing {:>3.0}, PostgreSQL {:>3.0}, worker \
             {:>3.0}, agents {:>3.0}",
            s.end.duration_since(start).as_secs_f64(),
            b.slow,
            b.requests,
            b.worst as f64 / 1000.0,
            b.opened,
            1000.0 * s.steal,
            1000.0 * s.cpu[0],
            1000.0 * s.cpu[1],
            1000.0 * s.cpu[2],
            1000.0 * s.cpu[3],
        )
    };
    if std::env::var_os("MONTH_TIMELINE").is_some() {
        println!("every second of the month:");
        (0..buckets.len()).for_each(|i| println!("{}", second(i)));
    }
    let slow: usize = buckets.iter().map(|b| b.slow).sum();
    if slow == 0 {
        println!("slow requests       none over 5 ms");
        return;
    }
    // The fewest seconds that hold half the slow requests.
    let mut order: Vec<usize> = (0..buckets.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(buckets[i].slow));
    let mut held = 0;
    let hot: Vec<usize> = order
        .iter()
        .copied()
        .take_while(|&i| {
            let before = held;
            held += buckets[i].slow;
            before < slow.div_ceil(2)
        })
        .collect();
    let is_hot = |i: usize| hot.contains(&i);
    let mean = |pick: &dyn Fn(&Second) -> f64, hot_side: bool| {
        let chosen: Vec<f64> = (0..seconds.len())
            .filter(|&i| is_hot(i) == hot_side && buckets[i].requests > 0)
            .map(|i| 1000.0 * pick(&seconds[i]))
            .collect();
        chosen.iter().sum::<f64>() / chosen.len().max(1) as f64
    };
    let total: usize = buckets.iter().map(|b| b.requests).sum();
    println!(
        "slow requests       {slow} of {total} over 5 ms ({:.2}%); half of them in {} of {} \
         seconds",
        100.0 * slow as f64 / total.max(1) as f64,
        hot.len(),
        buckets.iter().filter(|b| b.requests > 0).count()
    );
    let names = ["routing layer", "PostgreSQL", "worker", "agents"];
    let mut line = format!(
        "  per second, in those seconds / the others: host's steal {:.0} / {:.0} ms",
        mean(&|s| s.steal, true),
        mean(&|s| s.steal, false)
    );
    for (i, name) in names.iter().enumerate() {
        line += &format!(
            ", {name} {:.0} / {:.0} ms",
            mean(&|s| s.cpu[i], true),
            mean(&|s| s.cpu[i], false)
        );
    }
    println!("{line} of CPU");
    for &i in hot.iter().take(5) {
        println!("{}", second(i));
    }
}
