//! Who is a crawler, and whether it is genuine (SPEC §1 address → name, §2).

pub mod identify;
pub mod profile;
