//! Reading robots.txt as a crawler does: RFC 9309 plus Seznam's extensions (SPEC §3).
//!
//! `parse` reads lines into records, `group` forms and selects groups,
//! `normalize` puts patterns and targets into one percent-encoding, `compile`
//! builds the multi-pattern matcher, `matcher` gives verdicts, `glob` is
//! Seznam's wildcard reading of a `Robot-version: 2.0` group, and `limits`
//! reads Request-rate and Crawl-delay.

pub mod agent;
pub mod cache;
mod compile;
pub mod findings;
pub mod glob;
pub mod group;
pub mod limits;
pub mod matcher;
pub mod normalize;
pub mod parse;
pub mod source;
pub mod versions;

pub use agent::{product_token, user_agent_token};
pub use group::{Agent, Group, Note, Rule};
pub use limits::{CrawlDelay, Rate, RequestRate, Window};
pub use matcher::{AgentRules, Robots, Verdict};
