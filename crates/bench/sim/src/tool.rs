//! Tools: a name, a description written for an agent, a JSON Schema for the input, and a typed
//! handler. The schema is generated from the handler's argument type, and the same schema is
//! what validates a call before the handler sees it, so the published contract and the check
//! can never drift apart.

use crate::error::ToolError;
use schemars::{JsonSchema, generate::SchemaSettings};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Whether a tool can change the server's state. Gateways and checkers use it to tell reads
/// from writes; it is also shown to nobody as a hint, agents must read descriptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Read,
    Write,
}

type Handler<S> = Box<dyn Fn(&mut S, Value) -> Result<Value, ToolError> + Send + Sync>;

/// One tool of a server of type `S`.
pub struct Tool<S> {
    pub name: &'static str,
    pub description: &'static str,
    pub effect: Effect,
    pub input_schema: Value,
    validator: jsonschema::Validator,
    handler: Handler<S>,
}

/// What the outside world sees of a tool.
#[derive(Clone, Copy, Debug)]
pub struct ToolSpec<'a> {
    pub name: &'static str,
    pub description: &'static str,
    pub effect: Effect,
    pub input_schema: &'a Value,
}

/// The JSON Schema of `A` as a tool input schema: draft 2020-12, subschemas inlined (agents read
/// these; `$ref` chains help nobody), no `$schema` or `title` noise.
pub fn schema_of<A: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<A>().to_value();
    if let Some(map) = schema.as_object_mut() {
        map.remove("title");
        map.remove("$schema");
    }
    schema
}

impl<S> Tool<S> {
    /// A tool that only reads: its handler is given the state to look at, never to change, so
    /// a read-only tool cannot write by mistake (the checker and the gateway rely on it: no
    /// snapshot after a read, no distractor write).
    pub fn read<A>(
        name: &'static str,
        description: &'static str,
        handler: fn(&S, A) -> Result<Value, ToolError>,
    ) -> Self
    where
        A: DeserializeOwned + JsonSchema + 'static,
        S: 'static,
    {
        Self::with(name, Effect::Read, description, move |s: &mut S, a| {
            handler(s, a)
        })
    }

    /// A tool that may change the state.
    pub fn write<A>(
        name: &'static str,
        description: &'static str,
        handler: fn(&mut S, A) -> Result<Value, ToolError>,
    ) -> Self
    where
        A: DeserializeOwned + JsonSchema + 'static,
        S: 'static,
    {
        Self::with(name, Effect::Write, description, handler)
    }

    /// A tool whose arguments deserialize into `A`.
    fn with<A>(
        name: &'static str,
        effect: Effect,
        description: &'static str,
        handler: impl Fn(&mut S, A) -> Result<Value, ToolError> + Send + Sync + 'static,
    ) -> Self
    where
        A: DeserializeOwned + JsonSchema + 'static,
        S: 'static,
    {
        let input_schema = schema_of::<A>();
        let validator = jsonschema::validator_for(&input_schema)
            .unwrap_or_else(|e| panic!("schema of tool {name} does not compile: {e}"));
        let handler: Handler<S> = Box::new(move |state, args| {
            let typed: A = serde_json::from_value(args)
                .map_err(|e| ToolError::invalid(format!("arguments of {name}: {e}")))?;
            handler(state, typed)
        });
        Self {
            name,
            description,
            effect,
            input_schema,
            validator,
            handler,
        }
    }

    pub fn spec(&self) -> ToolSpec<'_> {
        ToolSpec {
            name: self.name,
            description: self.description,
            effect: self.effect,
            input_schema: &self.input_schema,
        }
    }

    /// Checks `args` against the input schema; the error names every violated place.
    pub fn validate(&self, args: &Value) -> Result<(), ToolError> {
        let problems: Vec<String> = self
            .validator
            .iter_errors(args)
            .take(5)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("{at}: {e}")
                }
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ToolError::invalid(format!(
                "arguments of {} do not match its input schema: {}",
                self.name,
                problems.join("; ")
            )))
        }
    }
}

/// The tools of one server, in the order they are listed to agents.
pub struct ToolBox<S> {
    tools: Vec<Tool<S>>,
}

impl<S> ToolBox<S> {
    pub fn new(tools: Vec<Tool<S>>) -> Self {
        let mut names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        names.sort_unstable();
        assert!(
            names.windows(2).all(|w| w[0] != w[1]),
            "duplicate tool name in {names:?}"
        );
        Self { tools }
    }

    pub fn get(&self, name: &str) -> Option<&Tool<S>> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn specs(&self) -> impl Iterator<Item = ToolSpec<'_>> {
        self.tools.iter().map(Tool::spec)
    }

    /// Validates and runs one call. Unknown tools and schema violations are errors the agent
    /// can read; nothing in the state changes on an error the validation catches.
    pub fn call(&self, state: &mut S, name: &str, args: &Value) -> Result<Value, ToolError> {
        let tool = self
            .get(name)
            .ok_or_else(|| ToolError::not_found(format!("no tool named {name}")))?;
        tool.validate(args)?;
        (tool.handler)(state, args.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    struct By {
        n: i64,
    }

    fn count(s: &i64, _: By) -> Result<Value, ToolError> {
        Ok(json!(*s))
    }

    fn add(s: &mut i64, a: By) -> Result<Value, ToolError> {
        *s += a.n;
        Ok(json!(*s))
    }

    #[test]
    fn a_tool_is_a_read_or_a_write_by_its_handler() {
        // A read's handler takes `&S`: the type system, not a label, keeps it from writing.
        let tools = ToolBox::new(vec![
            Tool::read("count", "How many.", count),
            Tool::write("add", "Add n.", add),
        ]);
        let effects: Vec<Effect> = tools.specs().map(|s| s.effect).collect();
        assert_eq!(effects, [Effect::Read, Effect::Write]);
        let mut state = 1;
        assert_eq!(
            tools.call(&mut state, "add", &json!({ "n": 2 })).unwrap(),
            3
        );
        assert_eq!(
            tools.call(&mut state, "count", &json!({ "n": 9 })).unwrap(),
            3
        );
        assert_eq!(state, 3);
        let err = tools
            .call(&mut state, "add", &json!({ "n": "x" }))
            .unwrap_err();
        assert!(err.to_string().contains("add"), "{err}");
        assert_eq!(state, 3, "a refused call changes nothing");
    }
}
