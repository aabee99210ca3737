//! Ctrl-C and SIGTERM: a set of reports being written is abandoned, its
//! folder removed, the sorted runs on disk removed, and the process ends
//! with status 2 (the run could not be done); a run whose reports are
//! whole already is let finish. What it prints about the reports is true
//! (SPEC §5): "no report written" only when the earlier set is untouched.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::report::atomic::{self, Abandoned};

/// Set when the handler starts: what fails after it (a sorted run it
/// removed under a reader) is the interrupt's doing, which the handler
/// reports.
static STARTED: AtomicBool = AtomicBool::new(false);

/// True once Ctrl-C or SIGTERM came: the handler is ending the process.
fn in_progress() -> bool {
    STARTED.load(Ordering::SeqCst)
}

/// Before an error is told: when an interrupt is in progress, the error
/// may be its doing (a sorted run it removed under its reader or writer),
/// so the handler, which says what became of the reports and exits 2, is
/// given up to 10 s to do so first.
pub fn yield_to_handler() {
    for _ in 0..100 {
        if !in_progress() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Installs the handler once, at start-up. Failure to install leaves the
/// default behaviour, which at worst leaves a set folder that the next run
/// removes.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        STARTED.store(true, Ordering::SeqCst);
        crate::progress::clear_on_interrupt();
        crate::spill::remove_in_use();
        match atomic::abandon() {
            Abandoned::Nothing => {
                crate::warn!("robots-audit: interrupted; no report written");
            }
            Abandoned::PartOfStdout => crate::warn!(
                "robots-audit: interrupted; the report on standard output is incomplete"
            ),
            Abandoned::Written(dir) => {
                crate::warn!(
                    "robots-audit: interrupted after the reports were written whole to {}; \
                     the run finishes",
                    dir.display()
                );
                finish_after_reports();
            }
            Abandoned::WrittenToStdout => {
                crate::warn!(
                    "robots-audit: interrupted after the report was written whole to \
                     standard output; the run finishes"
                );
                finish_after_reports();
            }
        }
        std::process::exit(2);
    });
}

/// Once the reports are whole, what is left of the run is saving the state
/// (one rename) and printing the summary: ended here, the set in force
/// would say the night was audited whole (run.json's exit status and
/// `state_error`) while the run exits 2 and the state stays as it was. So
/// the run is let finish, with its own exit status; only one that has not
/// finished within `FINISH_LIMIT` is ended, with status 2, as before.
fn finish_after_reports() {
    STARTED.store(false, Ordering::SeqCst);
    std::thread::sleep(FINISH_LIMIT);
    STARTED.store(true, Ordering::SeqCst);
    crate::warn!(
        "robots-audit: the run did not finish within {} s of the interrupt, after its reports \
         were written whole; it ends with exit 2, and what it had left to do (saving the state, \
         saying why it could not) may not be done",
        FINISH_LIMIT.as_secs()
    );
}

/// How long a run interrupted after its reports has to finish.
const FINISH_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);
