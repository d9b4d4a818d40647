//! What the month's processes and the machine under them used: resident memory, CPU seconds
//! per process, and, once a second, the CPU each took and the time the host took from this
//! machine's virtual CPUs (`steal`), to set beside the requests that were slow in that second.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The worker's resident memory in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// The kernel's clock ticks (`USER_HZ`) in a second, in which `/proc` counts CPU time.
const TICKS: f64 = 100.0;

/// The fields of `/proc/<pid>/stat` after the command's closing parenthesis: state, ppid, ...
fn stat_fields(pid: u32) -> Option<Vec<u64>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    // The state is a letter; the rest are numbers. Keep positions: the letter reads as 0.
    Some(
        rest.split_whitespace()
            .map(|f| f.parse().unwrap_or(0))
            .collect(),
    )
}

/// The CPU seconds process `pid` has used, with those of the children it has reaped (utime,
/// the 14th field of its stat, to cstime, the 17th).
pub fn cpu_secs(pid: u32) -> f64 {
    let ticks: u64 = stat_fields(pid)
        .and_then(|f| f.get(11..15).map(|s| s.iter().sum()))
        .unwrap_or(0);
    ticks as f64 / TICKS
}

/// PostgreSQL's postmaster, from its data directory's `postmaster.pid`.
pub async fn postmaster(pool: &sqlx::PgPool) -> Option<u32> {
    let data: String = sqlx::query_scalar("SELECT current_setting('data_directory')")
        .fetch_one(pool)
        .await
        .ok()?;
    std::fs::read_to_string(format!("{data}/postmaster.pid"))
        .ok()?
        .lines()
        .next()?
        .trim()
        .parse()
        .ok()
}

/// PostgreSQL's CPU seconds: its postmaster's (with the backends it has reaped) and those of
/// its live children.
pub fn postgres_cpu_secs(postmaster: Option<u32>) -> f64 {
    let Some(postmaster) = postmaster else {
        return f64::NAN;
    };
    let children = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| stat_fields(*pid).and_then(|f| f.get(1).copied()) == Some(postmaster as u64));
    cpu_secs(postmaster) + children.map(cpu_secs).sum::<f64>()
}

/// The seconds the host has taken from this machine's CPUs while they had work (the `steal`
/// column of `/proc/stat`, summed over the CPUs); zero on a machine that is not virtual.
fn steal_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: u64 = stat
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(8)?.parse().ok())
        .unwrap_or(0);
    ticks as f64 / TICKS
}

/// Whether the kernel groups processes by session for scheduling (`autogroup`). Where it does,
/// and the processes are in no cgroup of their own, every PostgreSQL backend (each is a session
/// of its own) is weighed against the whole of this bench's session, service and agents
/// together: its backends take far more than their share, and the gateway's latency shows it.
/// A deployment runs each service in a cgroup (a container, a systemd unit), where autogroup
/// does not apply.
pub fn autogroup() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled")
        .is_ok_and(|v| v.trim() == "1")
}

/// The processes watched: the routing layer (this bench), PostgreSQL, the worker, the agents.
#[derive(Clone, Copy)]
pub struct Watched {
    pub route: u32,
    pub postmaster: Option<u32>,
    pub worker: u32,
    pub agents: u32,
}

impl Watched {
    /// Their CPU seconds so far, in that order.
    pub fn cpu(&self) -> [f64; 4] {
        [
            cpu_secs(self.route),
            postgres_cpu_secs(self.postmaster),
            cpu_secs(self.worker),
            cpu_secs(self.agents),
        ]
    }
}

/// One second of the month: when it ended, and the CPU seconds each watched process used in
/// it and the host took.
#[derive(Clone, Copy)]
pub struct Second {
    pub end: Instant,
    pub cpu: [f64; 4],
    pub steal: f64,
}

/// Samples `watched` once a second until dropped.
pub struct Sampler {
    seconds: Arc<Mutex<Vec<Second>>>,
}

impl Sampler {
    pub fn start(watched: Watched) -> Self {
        let seconds = Arc::new(Mutex::new(Vec::new()));
        let kept = seconds.clone();
        std::thread::spawn(move || {
            let (mut cpu, mut steal) = (watched.cpu(), steal_secs());
            // Stops within a second of the sampler being dropped.
            while Arc::strong_count(&kept) > 1 {
                std::thread::sleep(Duration::from_secs(1));
                let (now_cpu, now_steal) = (watched.cpu(), steal_secs());
                let used = std::array::from_fn(|i| now_cpu[i] - cpu[i]);
                kept.lock().unwrap().push(Second {
                    end: Instant::now(),
                    cpu: used,
                    steal: now_steal - steal,
                });
                (cpu, steal) = (now_cpu, now_steal);
            }
        });
        Self { seconds }
    }

    /// The seconds sampled so far.
    pub fn seconds(&self) -> Vec<Second> {
        self.seconds.lock().unwrap().clone()
    }
}
