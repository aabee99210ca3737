//! Ctrl-C and SIGTERM: a report being written is abandoned, its temporary
//! files removed, and the process ends with status 2 (the run could not be
//! done). Earlier reports stay as they were (SPEC §5, "whole or not at all").

/// Installs the handler once, at start-up. Failure to install leaves the
/// default behaviour, which at worst leaves a hidden temporary file.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        crate::report::atomic::abandon();
        crate::progress::clear_on_interrupt();
        crate::warn!("robots-audit: interrupted; no report written");
        std::process::exit(2);
    });
}
