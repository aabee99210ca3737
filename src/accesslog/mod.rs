//! Access logs: opening plain or gzip files, cutting them into line-aligned
//! chunks, and parsing lines in the configured format (SPEC §1, §4 "what a
//! fetch is").
//!
//! ```text
//! open(path) ─► Input ─► ChunkReader ─► Chunk          (one reader thread per file)
//!   first chunk ─► FormatChoice::choose ─► Arc<FileFormat>  (per file, `auto`)
//!   Chunk::lines() ─► FileFormat::parser().parse ─► Entry   (workers; no allocation)
//!     LogFormat::parse: clf_family::read for the named formats' plain
//!     lines, else the format's steps (parse_steps), the reference
//!   Entry::request_parts ─► fetch_of ─► Fetch   (crawler lines only)
//! ```

mod byte_steps;
pub mod chunk;
mod clf_family;
mod compile;
pub mod decode;
pub mod detect;
mod entry;
pub mod escape;
pub mod fields;
mod find;
pub mod format;
pub mod ipv6;
pub mod json;
mod json_quotes;
mod json_scan;
mod json_shape;
mod json_time;
mod json_values;
pub mod layout;
pub mod open;
mod program;
pub mod proxy;
pub mod request;
pub mod time;
pub mod time_given;
pub mod vhost;
pub mod w3c;
pub mod zone;

pub use chunk::{Chunk, ChunkReader, Line, Recycler};
pub use detect::{FileFormat, FormatChoice, Parser};
pub use entry::{Entry, LogEscaping, Skip};
pub use escape::unescape;
pub use format::LogFormat;
pub use json_shape::ShapeMemory;
pub use open::{Input, open, rereadable};
pub use proxy::TrustedProxies;
pub use request::{Fetch, Request, fetch_of, parse_request};
pub use time::Timestamp;
pub use time_given::parse_rfc3339_or_date;
pub use vhost::SiteHosts;
pub use zone::LogTz;
