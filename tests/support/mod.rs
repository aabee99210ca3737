//! Fixtures shared by the integration tests.

pub mod dns_server;
