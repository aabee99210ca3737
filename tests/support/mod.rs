//! The one helper module of the integration tests (`tests/tests.rs`): takes
//! nothing, gives the fixtures every test module shares. `audit` runs one
//! audit at several thread counts and spells expected rows (SPEC §5);
//! `hostile` runs the binary under a time and memory limit; `dns_server` is
//! a scripted DNS server on 127.0.0.1; `reference` is the slow reference
//! matcher (SPEC §3), the same file the `robots_matcher` fuzz target uses.

pub mod audit;
pub mod dns_server;
pub mod hostile;

// Shared with the fuzz crate, so it stays one file there; the tests use
// only part of it.
#[allow(dead_code)]
#[path = "../../fuzz/src/reference.rs"]
pub mod reference;
