//! robots-audit: reads web-server access logs, picks out the fetches of
//! Seznam's crawlers, proves or disproves that they are genuine, and reports
//! every fetch that broke the site's robots.txt.
//!
//! ```text
//!  --log files ─► accesslog (open, chunk, format) ─► crawler::identify
//!        (one reader thread per file, rayon workers parse and identify)
//!                                                    │ crawler fetches + sort key
//!  --ptr-map, --resolve ─► crawler::verify ◄─────────┘
//!  --robots ─► robots (parse, group, compile) ─► audit (disallow, rate, delay)
//!                                                    │ sorted rows
//!                                                    ▼
//!                                   report (violations, impostors, summary)
//! ```
//!
//! `pipeline` alone knows the order of the stages and where the threads are.

pub mod accesslog;
pub mod crawler;
pub mod error;
pub mod robots;
pub mod text;

pub use error::{Error, Result};
