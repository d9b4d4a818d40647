//! Each server's sample world: the world a family builds on (`{"let": "store", "world":
//! "shop"}`) and a distractor server's world in a run with distractors, as the seed
//! `initial_state.<server>` takes.
//! Servers without a random sampler give their small fixed world; `filesystem` gives an empty
//! tree (a family writes its own files).

use crate::{InitialState, SERVERS, World};
use mcpbench_server_postgres::naming::Naming;
use mcpbench_server_postgres::sample::{Shop as PgShop, ShopTable, Sizes};
use mcpbench_sim::Rng;
use serde_json::Value;

/// The seed of `server`'s sample world, drawn from `rng`.
pub fn sample_seed(server: &str, rng: &mut Rng) -> Result<Value, String> {
    let value = match server {
        "filesystem" => json(mcpbench_server_filesystem::Seed::default()),
        "github" => json(mcpbench_server_github::sample_seed(rng)),
        "postgres" => {
            let mut seed = PgShop::sample_sized(rng, Sizes::BUSY).seed(&[
                ShopTable::Customers,
                ShopTable::Products,
                ShopTable::Orders,
                ShopTable::Inventory,
            ]);
            Naming::draw(rng).apply(&mut seed);
            json(seed)
        }
        "slack" => json(mcpbench_server_slack::world::sample_seed()),
        "calendar" => json(mcpbench_server_calendar::sample_seed()),
        "email" => json(mcpbench_server_email::sample_seed()),
        "tracker" => json(mcpbench_server_tracker::sample_seed(rng)),
        "shop" => json(mcpbench_server_shop::sample_seed(rng)),
        "memory" => json(mcpbench_server_memory::world::sample_seed()),
        "weather" => json(mcpbench_server_weather::sample_world(rng)),
        other => {
            return Err(format!(
                "no sample world for {other:?}; the servers are {SERVERS:?}"
            ));
        }
    };
    Ok(value)
}

/// What `tool` (qualified) answers on a world of `server` built from `seed` alone.
pub fn call_on_seed(
    server: &str,
    seed: Value,
    tool: &str,
    arguments: &Value,
) -> Result<Value, String> {
    let mut state = serde_json::Map::new();
    state.insert(server.to_string(), seed);
    let state: InitialState = serde_path_to_error::deserialize(Value::Object(state))
        .map_err(|e| format!("on: not a seed of {server}: {}: {}", e.path(), e.inner()))?;
    let mut world = World::build(&state, &[server.to_string()])
        .map_err(|e| format!("on: the world does not build: {e}"))?;
    world
        .call(tool, arguments)
        .map_err(|e| format!("{tool} answered an error: {e}"))
}

fn json<T: serde::Serialize>(seed: T) -> Value {
    serde_json::to_value(seed).expect("seeds serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_server_has_a_sample_world_its_seed_accepts() {
        for server in SERVERS {
            let seed = sample_seed(server, &mut Rng::new(7, 0)).unwrap();
            let state: InitialState =
                serde_json::from_value(serde_json::json!({ *server: seed })).unwrap();
            World::build(&state, &[server.to_string()]).unwrap();
        }
        assert!(sample_seed("nope", &mut Rng::new(0, 0)).is_err());
    }
}
