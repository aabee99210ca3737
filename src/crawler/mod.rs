//! Who is a crawler, and whether it is genuine (SPEC §1 address → name, §2).
//!
//! `profile` holds the table (`profile_file` adds to it), `identify`
//! compiles it into an `Identifier` (user agent, host name, line
//! prefilter), `address` reads client fields, `ptr` reads `--ptr-map`,
//! `dns` asks live DNS (`dns_cache` keeps its answers between runs;
//! `crate::side_file` reads those files to a limit), and `verify` gives
//! each fetch its `Identity` from all of that.

pub mod address;
pub mod dns;
pub mod dns_cache;
mod dns_lookup;
mod dns_options;
pub mod identify;
pub mod profile;
pub mod profile_file;
pub mod ptr;
pub mod verify;

pub use address::{Client, client_address, parse_client};
pub use identify::{CrawlerId, Identifier};
pub use profile::Profile;
pub use ptr::{BadLine, PtrMap};
pub use verify::{DnsAnswer, Forward, IdentifiedBy, Identity, Knowledge, NameCheck, Verification};
