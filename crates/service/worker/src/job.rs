//! One job: prepare, run while heart-beating, store the trace, record the run.

use crate::sandboxed::{Agent, DockerAgent};
use crate::tasks::Prepared;
use crate::{Worker, finish, stopped};
use mcpbench_core::disclosure::Recorded;
use mcpbench_db::queue::{self, Beat, Claim, Completion, RunRecord};
use mcpbench_db::submissions::Finished;
use mcpbench_db::{AgentKind, submissions};
use mcpbench_gateway::trace;
use mcpbench_runner::{AgentTarget, Reason, RunResult};
use mcpbench_scoring::RunAnalysis;
use mcpbench_sets::SetError;
use mcpbench_storage::logs_key;
use mcpbench_tasks::Level;
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::watch;
use tracing::Instrument;

/// Why a job could not start; always our side or the submission's kind, never the agent.
type Refused = String;

impl Worker {
    pub(crate) async fn execute(&self, claim: Claim, shutdown: watch::Receiver<bool>) {
        let span = tracing::info_span!(
            "job",
            submission = %claim.submission_id,
            task = %claim.task_id,
            trial = claim.trial,
            attempt = claim.attempt,
        );
        self.execute_in_span(claim, shutdown).instrument(span).await;
    }

    async fn execute_in_span(&self, claim: Claim, shutdown: watch::Receiver<bool>) {
        let started = Instant::now();
        let (prepared, agent, set, target_public) = match self.prepare(&claim).await {
            Ok(prepared) => prepared,
            Err(reason) => return self.give_up(&claim, &reason).await,
        };
        self.stage("prepare", started);
        let image_saw_task = matches!(&agent, Agent::Docker(image) if image.withhold_details);
        let mut conditions = self.run_conditions(&agent);
        // On the standard track our own agent counted the model's tokens.
        let usage_measured = matches!(&agent, Agent::Model(_));
        let (result, logs) = match self
            .run_agent(&claim, &prepared, agent, &set, shutdown)
            .await
        {
            None => return,
            Some(Err(reason)) => return self.give_up(&claim, &reason).await,
            Some(Ok(ran)) => ran,
        };
        self.metrics
            .observe_run(result.reason.as_str(), started.elapsed().as_secs_f64());
        if result.reason == Reason::HarnessError {
            return self.harness_error(&claim, result, target_public).await;
        }
        let Some((analysis, mut result)) = self.analyse(&prepared, result).await else {
            // The runtime is shutting down: the lease lapses and the job runs again.
            return;
        };
        let key = match self
            .store_run(&claim, &mut result, logs, target_public)
            .await
        {
            Ok(key) => key,
            Err(why) => return self.give_up(&claim, why).await,
        };
        conditions.mcp_spoken = crate::conditions::spoken(&result.trace);
        let mut record = record(&result, key);
        record.analysis = analysis;
        record.usage_measured = usage_measured;
        record.conditions = Some(conditions);
        // What quotes a private task stays in the sealed trace until the set retires.
        Recorded {
            set_public: target_public,
            image_saw_task,
            reason: result.reason,
            detail: &mut record.detail,
            analysis: &mut record.analysis,
        }
        .seal();
        let recording = Instant::now();
        let completion = queue::complete(&self.pool, &claim, &record).await;
        self.stage("record", recording);
        match completion {
            Ok(Completion::Recorded { finished }) => {
                tracing::debug!(reason = result.reason.as_str(), "run recorded");
                if finished {
                    self.finish_logged(&claim).await;
                }
                if target_public || self.config.judge_private_sets {
                    self.judge_later(&claim, prepared.task.clone(), result.trace, target_public);
                }
            }
            Ok(Completion::Stale) => {
                tracing::warn!("the lease was lost before the run was recorded; discarded")
            }
            Err(e) => tracing::warn!(error = %e, "recording the run failed; the lease will lapse"),
        }
    }

    /// Runs the claim's agent on its task while keeping the lease: the result and, for an
    /// image, the container's output; `None` when the job must be left alone
    /// ([`Self::run_leased`]).
    async fn run_agent(
        &self,
        claim: &Claim,
        prepared: &Prepared,
        agent: Agent,
        set: &str,
        shutdown: watch::Receiver<bool>,
    ) -> Option<Result<(RunResult, Option<Vec<u8>>), Refused>> {
        let task = prepared.task.clone();
        match agent {
            Agent::Endpoint(target) => {
                let run = self.runner.run_in_set(task, &target, set);
                let result = self.run_leased(claim, run, shutdown).await?;
                Some(Ok((result, None)))
            }
            Agent::Model(model) => {
                let run = self.run_model(task, set, model);
                let result = self.run_leased(claim, run, shutdown).await?;
                Some(result.map(|result| (result, None)))
            }
            Agent::Docker(image) => {
                let run = self.run_in_sandbox(claim, task, set, image);
                let result = self.run_leased(claim, run, shutdown).await?;
                Some(result.map(|(result, logs)| (result, Some(logs))))
            }
            Agent::Baseline(baseline) => {
                let run = self.run_baseline(task, set, baseline);
                let result = self.run_leased(claim, run, shutdown).await?;
                Some(result.map(|result| (result, None)))
            }
        }
    }

    /// A run our harness could not carry out: the job goes back (retried until its last
    /// attempt) with a fixed sentence for the submission.
    async fn harness_error(&self, claim: &Claim, result: RunResult, public: bool) {
        // The detail can name the task's content: it goes to the log for the operators on
        // public sets only (a private task never reaches a log line).
        if public {
            let detail = result.detail.unwrap_or_default();
            tracing::warn!(%detail, "harness error");
        } else {
            tracing::warn!("harness error on a private set (detail withheld)");
        }
        self.give_up(
            claim,
            "our harness could not run the task (the operators have the details)",
        )
        .await
    }

    /// The run's analysis, judged on the state the run left (the rescore replays the trace to
    /// the same analysis), first: that state holds the run's own copies of its servers (and
    /// postgres's engine memory, which every run shares), released here rather than after the
    /// store. CPU kept off the threads that answer other runs' agents. `None` when the
    /// runtime is shutting down.
    async fn analyse(
        &self,
        prepared: &Arc<Prepared>,
        result: RunResult,
    ) -> Option<(Option<RunAnalysis>, RunResult)> {
        let analysing = Instant::now();
        let facts = prepared.clone();
        let done = tokio::task::spawn_blocking(move || {
            let mut result = result;
            let analysis = facts
                .facts()
                .and_then(|f| mcpbench_runner::analysis_with(&facts.task, f, &result));
            // Released even when the task's facts could not be worked out.
            result.final_state = None;
            (analysis, result)
        })
        .await;
        let done = match done {
            Ok(done) => done,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => return None,
        };
        self.stage("analyse", analysing);
        Some(done)
    }

    /// Stores the run's trace, cut to what the store takes, and an image's output beside it,
    /// both sealed on a private set; gives the trace's key, or why it could not be stored.
    async fn store_run(
        &self,
        claim: &Claim,
        result: &mut RunResult,
        logs: Option<Vec<u8>>,
        public: bool,
    ) -> Result<String, &'static str> {
        let storing = Instant::now();
        // The epoch is in the key: a worker that lost its lease can never overwrite the trace
        // of the run that was recorded.
        let key = format!(
            "runs/{}/{}-{}-e{}.jsonl",
            claim.submission_id, claim.task_id, claim.trial, claim.epoch
        );
        // Kept within what the store takes (with room for sealing), so a run that read much
        // is stored, cut, at the first attempt rather than failing the store on our side.
        let limit = (mcpbench_storage::MAX_TRACE_BYTES - (1 << 20)) as usize;
        let cut = trace::fit(&mut result.trace, limit);
        if cut > 0 {
            tracing::warn!(
                cut,
                "a trace over the store's limit was kept with its largest results cut"
            );
        }
        let mut bytes = trace::to_jsonl(&result.trace).into_bytes();
        let mut logs = logs;
        // A private task's run is sealed at rest like the task (tool results come from its
        // state; an image's output can echo it); the API opens it once the set is public.
        if !public && let Some(keyring) = self.config.keyring.as_deref() {
            bytes = keyring.seal_file(&key, &bytes);
            logs = logs.map(|l| keyring.seal_file(&logs_key(&key), &l));
        }
        // The container's output goes beside its trace, under the same access rules (never
        // shown while the set is live: it can echo the task).
        if let Some(logs) = logs
            && let Err(e) = self.store.put(&logs_key(&key), logs).await
        {
            tracing::warn!(error = %e, "storing the container's logs failed");
            return Err("the run's logs could not be stored on our side");
        }
        if let Err(e) = self.store.put(&key, bytes).await {
            tracing::warn!(error = %e, "storing the trace failed");
            return Err("the run's trace could not be stored on our side");
        }
        self.stage("store", storing);
        Ok(key)
    }

    /// The task, the agent, the set name of a claim, and whether the set is public.
    async fn prepare(
        &self,
        claim: &Claim,
    ) -> Result<(Arc<Prepared>, Agent, String, bool), Refused> {
        let target = submissions::target(&self.pool, claim.submission_id)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "reading the submission failed");
                "the submission could not be read on our side".to_string()
            })?;
        let keyring = self.config.keyring.as_deref();
        let json = mcpbench_sets::task_for_run(&self.pool, keyring, &target.set_id, &claim.task_id)
            .await
            .map_err(|e| match e {
                SetError::NotFound(_) => "the task is no longer in its set".to_string(),
                SetError::Unconfigured(why) => {
                    tracing::error!("{why}");
                    "a worker without the keys of private sets took the task; the operators \
                     have been told"
                        .to_string()
                }
                e => {
                    // The error names keys and states, never the task's content.
                    tracing::warn!(error = %e, "reading the task failed");
                    "the task could not be read on our side".to_string()
                }
            })?;
        // The API checked the level when the submission was made.
        let level =
            match target.distractors.as_deref() {
                Some(level) => Some(level.parse::<Level>().map_err(|_| {
                    "the submission's distractor level is not one we know".to_string()
                })?),
                None => None,
            };
        // A task in the database passed `tasks check` when its set was loaded; failing here
        // means the stored row is damaged, which is ours to fix. The text stays generic so a
        // private task's content never reaches the submission's error.
        let prepared = self
            .tasks
            .prepare(&target.set_id, &claim.task_id, level, json)?;
        let (set_id, set_public) = (target.set_id.clone(), target.set_public);
        let calls_model = target.model_base_url.is_some();
        let sees_goals = target.kind.sees_goals(calls_model);
        let agent = match target.kind {
            AgentKind::Endpoint => Agent::Endpoint(AgentTarget {
                label: target.vendor,
                url: target
                    .endpoint_url
                    .ok_or("the submission has no endpoint URL")?,
                signing_secret: target.signing_secret,
                sandbox_gateway: None,
            }),
            AgentKind::Docker => Agent::Docker(DockerAgent {
                model: if calls_model {
                    Some(self.open_model(&target)?)
                } else {
                    None
                },
                image: target.image.ok_or("the submission has no image")?,
                archive: target.image_archive,
                label: target.vendor,
                signing_secret: target.signing_secret,
                withhold_details: !target.set_public,
                baseline: target.baseline.clone(),
            }),
            AgentKind::Model => Agent::Model(self.model_agent(target)?),
            AgentKind::Baseline => Agent::Baseline(self.baseline_agent(target)?),
        };
        if sees_goals && !set_public {
            // The goal is about to leave our hands: recorded first, or not sent at all.
            mcpbench_db::exposures::record(
                &self.pool,
                &set_id,
                &claim.task_id,
                claim.submission_id,
            )
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "recording an exposure failed");
                "the run could not be recorded on our side".to_string()
            })?;
        }
        Ok((prepared, agent, set_id, set_public))
    }

    /// Runs `run` while keeping the lease; `None` when the job must be left alone
    /// (cancelled, lease lost, or handed back at shutdown): `run` is dropped then, which
    /// closes its gateway run and removes its containers.
    async fn run_leased<T>(
        &self,
        claim: &Claim,
        run: impl Future<Output = T>,
        mut shutdown: watch::Receiver<bool>,
    ) -> Option<T> {
        tokio::pin!(run);
        let mut beat = tokio::time::interval(self.config.lease / 3);
        beat.tick().await;
        let mut drain: Option<tokio::time::Instant> = None;
        loop {
            tokio::select! {
                result = &mut run => return Some(result),
                _ = beat.tick() => match queue::heartbeat(&self.pool, claim, self.config.lease).await {
                    Ok(Beat::Alive) => {}
                    Ok(Beat::Cancelled) => {
                        tracing::info!("the submission was cancelled; stopping");
                        // Ends the job now (as `cancelled`) rather than when its lease lapses.
                        if let Err(e) = queue::release(&self.pool, claim).await {
                            tracing::warn!(error = %e, "ending the cancelled job failed; its lease will lapse");
                        }
                        return None;
                    }
                    Ok(Beat::Lost) => {
                        tracing::warn!("the lease was lost; stopping without writing");
                        return None;
                    }
                    Err(e) => tracing::warn!(error = %e, "heartbeat failed; retrying"),
                },
                _ = stopped(&mut shutdown), if drain.is_none() => {
                    drain = Some(tokio::time::Instant::now() + self.config.drain);
                }
                _ = tokio::time::sleep_until(drain.unwrap_or_else(tokio::time::Instant::now)), if drain.is_some() => {
                    tracing::info!("shutting down; giving the job back");
                    if let Err(e) = queue::release(&self.pool, claim).await {
                        tracing::warn!(error = %e, "giving the job back failed; its lease will lapse");
                    }
                    return None;
                }
            }
        }
    }

    /// One stage of a job outside its run, begun at `since`, for the metrics.
    pub(crate) fn stage(&self, name: &str, since: Instant) {
        self.metrics
            .observe_stage(name, since.elapsed().as_secs_f64());
    }

    /// Hands a job back after a failure on our side (retried until its last attempt).
    async fn give_up(&self, claim: &Claim, reason: &str) {
        tracing::warn!(reason, "the job failed on our side");
        match queue::fail(&self.pool, claim, reason).await {
            Ok(true) => self.finish_logged(claim).await,
            Ok(false) => self.wake.notify_waiters(),
            Err(e) => {
                tracing::warn!(error = %e, "recording the failure failed; the lease will lapse")
            }
        }
    }

    /// Finishes the claim's submission when nothing of it is left, with one line for it: the
    /// line an operator reads (the runs' own lines are at `debug`).
    async fn finish_logged(&self, claim: &Claim) {
        let id = claim.submission_id;
        match finish(&self.pool, id).await {
            Ok(Finished::Completed) => match submissions::find(&self.pool, id).await {
                Ok(Some(s)) => {
                    // A completed submission has its scores.
                    let o = s.scores().map(|scores| &scores.overall);
                    tracing::info!(
                        parent: None,
                        submission = %id,
                        name = %s.name,
                        model = %s.model,
                        set = %s.set_id,
                        passed = o.map_or(0, |o| o.passed),
                        runs = o.map_or(0, |o| o.tasks),
                        success_rate = o.and_then(|o| o.success_rate).unwrap_or(0.0),
                        "submission finished"
                    );
                }
                _ => tracing::info!(parent: None, submission = %id, "submission finished"),
            },
            Ok(Finished::Failed(why)) => {
                tracing::warn!(parent: None, submission = %id, %why, "submission failed")
            }
            Ok(Finished::NotNow) => {}
            Err(e) => tracing::warn!(error = %e, "finishing failed; the sweep will retry"),
        }
    }
}

/// PostgreSQL text cannot hold NUL, and an agent's reply (quoted in `detail`) may.
fn storable(text: &str) -> String {
    text.replace('\0', "\u{FFFD}")
}

fn record(r: &RunResult, trace_key: String) -> RunRecord {
    RunRecord {
        passed: r.passed,
        reason: r.reason,
        detail: r.detail.as_deref().map(storable),
        counts: r.counts,
        duration_ms: r.duration.as_millis() as i64,
        trace_key: Some(trace_key),
        analysis: None,
        usage: r.usage,
        usage_measured: false,
        conditions: None,
        attack_met: r.attack_met,
    }
}
