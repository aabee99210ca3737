//! The integration tests, all in one binary: cargo links each top-level
//! `tests/*.rs` file as its own program, and twenty-odd links made a cold
//! `cargo test --release` too slow to wait for. Takes the real
//! `robots-audit` binary and the library; each module under `suite/` covers
//! one part of SPEC §1–§5, and `support/` holds what they share.
//!
//! A new test file goes in `suite/` and is named below, not at the top of
//! `tests/`, where it would become a binary of its own again.

mod support;

mod suite {
    mod accesslog_formats;
    mod accesslog_read;
    mod audit_counts;
    mod audit_disallow;
    mod audit_exit;
    mod audit_identify;
    mod audit_inputs;
    mod audit_memory;
    mod audit_model;
    mod audit_rates;
    mod audit_report;
    mod audit_tables;
    mod check_cli;
    mod crawler_dns;
    mod formats_proxies;
    mod formats_zones;
    mod hostile_dns;
    mod hostile_input;
    mod hostile_output;
    mod hostile_ptr;
    mod hostile_robots;
    mod hostile_signals;
    mod house_imports;
    mod lint_cli;
    mod nights_audit;
    mod nights_check;
    mod nights_state;
    mod props_matcher;
    mod props_parsers;
    mod report_html;
    mod report_mail;
    mod resolve_cli;
    mod robots_conformance;
    mod robots_props;
}
