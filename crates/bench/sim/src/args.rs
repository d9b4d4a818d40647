//! Argument types a server's tools share, declared once with their schema bounds: a field
//! that several tools take (an issue id, a calendar id) is one type, not a doc comment, a
//! bound and a `String` repeated in every argument struct.

/// Declares a string argument type whose JSON Schema carries its length bounds and, when
/// given, its description (a field's own doc comment still overrides it):
///
/// ```
/// mcpbench_sim::string_arg!(
///     /// An issue's key.
///     pub IssueId, 3, 20, "Issue identifier, like ENG-12."
/// );
/// ```
///
/// The type (de)serializes as the JSON string it holds (bounds are checked by the tool's schema
/// before a handler runs), dereferences to `str`, and is inlined into every schema that uses
/// it, so the schemas agents see are the same as with a bounded `String` field.
#[macro_export]
macro_rules! string_arg {
    ($(#[$meta:meta])* $vis:vis $name:ident, $min:literal, $max:literal $(, $description:literal)? $(,)?) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, ::serde::Deserialize, ::serde::Serialize)]
        #[serde(transparent)]
        $vis struct $name(pub String);

        impl ::schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                #[allow(unused_mut)]
                let mut schema = ::schemars::json_schema!({
                    "type": "string",
                    "minLength": $min,
                    "maxLength": $max,
                });
                $(schema.insert("description".into(), $description.into());)?
                schema
            }
        }

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl ::std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl From<$name> for String {
            fn from(value: $name) -> String {
                value.0
            }
        }
    };
}
