//! Which baselines the service submits on every live set: `MCPBENCH_BASELINES`, our reference
//! agents, and `MCPBENCH_BASELINE_MODELS` with their keys, models our own `llm` agent drives on
//! the standard track.

use clap::Args;

/// The reference agents a deployment may run as baselines, in the order they are queued.
pub const BASELINE_AGENTS: [&str; 5] = ["oracle", "null", "random", "heuristic", "script"];

/// The most models one deployment runs as baselines.
const MAX_MODELS: usize = 20;

/// The baselines a worker queues on every live set.
#[derive(Args, Clone, Debug, Default)]
pub struct BaselineArgs {
    /// The reference agents the service submits as baselines on every live set, run inside
    /// the worker: `all` (oracle, null, random, heuristic, script), `off`, or some of them
    /// separated by commas.
    #[arg(long, env = "MCPBENCH_BASELINES", default_value = "all", value_parser = baselines)]
    pub baselines: Baselines,
    /// Models run as baselines on the standard track on every live set, driven by our own
    /// `llm` agent: `MODEL@BASE_URL` entries separated by commas, each the model's name at an
    /// OpenAI-compatible API (`gpt-4.1@https://api.openai.com/v1`). Off when empty.
    #[arg(long, env = "MCPBENCH_BASELINE_MODELS", default_value = "", value_parser = baseline_models)]
    pub baseline_models: BaselineModels,
    /// Their keys, `MODEL=KEY` entries separated by commas; sealed with the task keyring
    /// (MCPBENCH_TASK_KEYS) into each baseline's submission, never printed.
    #[arg(long, env = "MCPBENCH_BASELINE_MODEL_KEYS", hide_env_values = true, default_value = "",
          value_parser = model_keys)]
    pub baseline_model_keys: ModelKeys,
    /// An image of `mcpbench agent serve` (deploy/Dockerfile's `baseline-agent`) on every
    /// Docker worker's engine: the reference agents but the oracle then run in the sandbox on
    /// private sets, as a vendor's image does. Unset: every baseline runs inside the worker.
    #[arg(long, env = "MCPBENCH_BASELINE_IMAGE")]
    pub baseline_image: Option<String>,
}

/// The reference agents run as baselines; empty: none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baselines(pub Vec<String>);

/// A model run as a baseline: its name at the API, the API's base URL, and its key if any.
#[derive(Clone, PartialEq, Eq)]
pub struct BaselineModel {
    pub model: String,
    pub base_url: String,
    pub key: Option<String>,
}

/// Never prints the key.
impl std::fmt::Debug for BaselineModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BaselineModel")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("key", &self.key.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BaselineModels(pub Vec<BaselineModel>);

/// Keys by model name; its `Debug` names the models only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ModelKeys(pub Vec<(String, String)>);

impl std::fmt::Debug for ModelKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(model, _)| model))
            .finish()
    }
}

impl BaselineArgs {
    /// The models to run, each with its key; refused when a key names a model not listed.
    pub fn models(&self) -> Result<Vec<BaselineModel>, String> {
        for (model, _) in &self.baseline_model_keys.0 {
            if !self.baseline_models.0.iter().any(|m| &m.model == model) {
                return Err(format!(
                    "MCPBENCH_BASELINE_MODEL_KEYS has a key for {model:?}, which \
                     MCPBENCH_BASELINE_MODELS does not list"
                ));
            }
        }
        Ok(self
            .baseline_models
            .0
            .iter()
            .map(|m| BaselineModel {
                key: (self.baseline_model_keys.0.iter())
                    .find(|(model, _)| *model == m.model)
                    .map(|(_, key)| key.clone()),
                ..m.clone()
            })
            .collect())
    }
}

/// Agents of [`BASELINE_AGENTS`] separated by commas (`all` for every one; `off` or empty for
/// none), each named once.
pub fn baselines(text: &str) -> Result<Baselines, String> {
    let text = text.trim();
    match text {
        "" | "off" => return Ok(Baselines::default()),
        "all" => return Ok(Baselines(BASELINE_AGENTS.map(String::from).to_vec())),
        _ => {}
    }
    let mut agents = Vec::new();
    for name in text.split(',').map(str::trim) {
        if !BASELINE_AGENTS.contains(&name) {
            return Err(format!(
                "MCPBENCH_BASELINES names {name:?}; it takes all, off, or some of {} separated \
                 by commas",
                BASELINE_AGENTS.join(", ")
            ));
        }
        if agents.iter().any(|a| a == name) {
            return Err(format!("MCPBENCH_BASELINES names {name:?} twice"));
        }
        agents.push(name.to_string());
    }
    Ok(Baselines(agents))
}

/// `MODEL@BASE_URL` entries separated by commas, each model once, the URL `http(s)://`.
pub fn baseline_models(text: &str) -> Result<BaselineModels, String> {
    const FORM: &str = "MCPBENCH_BASELINE_MODELS must be MODEL@BASE_URL entries separated by \
                        commas (e.g. gpt-4.1@https://api.openai.com/v1)";
    let mut models: Vec<BaselineModel> = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (model, base_url) = entry.split_once('@').ok_or(FORM)?;
        let (model, base_url) = (model.trim(), base_url.trim());
        let url_ok = (base_url.starts_with("https://") || base_url.starts_with("http://"))
            && base_url.len() <= 2048
            && !base_url.contains(char::is_whitespace);
        if model.is_empty() || model.len() > 200 || !url_ok {
            return Err(FORM.into());
        }
        if models.iter().any(|m| m.model == model) {
            return Err(format!("MCPBENCH_BASELINE_MODELS names {model:?} twice"));
        }
        models.push(BaselineModel {
            model: model.into(),
            base_url: base_url.into(),
            key: None,
        });
        if models.len() > MAX_MODELS {
            return Err(format!(
                "MCPBENCH_BASELINE_MODELS names more than {MAX_MODELS} models"
            ));
        }
    }
    Ok(BaselineModels(models))
}

/// `MODEL=KEY` entries separated by commas. A refusal never quotes a key.
pub fn model_keys(text: &str) -> Result<ModelKeys, String> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((model, key)) = entry.split_once('=') else {
            return Err(
                "MCPBENCH_BASELINE_MODEL_KEYS must be MODEL=KEY entries separated \
                        by commas"
                    .into(),
            );
        };
        let (model, key) = (model.trim(), key.trim());
        if model.is_empty() || key.is_empty() || keys.iter().any(|(m, _)| m == model) {
            return Err(format!(
                "MCPBENCH_BASELINE_MODEL_KEYS: the entry for {model:?} is empty or repeated"
            ));
        }
        keys.push((model.into(), key.into()));
    }
    Ok(ModelKeys(keys))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baselines_read_as_names_all_or_off() {
        assert_eq!(baselines("all").unwrap().0, BASELINE_AGENTS);
        assert_eq!(baselines(" off ").unwrap(), Baselines::default());
        assert_eq!(baselines("").unwrap(), Baselines::default());
        assert_eq!(baselines("null, oracle").unwrap().0, ["null", "oracle"]);
        for bad in ["llm", "oracle,oracle", "oracle,", "Oracle"] {
            let err = baselines(bad).expect_err(bad);
            assert!(err.contains("MCPBENCH_BASELINES"), "{bad}: {err}");
        }
    }

    #[test]
    fn model_baselines_pair_with_their_keys_which_no_refusal_or_debug_prints() {
        let args = BaselineArgs {
            baseline_image: None,
            baselines: Baselines::default(),
            baseline_models: baseline_models(
                "gpt-4.1@https://api.example/v1, llama@http://10.0.0.5:8000/v1",
            )
            .unwrap(),
            baseline_model_keys: model_keys("gpt-4.1=sk-secret==").unwrap(),
        };
        let models = args.models().unwrap();
        assert_eq!(models[0].key.as_deref(), Some("sk-secret=="));
        assert_eq!(models[1].key, None);
        assert!(!format!("{args:?}").contains("sk-secret"));
        assert!(!format!("{models:?}").contains("sk-secret"));
        for bad in [
            "gpt",
            "gpt@ftp://x",
            "@https://x",
            "a@https://x,a@https://y",
        ] {
            let err = baseline_models(bad).expect_err(bad);
            assert!(err.contains("MCPBENCH_BASELINE_MODELS"), "{bad}: {err}");
        }
        let stray = BaselineArgs {
            baseline_model_keys: model_keys("other=sk-secret").unwrap(),
            ..args
        };
        let err = stray.models().unwrap_err();
        assert!(
            err.contains("\"other\"") && !err.contains("sk-secret"),
            "{err}"
        );
        let err = model_keys("m=sk-secret,m=sk-secret").unwrap_err();
        assert!(!err.contains("sk-secret"), "{err}");
    }
}
