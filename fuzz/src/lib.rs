//! Shared parts of the fuzz targets: the reference matcher (also used by the
//! property tests, `tests/suite/props_*.rs`) and a work budget that turns
//! "never takes more than linear time" into a crash libFuzzer keeps.

pub mod reference;

use std::time::Duration;

/// CPU time this thread has used. CPU time rather than wall-clock time, so
/// that other work on a busy machine does not look like slow parsing.
pub fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to fill in.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Panics when the work since `started` (a `thread_cpu_time`) took more
/// than a fixed allowance plus an allowance per input byte: both generous
/// for an instrumented build, and far below what quadratic work on a large
/// input needs. Run campaigns with `-max_len=65536` or more for this check
/// to bite.
pub fn within_linear_budget(started: Duration, input_len: usize) {
    let allowance = Duration::from_millis(300) + Duration::from_micros(40) * input_len as u32;
    let spent = thread_cpu_time().saturating_sub(started);
    if spent > allowance {
        panic!(
            "{spent:?} of CPU for {input_len} input bytes: more than linear time ({allowance:?} allowed)"
        );
    }
}
