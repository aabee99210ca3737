//! The per-crawler chart of `report.html` (SPEC §7): fetches per minute
//! over the audited period against the allowed Request-rate, its windows
//! shaded, the Seznam floor drawn where it raises the written rate, and the
//! minutes with violations marked. Takes a [`Traffic`] and the period;
//! gives inline SVG drawn by plotters' SVG backend.
//!
//! A long period is cut into at most [`POINTS`] steps of whole minutes;
//! each step shows its busiest minute (the one a rate is broken in) and
//! the violations of all its minutes, so the page stays small however long
//! the night.

use plotters::prelude::*;

use super::{Allowance, PerMinute, Traffic, WindowClock};

/// At most this many steps along the time axis.
pub const POINTS: i64 = 720;

/// At most about this many labels along the time axis.
const TICKS: i64 = 8;

const WIDTH: u32 = 960;
const HEIGHT: u32 = 300;

/// The time axis shared by every chart of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axis {
    /// First minute (minutes since the epoch, UTC).
    pub start: i64,
    /// Minutes in one step.
    pub step: i64,
    /// Number of steps.
    pub steps: i64,
    /// The clock labels are written in, minutes east of UTC.
    pub offset_min: i16,
}

impl Axis {
    /// An axis over minutes `first..=last`.
    pub fn new(first: i64, last: i64, offset_min: i16) -> Axis {
        let span = last.saturating_sub(first).saturating_add(1).max(1);
        let step = (span + POINTS - 1) / POINTS;
        Axis {
            start: first,
            step,
            steps: (span + step - 1) / step,
            offset_min,
        }
    }

    fn index(&self, minute: i64) -> usize {
        usize::try_from((minute - self.start) / self.step).unwrap_or(0)
    }

    fn minute_at(&self, index: i64) -> i64 {
        self.start.saturating_add(index.saturating_mul(self.step))
    }

    /// The steps the time axis labels, and the clock interval they fall
    /// on: the first step holding a whole multiple of a round interval (a
    /// minute to a week, so that at most `TICKS` fit the period) of the
    /// log's clock, 03:00, 06:00…, not every 200 minutes from the first
    /// fetch.
    pub fn ticks(&self) -> (Vec<i64>, i64) {
        const ROUND: [i64; 20] = [
            1, 2, 5, 10, 15, 30, 60, 120, 180, 240, 360, 720, 1440, 2880, 10_080, 20_160, 40_320,
            80_640, 161_280, 524_160,
        ];
        let span = self.step.saturating_mul(self.steps).max(1);
        let interval = ROUND
            .iter()
            .copied()
            .find(|&i| i >= self.step && span / i <= TICKS)
            .unwrap_or_else(|| ((span + TICKS - 1) / TICKS).max(self.step));
        let first = self.start.saturating_add(i64::from(self.offset_min));
        let mut points = Vec::new();
        let mut at = first
            .div_euclid(interval)
            .saturating_add(1)
            .saturating_mul(interval);
        if first.rem_euclid(interval) == 0 {
            at = first;
        }
        while at < first.saturating_add(span) {
            let index = (at - first) / self.step;
            if points.last() != Some(&index) {
                points.push(index);
            }
            at = at.saturating_add(interval);
        }
        (points, interval)
    }

    /// A label for the step at `index`, in the log's clock: the multiple
    /// of `interval` the step holds (`ticks`), else its first minute.
    fn label_on(&self, index: i64, interval: i64) -> String {
        let start = self
            .minute_at(index)
            .saturating_add(i64::from(self.offset_min));
        let round = start.div_euclid(interval).saturating_mul(interval);
        let round = if round < start {
            round.saturating_add(interval)
        } else {
            round
        };
        self.label_local(if round < start.saturating_add(self.step) {
            round
        } else {
            start
        })
    }

    /// A label for the minute `local` of the log's clock.
    fn label_local(&self, local: i64) -> String {
        let date = jiff::civil::date(1970, 1, 1)
            .checked_add(jiff::SignedDuration::from_hours(
                local.div_euclid(1440) * 24,
            ))
            .unwrap_or_default();
        let (month, day) = (date.month(), date.day());
        let of_day = local.rem_euclid(1440);
        if self.step * self.steps <= 1440 {
            format!("{:02}:{:02}", of_day / 60, of_day % 60)
        } else {
            format!("{month:02}-{day:02} {:02}:{:02}", of_day / 60, of_day % 60)
        }
    }
}

/// The Request-rate line that holds at `instant_ms`, whose minute of the
/// day in the windows' clock is `minute_of_day`: one of the robots.txt
/// version in force then (SPEC §6); a windowed line that covers it wins
/// over one without a window; the first in the file among equals (SPEC
/// §3, §4).
pub fn holding(allowed: &[Allowance], instant_ms: i64, minute_of_day: u16) -> Option<&Allowance> {
    let in_force = || allowed.iter().filter(move |a| a.in_force_at(instant_ms));
    in_force()
        .find(|a| a.window.is_some() && a.covers(minute_of_day))
        .or_else(|| in_force().find(|a| a.window.is_none()))
}

/// The Request-rate lines of the versions in force at some minute of the
/// axis, each line of a version once (a version back in force, v1 → v2 →
/// v1, is the same lines), oldest version first.
pub fn allowed_during<'a>(allowed: &'a [Allowance], axis: &Axis) -> Vec<&'a Allowance> {
    let from = axis.start.saturating_mul(60_000);
    let until = axis.minute_at(axis.steps.max(1)).saturating_mul(60_000);
    let mut seen = std::collections::HashSet::new();
    allowed
        .iter()
        .filter(|a| a.in_force_ms.0 < until && from < a.in_force_ms.1)
        .filter(|a| seen.insert((a.version.as_str(), a.rule_line)))
        .collect()
}

/// Per step, the Request-rate line that holds at its first minute: the
/// windows read in `clock` at that minute, as the audit read them at each
/// fetch (SPEC §3: a zone's windows follow its clock across DST).
pub fn held_lines<'t>(
    traffic: &'t Traffic,
    axis: &Axis,
    clock: &WindowClock,
) -> Vec<Option<&'t Allowance>> {
    (0..axis.steps)
        .map(|i| {
            let minute = axis.minute_at(i);
            let local = minute.saturating_add(i64::from(clock.offset_at(minute)));
            holding(
                &traffic.allowed,
                minute.saturating_mul(60_000),
                local.rem_euclid(1440) as u16,
            )
        })
        .collect()
}

/// Per step: the busiest minute's fetches, all the violations, and the
/// request-rate violations among them.
pub fn steps(traffic: &Traffic, axis: &Axis) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let len = usize::try_from(axis.steps).unwrap_or(0);
    let mut busiest = vec![0u32; len];
    for (minute, count) in traffic.fetches.iter() {
        if let Some(slot) = busiest.get_mut(axis.index(minute)) {
            *slot = (*slot).max(count);
        }
    }
    let summed = |per_minute: &PerMinute| {
        let mut sums = vec![0u32; len];
        for (minute, count) in per_minute.iter() {
            if let Some(slot) = sums.get_mut(axis.index(minute)) {
                *slot = slot.saturating_add(count);
            }
        }
        sums
    };
    (
        busiest,
        summed(&traffic.violations),
        summed(&traffic.rate_violations),
    )
}

/// The chart as inline SVG, or a sentence saying why it could not be
/// drawn.
pub fn draw(traffic: &Traffic, axis: &Axis, clock: &WindowClock) -> Result<String, String> {
    let (busiest, violations, rated) = steps(traffic, axis);
    let held = held_lines(traffic, axis, clock);
    let written = |a: &Allowance| f64::from(a.requests) * 60.0 / a.period_secs.max(1) as f64;
    let top = busiest
        .iter()
        .map(|&n| f64::from(n))
        .chain(held.iter().flatten().map(|a| a.per_minute()))
        .fold(1.0f64, f64::max)
        * 1.15;

    let (ticks, interval) = axis.ticks();
    let labels = ticks.len().max(2);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let fail = |e: &dyn std::fmt::Display| e.to_string();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            // Room for the last time label, centred on the right edge.
            .margin_right(36)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d((0i64..axis.steps.max(1)).with_key_points(ticks), 0f64..top)
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(labels)
            .y_labels(6)
            .x_label_formatter(&|i| axis.label_on(*i, interval))
            .y_label_formatter(&|y| {
                if top > 10.0 {
                    format!("{y:.0}")
                } else {
                    format!("{y:.1}")
                }
            })
            .y_desc("fetches / minute")
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(|e| fail(&e))?;

        // Windows: the steps whose first minute a windowed line covers.
        let band = RGBColor(0xdd, 0xea, 0xf7).filled();
        for (start, end) in runs(&held, |a| a.is_some_and(|a| a.window.is_some())) {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(start, 0.0), (end, top)],
                    band,
                )))
                .map_err(|e| fail(&e))?;
        }
        let fetches_color = RGBColor(0x1f, 0x5f, 0xa8);
        chart
            .draw_series(LineSeries::new(
                busiest
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| (i as i64, f64::from(n))),
                fetches_color.stroke_width(1),
            ))
            .map_err(|e| fail(&e))?;
        // A line of one point draws nothing: a period of one step shows
        // its point.
        if busiest.len() == 1 {
            chart
                .draw_series(
                    busiest
                        .iter()
                        .map(|&n| Circle::new((0, f64::from(n)), 3, fetches_color.filled())),
                )
                .map_err(|e| fail(&e))?;
        }
        // Where the floor raises the written rate, the written one is drawn
        // thin and grey beneath the one that holds.
        for (start, end) in runs(&held, |a| a.is_some_and(|a| a.floor.is_some())) {
            let Some(Some(line)) = held.get(usize::try_from(start).unwrap_or(0)) else {
                continue;
            };
            let y = written(line);
            chart
                .draw_series(LineSeries::new(
                    [(start, y), (end, y)],
                    RGBColor(0x99, 0x99, 0x99).stroke_width(1),
                ))
                .map_err(|e| fail(&e))?;
        }
        for (start, end) in runs(&held, |a| a.is_some()) {
            // Within a run the line may change (two windows back to back):
            // each step draws its own level.
            let points = (start..end).flat_map(|i| {
                let y = held[i as usize].map_or(0.0, Allowance::per_minute);
                [(i, y), (i + 1, y)]
            });
            chart
                .draw_series(LineSeries::new(
                    points,
                    RGBColor(0x2e, 0x8b, 0x57).stroke_width(2),
                ))
                .map_err(|e| fail(&e))?;
        }
        // Other violations (disallow, crawl-delay) at the foot of their
        // steps, so that a rate broken in a busy minute stands out from a
        // night of disallowed fetches: one bar a run of such steps, so
        // that the page stays small whatever the night, widened by a step
        // on either side on an axis of many steps (a week's step is about
        // a pixel wide) to stay visible.
        let others: Vec<bool> = violations.iter().zip(&rated).map(|(a, r)| a > r).collect();
        let widen = i64::from(axis.steps > 240);
        let foot = top / 30.0;
        chart
            .draw_series(
                runs(&others, |other| other)
                    .into_iter()
                    .map(|(start, end)| {
                        Rectangle::new(
                            [
                                ((start - widen).max(0), 0.0),
                                ((end + widen).min(axis.steps.max(1)), foot),
                            ],
                            RGBColor(0xe0, 0x8a, 0x00).filled(),
                        )
                    }),
            )
            .map_err(|e| fail(&e))?;
        // Request-rate violations on the fetches line, at the busiest
        // minute of their step.
        chart
            .draw_series(
                rated
                    .iter()
                    .zip(&busiest)
                    .enumerate()
                    .filter(|(_, (v, _))| **v > 0)
                    .map(|(i, (_, &n))| {
                        Circle::new(
                            (i as i64, f64::from(n)),
                            3,
                            RGBColor(0xc6, 0x28, 0x28).filled(),
                        )
                    }),
            )
            .map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    Ok(inline(svg))
}

/// Runs of consecutive steps for which `test` holds, as (start, end)
/// with `end` exclusive.
fn runs<T: Copy>(items: &[T], test: impl Fn(T) -> bool) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &item) in items.iter().enumerate() {
        match (test(item), start) {
            (true, None) => start = Some(i as i64),
            (false, Some(s)) => {
                out.push((s, i as i64));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, items.len() as i64));
    }
    out
}

/// The SVG as the page holds it: the backend's file header (a fixed
/// pixel size and the `xmlns` URL, which SPEC §7 allows in no attribute
/// and HTML does not need) replaced by a view box that scales to the
/// screen.
fn inline(svg: String) -> String {
    let body = svg
        .find('>')
        .map_or(svg.as_str(), |end| &svg[end + 1..])
        .trim_start();
    format!("<svg viewBox=\"0 0 {WIDTH} {HEIGHT}\" class=\"chart\" role=\"img\">\n{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traffic(fetches: &[(i64, u32)], violations: &[(i64, u32)]) -> Traffic {
        Traffic {
            crawler: "SeznamBot".into(),
            fetches: fetches.iter().copied().collect(),
            violations: violations.iter().copied().collect(),
            rate_violations: violations.iter().copied().collect(),
            allowed: vec![Allowance {
                text: "Request-rate: 1/60s 0800-1800".into(),
                rule_line: 3,
                requests: 1,
                period_secs: 60,
                window: Some((480, 1080)),
                floor: Some((1, 30)),
                version: "0123456789ab".into(),
                in_force_ms: (i64::MIN, i64::MAX),
            }],
        }
    }

    #[test]
    fn a_long_period_is_cut_into_bounded_steps_keeping_the_busiest_minute() {
        // A week of minutes.
        let axis = Axis::new(0, 7 * 1440 - 1, 60);
        assert!(axis.steps <= POINTS);
        assert_eq!(axis.step, 14);
        let t = traffic(&[(0, 3), (1, 9), (13, 4), (14, 2)], &[(1, 1), (13, 2)]);
        let (busiest, violations, rated) = steps(&t, &axis);
        assert_eq!(busiest.len() as i64, axis.steps);
        assert_eq!((busiest[0], busiest[1]), (9, 2));
        assert_eq!((violations[0], violations[1]), (3, 0));
        assert_eq!(rated, violations);
    }

    /// The time axis is labelled on round times of the log's clock, at
    /// most about eight, each label the round time its step holds.
    #[test]
    fn time_labels_fall_on_round_clock_times() {
        // A day from 00:09 at +01:00, in steps of two minutes.
        let start = 23 * 60 + 9;
        let axis = Axis::new(start, start + 1439, 60);
        assert_eq!(axis.step, 2);
        let (ticks, interval) = axis.ticks();
        assert_eq!(interval, 180);
        let labels: Vec<String> = ticks.iter().map(|&i| axis.label_on(i, interval)).collect();
        assert_eq!(
            labels,
            [
                "03:00", "06:00", "09:00", "12:00", "15:00", "18:00", "21:00", "00:00"
            ]
        );
        // Each labelled step holds its round time.
        for &i in &ticks {
            let local = axis.minute_at(i) + 60;
            assert!(
                local.rem_euclid(180) > 180 - axis.step || local % 180 == 0,
                "{i}"
            );
        }
        // An hour of minutes: every ten minutes, from a round start.
        let axis = Axis::new(600, 659, 0);
        let (ticks, interval) = axis.ticks();
        assert_eq!(interval, 10);
        assert_eq!(ticks, [0, 10, 20, 30, 40, 50]);
        assert_eq!(axis.label_on(10, interval), "10:10");
        // A week: a day apart, dated.
        let axis = Axis::new(0, 7 * 1440 - 1, 0);
        let (ticks, interval) = axis.ticks();
        assert_eq!(interval, 1440);
        assert_eq!(ticks.len(), 7);
        assert_eq!(axis.label_on(ticks[1], interval), "01-02 00:00");
    }

    #[test]
    fn a_short_period_keeps_every_minute() {
        let axis = Axis::new(100, 159, 0);
        assert_eq!((axis.step, axis.steps), (1, 60));
        assert_eq!(axis.label_on(0, 1), "01:40");
    }

    #[test]
    fn a_windowed_line_wins_inside_its_window_only() {
        let mut allowed = traffic(&[], &[]).allowed;
        allowed.push(Allowance {
            text: "Request-rate: 10/1m".into(),
            rule_line: 4,
            requests: 10,
            period_secs: 60,
            window: None,
            floor: None,
            version: "0123456789ab".into(),
            in_force_ms: (i64::MIN, i64::MAX),
        });
        assert_eq!(holding(&allowed, 0, 600).map(|a| a.rule_line), Some(3));
        assert_eq!(holding(&allowed, 0, 1200).map(|a| a.rule_line), Some(4));
        // The floor holds: 1/60s acts as 1/30s, two a minute.
        assert_eq!(allowed[0].per_minute(), 2.0);
    }

    /// Each minute is drawn against the version in force then (SPEC §6),
    /// and the caption names the lines of the versions the period saw,
    /// each once however often its version came back.
    #[test]
    fn each_minute_holds_the_rate_of_the_version_in_force() {
        let line = |version: &str, requests: u32, in_force_ms: (i64, i64)| Allowance {
            text: format!("Request-rate: {requests}/1m"),
            rule_line: 2,
            requests,
            period_secs: 60,
            window: None,
            floor: None,
            version: version.into(),
            in_force_ms,
        };
        let hour = 3_600_000;
        // v1 until 12:00, v2 until 18:00, v1 again; v0 long before.
        let allowed = [
            line("v0", 1, (i64::MIN, 0)),
            line("v1", 30, (0, 12 * hour)),
            line("v2", 6, (12 * hour, 18 * hour)),
            line("v1", 30, (18 * hour, i64::MAX)),
        ];
        let at = |ms: i64| holding(&allowed, ms, 0).map(|a| (a.version.as_str(), a.requests));
        assert_eq!(at(10 * hour), Some(("v1", 30)));
        assert_eq!(at(12 * hour - 1), Some(("v1", 30)));
        assert_eq!(at(12 * hour), Some(("v2", 6)));
        assert_eq!(at(20 * hour), Some(("v1", 30)));
        assert_eq!(at(-1), Some(("v0", 1)));
        // 10:00 to 19:59: v1 and v2, v1 named once.
        let axis = Axis::new(600, 1199, 0);
        let named: Vec<&str> = allowed_during(&allowed, &axis)
            .iter()
            .map(|a| a.version.as_str())
            .collect();
        assert_eq!(named, ["v1", "v2"]);
    }

    #[test]
    fn the_svg_carries_no_url_and_marks_violations() {
        let axis = Axis::new(0, 1439, 0);
        let utc = WindowClock::default();
        let svg = draw(&traffic(&[(500, 5), (900, 1)], &[(500, 4)]), &axis, &utc).unwrap();
        assert!(svg.starts_with("<svg viewBox=\"0 0 960 300\""));
        assert!(!svg.contains("http"), "{}", &svg[..200]);
        assert!(!svg.contains("style="));
        assert_eq!(svg.matches("<circle").count(), 1);
        // The window 0800-1800 is one shaded band.
        assert_eq!(svg.matches("fill=\"#DDEAF7\"").count(), 1, "{svg}");
    }

    /// Disallow and crawl-delay rows are marked at the foot of their step,
    /// request-rate rows on the fetches line: a night of disallowed
    /// fetches does not hide a rate broken in a busy minute.
    #[test]
    fn rate_breaks_are_marked_apart_from_other_violations() {
        let axis = Axis::new(0, 1439, 0);
        let utc = WindowClock::default();
        let mut t = traffic(&[(500, 5), (900, 1), (901, 2)], &[(500, 4), (900, 1)]);
        t.rate_violations = [(500, 1)].into_iter().collect();
        let svg = draw(&t, &axis, &utc).unwrap();
        assert_eq!(svg.matches("<circle").count(), 1, "{svg}");
        // Step 500 holds three other rows besides its rate row, step 900
        // one: two marks at the foot.
        assert_eq!(svg.matches("fill=\"#E08A00\"").count(), 2, "{svg}");
        // Steps 900 and 901 in a row: one bar.
        t.violations.add(901, 1);
        let svg = draw(&t, &axis, &utc).unwrap();
        assert_eq!(svg.matches("fill=\"#E08A00\"").count(), 2, "{svg}");
        t.rate_violations = PerMinute::default();
        let svg = draw(&t, &axis, &utc).unwrap();
        assert_eq!(svg.matches("<circle").count(), 0, "{svg}");
    }

    /// A period of one step draws its point: a line of one point draws
    /// nothing.
    #[test]
    fn a_period_of_one_minute_shows_its_fetches() {
        let axis = Axis::new(180, 180, 0);
        assert_eq!(axis.steps, 1);
        let svg = draw(&traffic(&[(180, 3)], &[]), &axis, &WindowClock::default()).unwrap();
        assert_eq!(svg.matches("<circle").count(), 1, "{svg}");
    }

    /// On a night that leaves summer time, a window of the zone's clock is
    /// drawn where the audit applied it: `0300-0400` in Prague on
    /// 2026-10-25 is 02:00-03:00 UTC, not 01:00-02:00 as the first fetch's
    /// +02:00 would put it.
    #[test]
    fn a_zones_window_follows_its_clock_across_a_dst_change() {
        let zone = crate::accesslog::LogTz::parse("Europe/Prague").unwrap();
        // 2026-10-25T00:00:00Z, in minutes; the change is at 01:00Z.
        let midnight = 1_792_886_400 / 60;
        let offsets = super::super::clock::zone_offsets(
            |minute| zone.offset_at(minute * 60),
            midnight,
            midnight + 359,
        );
        assert_eq!(offsets, [(i64::MIN, 120), (midnight + 60, 60)]);
        let clock = WindowClock {
            name: "Europe/Prague".into(),
            offsets,
        };
        let mut t = traffic(&[(midnight, 1), (midnight + 359, 1)], &[]);
        t.allowed[0].window = Some((180, 240));
        t.allowed[0].floor = None;
        let axis = Axis::new(midnight, midnight + 359, 120);
        let held = held_lines(&t, &axis, &clock);
        let shaded: Vec<i64> = (0..axis.steps)
            .filter(|&i| held[i as usize].is_some())
            .collect();
        assert_eq!(shaded, (120..180).collect::<Vec<i64>>());
        // At the first fetch's offset alone it would have been 60..120.
        let fixed = WindowClock {
            name: "+02:00".into(),
            offsets: vec![(i64::MIN, 120)],
        };
        let held = held_lines(&t, &axis, &fixed);
        assert!(held[60].is_some() && held[120].is_none());
    }
}
