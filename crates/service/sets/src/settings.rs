//! The custody of private sets from the flags the binaries share (`MCPBENCH_TASK_KEYS`,
//! `MCPBENCH_SIGNING_KEY`, `MCPBENCH_SERVICE_NAME`): parsed by `mcpbench-config`, built here.
//! Errors name the setting, never its value.

use crate::Custody;
use mcpbench_attest::NoteSigner;
use mcpbench_config::{CustodyArgs, TaskKeyArgs};
use mcpbench_vault::Keyring;

/// The keyring that seals and opens private tasks, when keys are given.
pub fn keyring_from_args(args: &TaskKeyArgs) -> Result<Option<Keyring>, String> {
    args.task_keys
        .as_deref()
        .map(Keyring::parse)
        .transpose()
        .map_err(|e| e.to_string())
}

impl Custody {
    /// Everything private sets need, validated once at start.
    pub fn from_args(args: &CustodyArgs) -> Result<Custody, String> {
        let signer = match args.signing_key.as_deref() {
            None => None,
            Some(seed) => {
                let seed = mcpbench_vault::decode_key(seed)
                    .ok_or("MCPBENCH_SIGNING_KEY: not 32 bytes (64 hex digits or base64)")?;
                Some(
                    NoteSigner::from_seed(&args.service_name, &seed)
                        .map_err(|e| format!("MCPBENCH_SERVICE_NAME: {e}"))?,
                )
            }
        };
        Ok(Custody {
            keyring: keyring_from_args(&args.keys)?,
            signer,
            service: args.service_name.clone(),
        })
    }
}
