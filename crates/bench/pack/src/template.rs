//! Templates: JSON with values spliced in, for a task's parts (its initial state, predicate,
//! references, faults, parameters).
//!
//! Any JSON is taken as it is, except an object with a key that starts with `$`, which is a
//! directive (its other keys are the directive's own):
//!
//! - `{"$": "expr"}`: the value of a jq expression;
//! - `{"$text": "wording"}`: a text drawn from a wording (`crate::wording`);
//! - `{"$if": "expr", "then": T, "else": T}`: `then` when the expression is true, else
//!   `else` (inside a list, a missing `else` adds nothing);
//! - inside a list, `{"$each": "expr"}`: every element of the list the expression gives;
//! - inside a list, `{"$for": "expr", "as": "x", "do": T}`: `T` once per element of the list
//!   the expression gives, with the element bound as `$x`; with `"each": [T1, T2]` instead of
//!   `do`, every item of that list once per element (each may itself be `$each`, `$if`, ...).

use crate::expr::{Expr, Exprs, from_json, kind};
use crate::wording::Wording;
use jaq_json::Val;
use mcpbench_sim::Rng;
use serde_json::{Map, Value};

/// A compiled template.
#[derive(Clone, Debug)]
pub enum Node {
    Literal(Value),
    Expr(Expr),
    Text(Wording),
    If {
        cond: Expr,
        then: Box<Node>,
        otherwise: Option<Box<Node>>,
    },
    Array(Vec<Item>),
    Object(Vec<(String, Node)>),
}

/// An element of a list in a template.
#[derive(Clone, Debug)]
pub enum Item {
    One(Node),
    Each(Expr),
    /// `body` is a list whose items are spliced in once per element when `splice`.
    For {
        list: Expr,
        body: Node,
        splice: bool,
    },
}

const DIRECTIVES: &[&str] = &["$", "$text", "$if", "$each", "$for"];

/// Compiles `value` against the names of `scope`, reporting errors under `at` (`predicate`,
/// `references[0][2].arguments`).
pub fn compile_node(
    value: &Value,
    scope: &[String],
    exprs: &mut Exprs,
    at: &str,
) -> Result<Node, String> {
    node(value, scope, exprs, at, false).map(|item| match item {
        Item::One(n) => n,
        _ => unreachable!("a list item directive only parses inside a list"),
    })
}

fn node(
    value: &Value,
    scope: &[String],
    exprs: &mut Exprs,
    at: &str,
    in_list: bool,
) -> Result<Item, String> {
    if !has_directive(value) {
        return Ok(Item::One(Node::Literal(value.clone())));
    }
    match value {
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, v) in items.iter().enumerate() {
                out.push(node(v, scope, exprs, &format!("{at}[{i}]"), true)?);
            }
            Ok(Item::One(Node::Array(out)))
        }
        Value::Object(map) => match map.keys().find(|k| k.starts_with('$')) {
            Some(key) => directive(key, map, scope, exprs, at, in_list),
            None => {
                let mut out = Vec::with_capacity(map.len());
                for (k, v) in map {
                    out.push((
                        k.clone(),
                        compile_node(v, scope, exprs, &format!("{at}.{k}"))?,
                    ));
                }
                Ok(Item::One(Node::Object(out)))
            }
        },
        _ => unreachable!("scalars hold no directive"),
    }
}

fn directive(
    key: &str,
    map: &Map<String, Value>,
    scope: &[String],
    exprs: &mut Exprs,
    at: &str,
    in_list: bool,
) -> Result<Item, String> {
    let allowed: &[&str] = match key {
        "$" | "$text" | "$each" => &[],
        "$if" => &["then", "else"],
        "$for" => &["as", "do", "each"],
        other => {
            return Err(format!(
                "{at}: unknown directive {other:?}; the directives are {}",
                DIRECTIVES.join(", ")
            ));
        }
    };
    if let Some(extra) = map
        .keys()
        .find(|k| k.as_str() != key && !allowed.contains(&k.as_str()))
    {
        return Err(format!("{at}: {key} takes no key {extra:?}"));
    }
    let code = |field: &str| -> Result<&str, String> {
        map.get(field)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{at}.{field}: must be a string"))
    };
    let place = format!("{at}.{key}");
    match key {
        "$" => Ok(Item::One(Node::Expr(exprs.add(code("$")?, scope, &place)))),
        "$text" => Wording::parse(code("$text")?, scope, exprs, &place)
            .map(|w| Item::One(Node::Text(w)))
            .map_err(|e| format!("{at}.$text: {e}")),
        "$each" if in_list => Ok(Item::Each(exprs.add(code("$each")?, scope, &place))),
        "$for" if in_list => {
            let name = code("as")?;
            crate::program::check_name(name).map_err(|e| format!("{at}.as: {e}"))?;
            if scope.iter().any(|n| n == name) {
                return Err(format!("{at}.as: ${name} is already bound"));
            }
            let mut inner = scope.to_vec();
            inner.push(name.to_string());
            let (body, splice) = match (map.get("do"), map.get("each")) {
                (Some(body), None) => (body, false),
                (None, Some(items @ Value::Array(_))) => (items, true),
                (None, Some(_)) => return Err(format!("{at}.each: must be a list")),
                _ => return Err(format!("{at}: $for needs one of \"do\" and \"each\"")),
            };
            let field = if splice { "each" } else { "do" };
            let list = exprs.add(code("$for")?, scope, &place);
            Ok(Item::For {
                list,
                body: compile_node(body, &inner, exprs, &format!("{at}.{field}"))?,
                splice,
            })
        }
        "$each" | "$for" => Err(format!("{at}: {key} stands only inside a list")),
        _ => {
            let then = map
                .get("then")
                .ok_or_else(|| format!("{at}: $if needs \"then\""))?;
            let otherwise = match map.get("else") {
                Some(v) => Some(Box::new(compile_node(
                    v,
                    scope,
                    exprs,
                    &format!("{at}.else"),
                )?)),
                None if in_list => None,
                None => return Err(format!("{at}: $if outside a list needs \"else\"")),
            };
            let cond = exprs.add(code("$if")?, scope, &place);
            Ok(Item::One(Node::If {
                cond,
                then: Box::new(compile_node(then, scope, exprs, &format!("{at}.then"))?),
                otherwise,
            }))
        }
    }
}

/// Whether any object in `value` starts with a directive key.
fn has_directive(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(has_directive),
        Value::Object(map) => {
            map.keys().any(|k| k.starts_with('$')) || map.values().any(has_directive)
        }
        _ => false,
    }
}

impl Node {
    /// The template's value with `scope`'s values, drawing its wordings from `rng`. Errors say
    /// which expression failed, never the values it saw.
    pub fn render(&self, scope: &mut Vec<Val>, rng: &mut Rng) -> Result<Value, String> {
        Ok(match self {
            Node::Literal(v) => v.clone(),
            Node::Expr(e) => e
                .eval_json(scope)
                .map_err(|err| format!("{{\"$\": {:?}}} {err}", e.source()))?,
            Node::Text(w) => Value::String(w.render(scope, rng).map_err(|e| e.to_string())?),
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                if truth(cond, scope)? {
                    then.render(scope, rng)?
                } else {
                    match otherwise {
                        Some(o) => o.render(scope, rng)?,
                        None => unreachable!("an $if without else outside a list is refused"),
                    }
                }
            }
            Node::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        Item::One(Node::If {
                            cond,
                            then,
                            otherwise: None,
                        }) => {
                            if truth(cond, scope)? {
                                out.push(then.render(scope, rng)?);
                            }
                        }
                        Item::One(n) => out.push(n.render(scope, rng)?),
                        Item::Each(e) => out.extend(list(e, scope)?),
                        Item::For {
                            list: l,
                            body,
                            splice,
                        } => {
                            for element in list(l, scope)? {
                                scope.push(from_json(&element));
                                let rendered = body.render(scope, rng);
                                scope.pop();
                                match (rendered?, splice) {
                                    (Value::Array(items), true) => out.extend(items),
                                    (one, _) => out.push(one),
                                }
                            }
                        }
                    }
                }
                Value::Array(out)
            }
            Node::Object(fields) => {
                let mut out = Map::new();
                for (k, n) in fields {
                    out.insert(k.clone(), n.render(scope, rng)?);
                }
                Value::Object(out)
            }
        })
    }
}

fn truth(cond: &Expr, scope: &[Val]) -> Result<bool, String> {
    match cond.eval_json(scope) {
        Ok(Value::Bool(b)) => Ok(b),
        Ok(other) => Err(format!(
            "{{\"$if\": {:?}}} gave {}, not a boolean",
            cond.source(),
            kind(&other)
        )),
        Err(e) => Err(format!("{{\"$if\": {:?}}} {e}", cond.source())),
    }
}

fn list(e: &Expr, scope: &[Val]) -> Result<Vec<Value>, String> {
    match e.eval_json(scope) {
        Ok(Value::Array(items)) => Ok(items),
        Ok(other) => Err(format!(
            "{:?} gave {}, not a list",
            e.source(),
            kind(&other)
        )),
        Err(err) => Err(format!("{:?} {err}", e.source())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn splices_values_lists_and_loops() {
        let names = vec!["who".to_string(), "n".to_string()];
        let mut vals = vec![from_json(&json!(["ann", "bob"])), from_json(&json!(2))];
        let t = json!({"all": [
            {"$for": "$who", "as": "p", "do": {"posted": {"text": {"$": "\"hi \\($p)\""}}}},
            {"$for": "$who", "as": "q", "each": [{"$": "$q"}, {"$if": "$q == \"bob\"", "then": "!"}]},
            {"$each": "[range($n)]"},
            {"$if": "$n > 5", "then": "big"},
            {"$if": "$n < 5", "then": "small"},
            {"count": {"$": "$n + 1"}, "kind": {"$if": "$n == 2", "then": "two", "else": "other"}}
        ]});
        let mut exprs = Exprs::new("");
        let node = compile_node(&t, &names, &mut exprs, "predicate").unwrap();
        exprs.finish().unwrap();
        let out = node.render(&mut vals, &mut Rng::new(0, 0)).unwrap();
        assert_eq!(
            out,
            json!({"all": [
                {"posted": {"text": "hi ann"}}, {"posted": {"text": "hi bob"}},
                "ann", "bob", "!",
                0, 1, "small", {"count": 3, "kind": "two"}
            ]})
        );
        assert_eq!(vals.len(), 2, "a loop's binding is dropped after it");
    }

    #[test]
    fn errors_name_the_place() {
        let names = vec!["n".to_string()];
        for (t, want) in [
            (json!({"a": {"$": "$m"}}), "predicate.a.$"),
            (json!({"$each": "[1]"}), "only inside a list"),
            (json!({"$nope": 1}), "unknown directive"),
            (json!({"a": 1, "$": "1"}), "takes no key \"a\""),
            (json!({"$if": "true", "then": 1}), "needs \"else\""),
            (
                json!([{"$for": "[1]", "as": "n", "do": 1}]),
                "already bound",
            ),
        ] {
            let mut exprs = Exprs::new("");
            let e = match compile_node(&t, &names, &mut exprs, "predicate") {
                Err(e) => e,
                Ok(_) => exprs.finish().unwrap_err().join("; "),
            };
            assert!(e.contains(want), "{t}: {e}");
        }
    }
}
