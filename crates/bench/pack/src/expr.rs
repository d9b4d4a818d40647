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
use std::sync::{Arc, OnceLock};

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

/// An expression of a family: its source (for errors), its place in the family's program, and
/// the places in its scope of the variables it reads.
#[derive(Clone)]
pub struct Expr {
    source: Arc<str>,
    index: usize,
    /// Where in the scope each variable it reads stands, in the order its code binds them.
    reads: Arc<[usize]>,
    program: Arc<OnceLock<Filter>>,
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

/// The expressions of one family, compiled together into one jq program once they are all
/// known ([`Exprs::finish`]): jq's standard library, our prelude and the pack's `lib.jq` are
/// compiled once per family rather than once per expression (a few milliseconds each).
///
/// Each expression becomes a definition that binds the variables it reads from `$__v` and
/// runs its code; the program's body picks the definition `$__k` names.
pub struct Exprs {
    lib: String,
    items: Vec<Item>,
    program: Arc<OnceLock<Filter>>,
}

struct Item {
    source: Arc<str>,
    /// Where it stands, for errors (`draw[3] ($price)`).
    at: String,
    /// The names it reads, in the order of `Expr::reads`.
    names: Vec<String>,
    /// The whole scope it was written in, to compile it alone when the program does not.
    scope: Vec<String>,
}

impl Exprs {
    /// A new family's expressions, with the pack's own definitions `lib` (jq `def`s).
    pub fn new(lib: &str) -> Self {
        Self {
            lib: lib.to_string(),
            items: Vec::new(),
            program: Arc::new(OnceLock::new()),
        }
    }

    /// Adds the expression `source`, written where `scope` (names without `$`) is bound; `at`
    /// names its place in errors. Whether it compiles is known at [`Exprs::finish`].
    pub fn add(&mut self, source: &str, scope: &[String], at: &str) -> Expr {
        // The variables it reads: every `$name` of its text that the scope binds (a name in a
        // string literal only binds a variable it does not use).
        let mut reads = Vec::new();
        let mut names = Vec::new();
        for name in dollar_names(source) {
            if let Some(k) = scope.iter().rposition(|n| *n == name)
                && !names.contains(&name)
            {
                reads.push(k);
                names.push(name);
            }
        }
        let source: Arc<str> = source.into();
        self.items.push(Item {
            source: source.clone(),
            at: at.to_string(),
            names,
            scope: scope.to_vec(),
        });
        Expr {
            source,
            index: self.items.len() - 1,
            reads: reads.into(),
            program: self.program.clone(),
        }
    }

    /// Compiles every expression added, as one program; when that fails, each alone, to say
    /// which fail and why (`<at>: the expression does not compile: undefined: $x`).
    pub fn finish(self) -> Result<(), Vec<String>> {
        if self.items.is_empty() {
            return Ok(());
        }
        let mut code = String::new();
        for (k, item) in self.items.iter().enumerate() {
            code.push_str(&format!("def __e{k}: "));
            for (j, name) in item.names.iter().enumerate() {
                code.push_str(&format!("$__v[{j}] as ${name} | "));
            }
            // On lines of its own, so that a trailing comment ends with the line.
            code.push_str(&format!("(\n{}\n);\n", item.source));
        }
        code.push_str(&dispatch(0, self.items.len()));
        match build(&code, &self.lib, &["$__k", "$__v"]) {
            Ok(filter) => {
                self.program
                    .set(filter)
                    .unwrap_or_else(|_| unreachable!("a family's program is compiled once"));
                Ok(())
            }
            Err(whole) => {
                let problems: Vec<String> = (self.items.iter())
                    .filter_map(|item| {
                        let names: Vec<String> =
                            item.scope.iter().map(|n| format!("${n}")).collect();
                        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                        build(&item.source, &self.lib, &refs)
                            .err()
                            .map(|e| format!("{}: the expression {e}", item.at))
                    })
                    .collect();
                if problems.is_empty() {
                    // Each compiles alone: the library itself, or a definition two share.
                    Err(vec![format!("the family's expressions {whole}")])
                } else {
                    Err(problems)
                }
            }
        }
    }
}

/// The body that runs expression `$__k` of `lo..hi`: a balanced tree of comparisons.
fn dispatch(lo: usize, hi: usize) -> String {
    if hi - lo == 1 {
        return format!("__e{lo}");
    }
    let mid = (lo + hi) / 2;
    format!(
        "if $__k < {mid} then {} else {} end",
        dispatch(lo, mid),
        dispatch(mid, hi)
    )
}

/// The names written `$name` in `source`.
fn dollar_names(source: &str) -> Vec<String> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            if end > start {
                out.push(source[start..end].to_string());
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Compiles `code` after the prelude and `lib`, with the global variables `globals`.
fn build(code: &str, lib: &str, globals: &[&str]) -> Result<Filter, ExprError> {
    // The family's code follows the prelude and the library, so their definitions are in scope
    // and a family's own may shadow them.
    let code = format!("{PRELUDE}\n{lib}\n{code}");
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
    Compiler::default()
        .with_funs(funs)
        .with_global_vars(globals.iter().copied())
        .compile(modules)
        .map_err(|errors| {
            let undefined: Vec<String> = errors
                .iter()
                .flat_map(|(_, errs)| errs.iter().map(|(name, _)| name.to_string()))
                .collect();
            ExprError::Compile(format!("undefined: {}", undefined.join(", ")))
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

    /// Where in its scope each name it reads stands.
    pub fn reads(&self) -> &[usize] {
        &self.reads
    }

    /// Runs the expression with `scope`'s values (the scope it was written in, or a longer one
    /// that starts with it).
    pub fn eval(&self, scope: &[Val]) -> Result<Val, ExprError> {
        let filter = self
            .program
            .get()
            .expect("a family's expressions run once its program is compiled");
        let read: Val = self.reads.iter().map(|&k| scope[k].clone()).collect();
        let vars = Vars::new([Val::from(self.index as isize), read]);
        let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, vars);
        let mut out = filter.id.run((ctx, Val::Null)).map(unwrap_valr);
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

/// A jq value as JSON. jaq tells integers (`7`, `floor`, `length`) from floats (`7 / 2`,
/// `4 / 2`, a float read from JSON): an integer stays one, a float stays a float even when
/// whole (`2.0`), as a Rust template's `f64` does. Strings must be text, object keys strings.
pub fn to_json(value: &Val) -> Result<Value, ExprError> {
    use jaq_std::ValT as _;
    Ok(match value {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Num(n) => {
            let float = matches!(n, jaq_json::Num::Float(_));
            match value.as_isize() {
                Some(i) if !float => Value::from(i as i64),
                _ => value
                    .as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number)
                    .ok_or_else(|| ExprError::NotJson(value.to_string()))?,
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

/// A jq value as the text a wording slot inserts: strings as they are, integers as they are,
/// floats as Rust writes an `f64` (`767` for 767.0, `0.1`); anything else is an error.
pub fn to_text(value: &Val) -> Result<String, ExprError> {
    match to_json(value)? {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(match (n.as_i64(), n.as_f64()) {
            (Some(i), _) if !n.is_f64() => i.to_string(),
            (_, Some(f)) => format!("{f}"),
            _ => n.to_string(),
        }),
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

    fn run(code: &str, vars: &[(&str, Value)]) -> Result<Value, String> {
        let names: Vec<String> = vars.iter().map(|(n, _)| n.to_string()).collect();
        let vals: Vec<Val> = vars.iter().map(|(_, v)| from_json(v)).collect();
        let mut exprs = Exprs::new("");
        let e = exprs.add(code, &names, "here");
        exprs.finish().map_err(|p| p.join("; "))?;
        e.eval_json(&vals).map_err(|e| e.to_string())
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
        assert_eq!(run("4 / 2", &[]).unwrap(), json!(2.0), "a float stays one");
        assert_eq!(run("4 / 2 | floor", &[]).unwrap(), json!(2));
        assert_eq!(run("7 / 2", &[]).unwrap(), json!(3.5));
        assert_eq!(run("$x", &[("x", json!(767.0))]).unwrap(), json!(767.0));
        assert_eq!(to_text(&from_json(&json!(767.0))).unwrap(), "767");
        assert_eq!(to_text(&from_json(&json!(0.1))).unwrap(), "0.1");
        assert_eq!(to_text(&from_json(&json!(42))).unwrap(), "42");
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
        let e = run("$nope", &[]).unwrap_err();
        assert!(
            e.contains("here: the expression does not compile") && e.contains("$nope"),
            "{e}"
        );
        let e = run("[1,", &[]).unwrap_err();
        assert!(e.contains("does not parse as jq"), "{e}");
        assert_eq!(run("empty", &[]).unwrap_err(), "gave no value");
        assert_eq!(run("1, 2", &[]).unwrap_err(), "gave more than one value");
        assert!(run("error(\"x\")", &[]).unwrap_err().starts_with("failed"));
        assert!(run("infinite", &[]).unwrap_err().contains("not JSON"));
        // A trailing comment ends with its line.
        assert_eq!(run("1 # one", &[]).unwrap(), json!(1));
    }

    #[test]
    fn a_family_compiles_once_and_each_expression_reads_its_own_variables() {
        let scope: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let mut exprs = Exprs::new("def twice: . * 2;");
        let first = exprs.add("$a | twice", &scope[..1], "one");
        let second = exprs.add("\"\\($c)-\\($b)\" # $a in a comment", &scope, "two");
        let third = exprs.add("def f: $b + 1; f", &scope[..2], "three");
        exprs.finish().unwrap();
        let vals = [
            from_json(&json!(3)),
            from_json(&json!(4)),
            from_json(&json!("x")),
        ];
        assert_eq!(first.eval_json(&vals).unwrap(), json!(6));
        assert_eq!(second.eval_json(&vals).unwrap(), json!("x-4"));
        assert_eq!(third.eval_json(&vals[..2]).unwrap(), json!(5));
    }
}
