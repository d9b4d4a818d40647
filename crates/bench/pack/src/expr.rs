//! Expressions: jq programs (the jaq implementation) over the values a family has drawn.
//!
//! Each expression is compiled once, when its family loads, against the names bound where it
//! stands (`$prices`, `$seed`, ...), so a misspelt name is a load error that names the field.
//! It runs with `null` as its input and those names as its variables, and must give exactly one
//! value. The prelude adds a few helpers the families share (`and_list`, `money`, ...) and
//! shadows every filter that reads the world outside the family (`now`, `env`, `input`,
//! `debug`, ...): a family is a pure function of its random stream.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
use jaq_json::Val;
use serde_json::Value;
use std::sync::Arc;

type Filter = jaq_core::Filter<data::JustLut<Val>>;

/// Our prelude: helpers every family may call, and the ambient filters made errors.
const PRELUDE: &str = r#"
def and_list: if length == 0 then "" elif length == 1 then .[0]
  else (.[:-1] | join(", ")) + " and " + .[-1] end;
def or_list: if length == 0 then "" elif length == 1 then .[0]
  else (.[:-1] | join(", ")) + " or " + .[-1] end;
def pad($n): tostring | if length < $n then ("0" * ($n - length)) + . else . end;
def money: (if . < 0 then "-" else "" end) as $sign | (if . < 0 then -. else . end) as $c
  | $sign + (($c / 100) | floor | tostring) + "." + (($c % 100) | pad(2));
def month_name: ["January","February","March","April","May","June","July","August",
  "September","October","November","December"][. - 1];
def spoken_date: (.[5:7] | tonumber | month_name) + " " + (.[8:10] | tonumber | tostring);
def capitalize: if length == 0 then . else (.[:1] | ascii_upcase) + .[1:] end;
def count(f): [f] | length;
def env: error("env is not available to a family");
def now: error("now is not available to a family: draw dates from the family's own values");
def localtime: error("localtime is not available to a family");
def strflocaltime($f): error("strflocaltime is not available to a family");
def input: error("input is not available to a family");
def inputs: error("inputs is not available to a family");
def halt: error("halt is not available to a family");
def halt_error: error("halt_error is not available to a family");
def halt_error($code): error("halt_error is not available to a family");
def debug: error("debug is not available to a family");
def debug($msg): error("debug is not available to a family");
def stderr: error("stderr is not available to a family");
def input_filename: error("input_filename is not available to a family");
"#;

/// A compiled expression: its source (for errors) and the number of variables it reads, the
/// first that many of the scope it was compiled in.
#[derive(Clone)]
pub struct Expr {
    source: Arc<str>,
    filter: Arc<Filter>,
    arity: usize,
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Expr({:?})", self.source)
    }
}

/// Why an expression did not compile or run.
#[derive(Debug, thiserror::Error)]
pub enum ExprError {
    #[error("does not parse as jq: {0}")]
    Parse(String),
    #[error("does not compile: {0}")]
    Compile(String),
    #[error("failed: {0}")]
    Run(String),
    #[error("gave no value")]
    Empty,
    #[error("gave more than one value")]
    Many,
    #[error("gave {0}, which is not JSON")]
    NotJson(String),
}

/// Compiles `source` against the variables `scope` (names without `$`), with the pack's own
/// definitions `lib` (jq `def`s) after the prelude.
pub fn compile(source: &str, scope: &[String], lib: &str) -> Result<Expr, ExprError> {
    // The family's code follows the prelude and the library, so their definitions are in scope
    // and a family's own may shadow them. Line numbers in errors count from the family's code.
    let code = format!("{PRELUDE}\n{lib}\n{source}");
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs())
        .chain(natives());
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let modules = loader
        .load(
            &arena,
            File {
                code: code.as_str(),
                path: (),
            },
        )
        .map_err(|errors| ExprError::Parse(describe_load(&errors, &code)))?;
    let names: Vec<String> = scope.iter().map(|n| format!("${n}")).collect();
    let filter = Compiler::default()
        .with_funs(funs)
        .with_global_vars(names.iter().map(String::as_str))
        .compile(modules)
        .map_err(|errors| {
            let undefined: Vec<String> = errors
                .iter()
                .flat_map(|(_, errs)| errs.iter().map(|(name, _)| name.to_string()))
                .collect();
            ExprError::Compile(format!("undefined: {}", undefined.join(", ")))
        })?;
    Ok(Expr {
        source: source.into(),
        filter: Arc::new(filter),
        arity: scope.len(),
    })
}

/// Functions of ours written in Rust, for what jq cannot compute (it has no 64-bit wrapping
/// arithmetic): `"ada.park" | slack_id("U")` is the id the Slack server gives that key.
fn natives() -> impl Iterator<Item = jaq_core::native::Fun<data::JustLut<Val>>> {
    use jaq_core::native::{run, unary, v};
    [run::<data::JustLut<Val>>(("slack_id", v(1), |cv| {
        unary(cv, |key, prefix| {
            let (Ok(key), Ok(prefix)) = (text(&key), text(&prefix)) else {
                return Err(jaq_core::Error::str(
                    "slack_id takes a string key and a one-letter prefix",
                ));
            };
            match prefix.chars().collect::<Vec<_>>().as_slice() {
                [c] => Ok(Val::from(mcpbench_server_slack::slack_id(*c, &key))),
                _ => Err(jaq_core::Error::str("slack_id takes a one-letter prefix")),
            }
        })
    }))]
    .into_iter()
}

/// The first parse error, as a short sentence.
fn describe_load<P>(errors: &jaq_core::load::Errors<&str, P>, code: &str) -> String {
    let mut parts = Vec::new();
    for (_, e) in errors.iter() {
        match e {
            jaq_core::load::Error::Io(io) => {
                parts.extend(io.iter().map(|(path, msg)| format!("{path}: {msg}")))
            }
            jaq_core::load::Error::Lex(lex) => parts.extend(lex.iter().map(|(expect, at)| {
                format!("expected {} at {:?}", expect.as_str(), snippet(code, at))
            })),
            jaq_core::load::Error::Parse(parse) => {
                parts.extend(parse.iter().map(|(expect, at)| {
                    format!("expected {} at {:?}", expect.as_str(), snippet(code, at))
                }))
            }
        }
    }
    if parts.is_empty() {
        "a syntax error".into()
    } else {
        parts.join("; ")
    }
}

fn snippet(_code: &str, at: &str) -> String {
    at.chars().take(24).collect()
}

impl Expr {
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Runs the expression with `scope`'s values (at least as many as it was compiled with).
    pub fn eval(&self, scope: &[Val]) -> Result<Val, ExprError> {
        debug_assert!(
            scope.len() >= self.arity,
            "a scope shorter than at compile time"
        );
        let vars = Vars::new(scope[..self.arity].iter().cloned());
        let ctx = Ctx::<data::JustLut<Val>>::new(&self.filter.lut, vars);
        let mut out = self.filter.id.run((ctx, Val::Null)).map(unwrap_valr);
        let first = match out.next() {
            None => return Err(ExprError::Empty),
            Some(Err(e)) => return Err(ExprError::Run(e.to_string())),
            Some(Ok(v)) => v,
        };
        match out.next() {
            None => Ok(first),
            Some(Err(e)) => Err(ExprError::Run(e.to_string())),
            Some(Ok(_)) => Err(ExprError::Many),
        }
    }

    /// Runs the expression and gives its value as JSON.
    pub fn eval_json(&self, scope: &[Val]) -> Result<Value, ExprError> {
        to_json(&self.eval(scope)?)
    }
}

/// A JSON value as jq sees it.
pub fn from_json(value: &Value) -> Val {
    match value {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(*b),
        Value::Number(n) => match n.as_i64().and_then(|i| isize::try_from(i).ok()) {
            Some(i) => Val::from(i),
            None => Val::from(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Val::from(s.clone()),
        Value::Array(items) => items.iter().map(from_json).collect(),
        Value::Object(map) => Val::obj(
            map.iter()
                .map(|(k, v)| (Val::from(k.clone()), from_json(v)))
                .collect(),
        ),
    }
}

/// The largest integer a float stands for exactly, and that canonical JSON keeps.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// A jq value as JSON. jq has one number type, so a whole float (`4 / 2` gives `2.0`) becomes
/// an integer; strings must be text and object keys strings.
pub fn to_json(value: &Val) -> Result<Value, ExprError> {
    use jaq_std::ValT as _;
    Ok(match value {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Num(_) => {
            if let Some(i) = value.as_isize() {
                Value::from(i as i64)
            } else {
                let f = value
                    .as_f64()
                    .filter(|f| f.is_finite())
                    .ok_or_else(|| ExprError::NotJson(value.to_string()))?;
                if f.fract() == 0.0 && f.abs() <= EXACT {
                    Value::from(f as i64)
                } else {
                    serde_json::Number::from_f64(f)
                        .map(Value::Number)
                        .ok_or_else(|| ExprError::NotJson(value.to_string()))?
                }
            }
        }
        Val::TStr(_) => Value::String(text(value)?),
        Val::BStr(_) => return Err(ExprError::NotJson("a byte string".into())),
        Val::Arr(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Val::Obj(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map.iter() {
                let Val::TStr(_) = k else {
                    return Err(ExprError::NotJson(format!("an object key {k}")));
                };
                out.insert(text(k)?, to_json(v)?);
            }
            Value::Object(out)
        }
    })
}

/// The text of a jq string.
fn text(value: &Val) -> Result<String, ExprError> {
    use jaq_std::ValT as _;
    let bytes = value
        .as_utf8_bytes()
        .ok_or_else(|| ExprError::NotJson(value.to_string()))?;
    String::from_utf8(bytes.to_vec()).map_err(|_| ExprError::NotJson("invalid UTF-8".into()))
}

/// A jq value as the text a wording slot inserts: strings as they are, numbers as JSON writes
/// them; anything else is an error.
pub fn to_text(value: &Val) -> Result<String, ExprError> {
    match to_json(value)? {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(ExprError::Run(format!(
            "a wording slot needs a string or a number, not {}",
            kind(&other)
        ))),
    }
}

/// The kind of a JSON value, for errors that must not quote it.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(code: &str, vars: &[(&str, Value)]) -> Result<Value, ExprError> {
        let names: Vec<String> = vars.iter().map(|(n, _)| n.to_string()).collect();
        let vals: Vec<Val> = vars.iter().map(|(_, v)| from_json(v)).collect();
        compile(code, &names, "")?.eval_json(&vals)
    }

    #[test]
    fn computes_from_its_variables() {
        let orders = json!([{"total": 1250, "status": "paid"}, {"total": 310, "status": "paid"},
                            {"total": 999, "status": "cancelled"}]);
        assert_eq!(
            run(
                "[$orders[] | select(.status == \"paid\") | .total] | add | money",
                &[("orders", orders)]
            )
            .unwrap(),
            json!("15.60")
        );
        assert_eq!(run("4 / 2", &[]).unwrap(), json!(2));
        assert_eq!(run("7 / 2", &[]).unwrap(), json!(3.5));
        assert_eq!(
            run("[\"a\", \"b\", \"c\"] | and_list", &[]).unwrap(),
            json!("a, b and c")
        );
        assert_eq!(run("-5 | money", &[]).unwrap(), json!("-0.05"));
        assert_eq!(run("7 | pad(3)", &[]).unwrap(), json!("007"));
        assert_eq!(
            run("\"ada.park\" | slack_id(\"U\")", &[]).unwrap(),
            json!(mcpbench_server_slack::slack_id('U', "ada.park"))
        );
        assert_eq!(
            run("\"2025-03-07\" | spoken_date", &[]).unwrap(),
            json!("March 7")
        );
    }

    #[test]
    fn refuses_what_reads_outside_the_family() {
        for code in ["now", "env", "input", "debug", "$ENV", "halt"] {
            assert!(run(code, &[]).is_err(), "{code} must not run");
        }
    }

    #[test]
    fn names_its_errors() {
        assert!(matches!(run("$nope", &[]), Err(ExprError::Compile(m)) if m.contains("$nope")));
        assert!(matches!(run("[1,", &[]), Err(ExprError::Parse(_))));
        assert!(matches!(run("empty", &[]), Err(ExprError::Empty)));
        assert!(matches!(run("1, 2", &[]), Err(ExprError::Many)));
        assert!(matches!(run("error(\"x\")", &[]), Err(ExprError::Run(_))));
        assert!(matches!(run("infinite", &[]), Err(ExprError::NotJson(_))));
    }
}
