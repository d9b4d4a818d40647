//! The `servers!` macro: everything that must list every server, generated from one list.

/// `servers! { name (short): Type, ... }` where `Type: Simulated`, `name == Type::NAME` and
/// `short` is the server's short name in task ids (`fs-...`).
#[macro_export]
macro_rules! servers {
    ($($name:ident ($short:literal) : $ty:ty),* $(,)?) => {
        /// Every server's name, in catalogue order.
        pub const SERVERS: &[&str] = &[$(stringify!($name)),*];

        /// A server's short name, as task ids begin with it: `fs` for `filesystem`.
        pub fn short_name(server: &str) -> Option<&'static str> {
            match server {
                $( stringify!($name) => Some($short), )*
                _ => None,
            }
        }

        /// `initial_state`: each server's seed, for the servers a task uses.
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct InitialState {
            $(
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $name: Option<<$ty as mcpbench_sim::Simulated>::Seed>,
            )*
        }

        impl InitialState {
            /// The servers this state seeds.
            pub fn servers(&self) -> Vec<&'static str> {
                let mut out = Vec::new();
                $( if self.$name.is_some() { out.push(stringify!($name)); } )*
                out
            }

            /// Gives every server this state seeds the background history it furnishes
            /// ([`mcpbench_sim::Simulated::furnish`]), in catalogue order, from `rng`.
            pub fn furnish(&mut self, rng: &mut mcpbench_sim::Rng) {
                $( if let Some(seed) = self.$name.as_mut() {
                    <$ty as mcpbench_sim::Simulated>::furnish(seed, rng);
                } )*
            }

            /// Takes `server`'s seed from `other` (nothing when `other` does not seed it).
            pub fn take_server(&mut self, server: &str, other: InitialState) {
                match server {
                    $( stringify!($name) => self.$name = other.$name, )*
                    _ => {}
                }
            }
        }

        // Each server's seed and atom schemas are inlined under the server's name, so that the
        // many types called `Seed` and `Atom` do not collide in the published schema.
        impl schemars::JsonSchema for InitialState {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "InitialState".into()
            }
            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let mut properties = serde_json::Map::new();
                $(
                    let mut seed = <<$ty as mcpbench_sim::Simulated>::Seed as schemars::JsonSchema>::json_schema(generator);
                    seed.insert("title".into(), concat!("initial state of ", stringify!($name)).into());
                    properties.insert(stringify!($name).into(), seed.to_value());
                )*
                schemars::json_schema!({
                    "description": "Each server's initial state, for the servers the task uses.",
                    "type": "object",
                    "properties": properties,
                    "additionalProperties": false
                })
            }
        }

        /// A predicate atom of any server.
        #[derive(Clone, Debug, PartialEq)]
        #[allow(non_camel_case_types)]
        pub enum Atom {
            $( $name(<$ty as mcpbench_sim::Simulated>::Atom), )*
        }

        impl Atom {
            /// The server whose state the atom reads.
            pub fn server(&self) -> &'static str {
                match self { $( Atom::$name(_) => stringify!($name), )* }
            }
        }

        impl serde::Serialize for Atom {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self { $( Atom::$name(a) => a.serialize(s), )* }
            }
        }

        impl<'de> serde::Deserialize<'de> for Atom {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                let value = serde_json::Value::deserialize(d)?;
                let key = value
                    .as_object()
                    .and_then(|m| m.keys().next())
                    .cloned()
                    .ok_or_else(|| D::Error::custom("a predicate atom is an object with one key"))?;
                let server = key.split('.').next().unwrap_or_default();
                match server {
                    $( stringify!($name) => serde_json::from_value(value).map(Atom::$name).map_err(D::Error::custom), )*
                    _ => Err(D::Error::custom(format!(
                        "unknown predicate {key:?}: a predicate is all, any, not, answer.*, or <server>.<name> with a server among {:?}",
                        SERVERS
                    ))),
                }
            }
        }

        impl schemars::JsonSchema for Atom {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "Atom".into()
            }
            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let variants = vec![$( {
                    let mut atoms = <<$ty as mcpbench_sim::Simulated>::Atom as schemars::JsonSchema>::json_schema(generator);
                    atoms.insert("title".into(), concat!("predicates of ", stringify!($name)).into());
                    atoms
                }, )*];
                schemars::json_schema!({ "oneOf": variants })
            }
        }

        /// The live servers of one run: each its own once the run has called it, shared with
        /// the world its seed built until then (`slot.rs`).
        pub struct World {
            $( $name: Option<$crate::Slot<$ty>>, )*
            /// The first server whose state could not be made this run's own (see
            /// [`World::refused_copy`]).
            refused: Option<&'static str>,
        }

        impl World {
            /// Builds the named servers, each from its seed in `initial` (or its default seed).
            /// [`World::new`] gives the same world, sharing one built before when it can.
            pub fn build(initial: &InitialState, servers: &[String]) -> Result<World, WorldError> {
                $( let mut $name = None; )*
                for server in servers {
                    match server.as_str() {
                        $( stringify!($name) => {
                            let seed = initial.$name.clone().unwrap_or_default();
                            $name = Some($crate::Slot::Own(<$ty as mcpbench_sim::Simulated>::from_seed(&seed)?));
                        } )*
                        other => return Err(WorldError::UnknownServer(other.to_string())),
                    }
                }
                Ok(World { $( $name, )* refused: None })
            }

            /// This world, every server of it kept for the copies made of it ([`World::copy`]),
            /// which share each server's state until they call it. `initial` is what it was
            /// built from (a server is built afresh from it when a copy is refused).
            pub(crate) fn into_kept(self, initial: &InitialState) -> World {
                debug_assert!(self.refused.is_none(), "only a freshly built world is kept");
                World { $( $name: self.$name.map(|slot| match slot {
                    $crate::Slot::Own(state) => $crate::Slot::keep(state, initial.$name.clone().unwrap_or_default()),
                    kept => kept,
                }), )* refused: None }
            }

            /// An exact copy of every server's state ([`mcpbench_sim::Simulated::copy`]); a
            /// server kept for copies is shared until the copy calls it.
            pub fn copy(&self) -> Result<World, WorldError> {
                Ok(World { $( $name: match &self.$name {
                    Some(s) => Some(s.copy()?),
                    None => None,
                }, )* refused: self.refused })
            }

            /// Whether the atom holds; `false` when its server is not part of this world.
            pub fn holds(&self, atom: &Atom) -> bool {
                match atom {
                    $( Atom::$name(a) => self.$name.as_ref().is_some_and(|s| s.read(|s| mcpbench_sim::Simulated::holds(s, a))), )*
                }
            }

            /// The state of one server ([`mcpbench_sim::Simulated::snapshot`]), when it is part
            /// of this world.
            pub fn server_snapshot(&self, name: &str) -> Option<Value> {
                match name {
                    $( stringify!($name) => self.$name.as_ref().map(|s| s.read(mcpbench_sim::Simulated::snapshot)), )*
                    _ => None,
                }
            }

            /// The server whose state this world could not make its own on a first call (the
            /// memory postgres's engines share was full), when one could not: that call was
            /// answered with an error that is our fault, not the agent's, so a run of this
            /// world must not be scored (the runner makes it a harness error, which is retried).
            pub fn refused_copy(&self) -> Option<&'static str> {
                self.refused
            }

            /// The servers this world holds its own state of: every server of a world built
            /// with [`World::build`]; those it has called, of one made by [`World::new`].
            pub fn copied_servers(&self) -> Vec<&'static str> {
                let mut out = Vec::new();
                $( if self.$name.as_ref().is_some_and($crate::Slot::is_own) { out.push(stringify!($name)); } )*
                out
            }

            /// Calls one tool of a server of this world, copying the server's state first if
            /// this is the world's first call there. Read-only tools copy too: a postgres read
            /// moves its engine's own state (its random sequence, its statement counter), which
            /// a shared state must never do, and only a run's first call to a server copies.
            fn call_server(&mut self, server: &str, tool: &str, args: &Value) -> Result<Value, ToolError> {
                let missing = || ToolError::not_found(format!("no server named {server} in this run"));
                match server {
                    $( stringify!($name) => {
                        // Only postgres's engine can refuse (its memory limit, shared by every
                        // run); the slot stays shared, so trying again tries again, but the
                        // run is spoiled on our side all the same (`refused_copy`).
                        let refused = &mut self.refused;
                        let state = self.$name.as_mut().ok_or_else(missing)?.own().map_err(|_| {
                            refused.get_or_insert(stringify!($name));
                            ToolError::new(mcpbench_sim::ErrorKind::Unavailable, format!(
                                "the {server} server could not start: the benchmark is out of memory for a moment (our side, not your call); try again"
                            ))
                        })?;
                        mcpbench_sim::Server::call(state, tool, args)
                    } )*
                    _ => Err(missing()),
                }
            }
        }

        /// The tools of a server, in listing order.
        pub fn catalog(server: &str) -> Option<Vec<ToolSpec<'static>>> {
            match server {
                $( stringify!($name) => Some(<$ty as mcpbench_sim::Simulated>::toolbox().specs().collect()), )*
                _ => None,
            }
        }

        fn validate(server: &str, tool: &str, args: &Value) -> Result<(), ToolError> {
            match server {
                $( stringify!($name) => <$ty as mcpbench_sim::Simulated>::toolbox()
                    .get(tool)
                    .ok_or_else(|| ToolError::not_found(format!("no tool named {server}.{tool}")))?
                    .validate(args), )*
                _ => Err(ToolError::not_found(format!("no server named {server}"))),
            }
        }

        /// Every template of every single-server grammar, with its server.
        pub fn single_server_templates() -> Vec<AnyTemplate> {
            let mut out = Vec::new();
            $( out.extend(<$ty as mcpbench_sim::Simulated>::templates().into_iter().map(|t| AnyTemplate::of::<$ty>(t, |a| Atom::$name(a), |s| InitialState { $name: Some(s), ..InitialState::default() }))); )*
            out
        }
    };
}
