//! `state.json` as written (SPEC §6 "State"): takes the text of the
//! file, gives its records, checked on the way in — the format number
//! first, so that a later format is named as such, then every field
//! (unknown ones refused); gives them back for writing. Used by
//! `state::StateDir` only.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::{FORMAT, Fingerprint, Night};
use crate::accesslog::time_given::parse_rfc3339_or_date;
use crate::error::{Error, Position, Result};
use crate::robots::cache::{Memory, Recent, RobotsFetch};

pub(super) fn garbage(path: &Path, at: Position, why: &str) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        at,
        cause: format!(
            "not a state this tool can read ({why}); it is left as it is: \
             move it away or give another --state"
        ),
    }
}

/// Reads `state.json`: the format first, so that a later format is named
/// as such rather than as garbage.
pub(super) fn decode(path: &Path, text: &str) -> Result<Stored<'static>> {
    let format = match serde_json::from_str::<FormatOnly>(text) {
        Ok(FormatOnly(format)) => format.as_ref().and_then(serde_json::Value::as_u64),
        // JSON, but not an object.
        Err(e) if e.is_data() => None,
        Err(e) => {
            return Err(garbage(
                path,
                Position::Line(e.line() as u64),
                &e.to_string(),
            ));
        }
    };
    match format {
        None => return Err(garbage(path, Position::File, "no \"format\" number")),
        Some(f) if f > FORMAT => {
            return Err(Error::Format {
                path: path.to_path_buf(),
                at: Position::File,
                cause: format!(
                    "written by a later version of robots-audit (state format {f}; this \
                     one reads format {FORMAT}); it is left as it is: run that version, \
                     or give another --state"
                ),
            });
        }
        Some(0) => return Err(garbage(path, Position::File, "format 0")),
        Some(_) => {}
    }
    serde_json::from_str(text)
        .map_err(|e| garbage(path, Position::Line(e.line() as u64), &e.to_string()))
}

/// The top-level `format` of an object (the last, if written twice), the
/// other values passed over: a busy count's million times read as
/// `serde_json::Value`s took 32 MB more. Not derived: a derived struct
/// reads an array too (`[5]` as format 5).
struct FormatOnly(Option<serde_json::Value>);

impl<'de> Deserialize<'de> for FormatOnly {
    fn deserialize<D: serde::Deserializer<'de>>(reader: D) -> std::result::Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = FormatOnly;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<M: MapAccess<'de>>(
                self,
                mut map: M,
            ) -> std::result::Result<FormatOnly, M::Error> {
                let mut format = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key == "format" {
                        format = Some(map.next_value::<serde_json::Value>()?);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(FormatOnly(format))
            }
        }
        reader.deserialize_map(Object)
    }
}

// The file as written: plain data, checked on the way in.

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Stored<'a> {
    pub(super) format: u64,
    pub(super) versions: Vec<StoredVersionJson>,
    pub(super) counts: BTreeMap<String, CountJson<'a>>,
    pub(super) fingerprints: Vec<Fingerprint>,
    pub(super) nights: Vec<Night>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StoredVersionJson {
    pub(super) in_force_from: String,
    /// SPEC §5's name of the version, for a person reading the file.
    pub(super) robots_version: String,
    pub(super) sha256: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CountJson<'a> {
    pub(super) robots_txt: MemoryJson,
    /// Borrowed from the state when written: a busy count's million
    /// times are not copied to be written.
    pub(super) fetch_times_ms: Cow<'a, [i64]>,
    /// `CountMemory::proven_times_ms`; absent when no fetch the evidence
    /// did not back joined the count (and in states of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) proven_fetch_times_ms: Option<Cow<'a, [i64]>>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FetchJson {
    /// RFC 3339 in the log's offset: the offset is kept for the rule text.
    pub(super) time: String,
    pub(super) status: u16,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MemoryJson {
    pub(super) last_fetch: Option<FetchJson>,
    pub(super) last_success_ms: Option<i64>,
    pub(super) outage_since_ms: Option<i64>,
    pub(super) outage_last: Option<FetchJson>,
    /// `Memory::recent`, the crawler's own fetches, oldest first; none in
    /// a state of format 1.
    #[serde(default)]
    pub(super) recent: Vec<FetchJson>,
    /// `Memory::recent`, unverified clients' 4xx, oldest first.
    #[serde(default)]
    pub(super) recent_unverified: Vec<FetchJson>,
    /// `Memory::whole_since_ms`; absent in states of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) recent_whole_since_ms: Option<i64>,
    /// `Memory::verifying`; absent in states of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) recent_verifying: Option<bool>,
}

impl MemoryJson {
    pub(super) fn of(m: &Memory) -> MemoryJson {
        let fetch = |f: &RobotsFetch| FetchJson {
            time: f.time.rfc3339(),
            status: f.status,
        };
        MemoryJson {
            last_fetch: m.last_fetch.as_ref().map(fetch),
            last_success_ms: m.last_success_ms,
            outage_since_ms: m.outage_since_ms,
            outage_last: m.outage_last.as_ref().map(fetch),
            recent: m.recent.own().map(fetch).collect(),
            recent_unverified: m.recent.unverified().map(fetch).collect(),
            recent_whole_since_ms: m.whole_since_ms,
            recent_verifying: m.verifying,
        }
    }

    pub(super) fn into_memory(self, path: &Path) -> Result<Memory> {
        let fetch = |f: Option<FetchJson>| -> Result<Option<RobotsFetch>> {
            f.map(|f| {
                let time = parse_rfc3339_or_date(&f.time).ok_or_else(|| {
                    garbage(path, Position::File, &format!("bad time {:?}", f.time))
                })?;
                // A log's status is three digits.
                if f.status > 999 {
                    return Err(garbage(
                        path,
                        Position::File,
                        &format!("a status of {}, not three digits", f.status),
                    ));
                }
                Ok(RobotsFetch {
                    time,
                    status: f.status,
                })
            })
            .transpose()
        };
        let mut recent = Recent::default();
        for (fetches, trusted) in [(self.recent, true), (self.recent_unverified, false)] {
            for one in fetches {
                if let Some(one) = fetch(Some(one))? {
                    recent.insert(one, trusted);
                }
            }
        }
        Ok(Memory {
            last_fetch: fetch(self.last_fetch)?,
            last_success_ms: self.last_success_ms,
            outage_since_ms: self.outage_since_ms,
            outage_last: fetch(self.outage_last)?,
            recent,
            whole_since_ms: self.recent_whole_since_ms,
            verifying: self.recent_verifying,
        })
    }
}
