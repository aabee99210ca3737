//! Reading robots.txt as a crawler does: RFC 9309 plus Seznam's extensions (SPEC §3).

pub mod parse;
