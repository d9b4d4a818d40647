//! [`Stored`]: a JSONB document read into its type without letting one bad document fail
//! every read of its row.

use serde::de::DeserializeOwned;
use sqlx::error::BoxDynError;
use sqlx::postgres::{PgTypeInfo, PgValueRef};
use sqlx::types::Json;
use sqlx::{Decode, Postgres, Type};

/// A document we wrote (scores, a board row's breakdowns) read back as `T`. One that does not
/// fit `T` (damaged by hand, or written in a shape this version does not read) reads as `None`
/// and is logged, instead of failing the query: the submission stays readable, its page says
/// its scores are unknown, and `mcpbench admin rescore` writes them again.
#[derive(Clone, Debug, PartialEq)]
pub struct Stored<T>(pub Option<T>);

impl<T> Stored<T> {
    pub fn get(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

/// As the document it holds (`null` when it did not read).
impl<T: serde::Serialize> serde::Serialize for Stored<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<T> Type<Postgres> for Stored<T> {
    fn type_info() -> PgTypeInfo {
        <Json<serde_json::Value> as Type<Postgres>>::type_info()
    }

    fn compatible(ty: &PgTypeInfo) -> bool {
        <Json<serde_json::Value> as Type<Postgres>>::compatible(ty)
    }
}

impl<'r, T: DeserializeOwned> Decode<'r, Postgres> for Stored<T> {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        let Json(document) = <Json<serde_json::Value> as Decode<Postgres>>::decode(value)?;
        Ok(Stored(match serde_json::from_value(document) {
            Ok(typed) => Some(typed),
            Err(e) => {
                tracing::warn!(
                    error = %e,
                    of = std::any::type_name::<T>(),
                    "a stored document does not read as its type; it is taken as unknown"
                );
                None
            }
        }))
    }
}
