//! `MCPBENCH_PRICES`: the deployment's price table, by which the standard track's measured
//! token counts become a cost (docs/metrics.md, "Cost and time").

use std::collections::BTreeMap;

/// What one model costs, in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelPrice {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

/// Models by the name the submissions give them (`model_id`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PriceTable(pub BTreeMap<String, ModelPrice>);

/// The most models a table may name.
const MAX_MODELS: usize = 1_000;

impl PriceTable {
    pub fn get(&self, model: &str) -> Option<ModelPrice> {
        self.0.get(model).copied()
    }
}

/// `MODEL=INPUT:OUTPUT` entries separated by commas, each price in US dollars per million
/// tokens from 0 to 10,000: `gpt-4.1=2:8,llama-3.3-70b=0.6:0.6`. Empty is no table.
pub fn price_table(text: &str) -> Result<PriceTable, String> {
    const FORM: &str = "MCPBENCH_PRICES must be MODEL=INPUT:OUTPUT entries separated by commas, \
                        in US dollars per million tokens from 0 to 10000 \
                        (e.g. gpt-4.1=2:8,llama-3.3-70b=0.6:0.6)";
    let mut table = BTreeMap::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (model, prices) = entry.rsplit_once('=').ok_or(FORM)?;
        let (input, output) = prices.split_once(':').ok_or(FORM)?;
        let price = |p: &str| {
            p.trim()
                .parse::<f64>()
                .ok()
                .filter(|p| (0.0..=10_000.0).contains(p))
                .ok_or(FORM)
        };
        let model = model.trim();
        if model.is_empty() || model.len() > 200 {
            return Err(FORM.into());
        }
        let price = ModelPrice {
            input_per_mtok: price(input)?,
            output_per_mtok: price(output)?,
        };
        if table.insert(model.to_string(), price).is_some() {
            return Err(format!("MCPBENCH_PRICES names {model:?} twice"));
        }
        if table.len() > MAX_MODELS {
            return Err(format!(
                "MCPBENCH_PRICES names more than {MAX_MODELS} models"
            ));
        }
    }
    Ok(PriceTable(table))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_or_is_refused_with_its_form() {
        let table = price_table(" gpt-4.1=2:8 , org/llama=0.6:0.6,").unwrap();
        assert_eq!(
            table.get("gpt-4.1"),
            Some(ModelPrice {
                input_per_mtok: 2.0,
                output_per_mtok: 8.0
            })
        );
        assert_eq!(table.get("org/llama").unwrap().output_per_mtok, 0.6);
        assert_eq!(table.get("other"), None);
        assert_eq!(price_table("").unwrap(), PriceTable::default());
        for bad in [
            "gpt",
            "gpt=1",
            "gpt=a:1",
            "gpt=-1:1",
            "gpt=1:1e9",
            "=1:1",
            "m=1:1,m=2:2",
        ] {
            let err = price_table(bad).expect_err(bad);
            assert!(err.contains("MCPBENCH_PRICES"), "{bad}: {err}");
        }
    }
}
