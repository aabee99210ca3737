//! `seconds`, the one-pass reading of Caddy's `ts`, held against
//! `epoch_prefix`'s general reading and against a reading split at the dot;
//! `eight_digits` against every byte (SPEC §1 `json`).

mod seconds_fast_path {
    use super::super::seconds;
    use crate::accesslog::time::epoch_prefix;
    use proptest::prelude::*;

    proptest! {
        /// Caddy's `ts` read by hand: what `epoch_prefix` reads from the
        /// whole number, or nothing (then the general path reads it).
        #[test]
        fn seconds_read_as_epoch_prefix_reads_them(raw in "[0-9]{0,20}(\\.[0-9]{0,12})?|[0-9.eE+-]{0,12}") {
            if let Some((time, whole)) = seconds(raw.as_bytes()) {
                let general = epoch_prefix(raw.as_bytes(), 1);
                prop_assert_eq!(general.map(|(t, _)| t), Some(time));
                prop_assert_eq!(general.map(|(_, used)| used), Some(raw.len()));
                // The whole seconds' digits as written, leading zeros too.
                let digits = raw.bytes().take_while(u8::is_ascii_digit).count();
                prop_assert_eq!(whole, digits);
            }
        }
    }

    /// `seconds` as first written: split at the first dot, both halves
    /// checked to be digits, then read.
    fn seconds_split_at_the_dot(raw: &[u8]) -> Option<(i64, u16)> {
        let (whole, fraction) = match raw.iter().position(|&b| b == b'.') {
            Some(dot) => (&raw[..dot], &raw[dot + 1..]),
            None => (raw, &[][..]),
        };
        if whole.is_empty()
            || whole.len() > 18
            || !whole.iter().all(u8::is_ascii_digit)
            || !fraction.iter().all(u8::is_ascii_digit)
        {
            return None;
        }
        let unix = whole
            .iter()
            .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
        (unix < 253_402_300_800).then(|| (unix, super::super::fraction_millis(fraction)))
    }

    proptest! {
        /// The one-pass reading refuses and reads exactly what the split
        /// one does.
        #[test]
        fn seconds_read_in_one_pass_as_split_at_the_dot(raw in "[0-9]{0,20}(\\.[0-9]{0,5}){0,2}|[0-9.eE+ a-]{0,12}") {
            prop_assert_eq!(
                seconds(raw.as_bytes()).map(|(t, _)| (t.unix, t.millis)),
                seconds_split_at_the_dot(raw.as_bytes())
            );
        }
    }

    /// Eight bytes are digits exactly when each is, whatever byte stands
    /// anywhere among them; and their value is the number they spell.
    #[test]
    fn eight_digits_read_as_one_word() {
        use super::super::{eight_digits, eight_digits_value};
        for at in 0..8 {
            for byte in 0..=255u8 {
                let mut text = *b"51937264";
                text[at] = byte;
                assert_eq!(
                    eight_digits(u64::from_le_bytes(text)),
                    byte.is_ascii_digit(),
                    "{text:?}"
                );
            }
        }
        let mut n: u32 = 0;
        while n < 100_000_000 {
            let text = format!("{n:08}");
            let word = u64::from_le_bytes(text.as_bytes().try_into().unwrap());
            assert_eq!(eight_digits_value(word), n, "{text}");
            n += 7_919;
        }
        let word = u64::from_le_bytes(*b"99999999");
        assert_eq!(eight_digits_value(word), 99_999_999);
    }

    #[test]
    fn caddy_timestamps() {
        let (time, whole) = seconds(b"1646861401.5241024").expect("read");
        assert_eq!(whole, 10);
        assert_eq!(
            (time.unix, time.millis, time.offset_min),
            (1_646_861_401, 524, 0)
        );
        assert_eq!(seconds(b"1646861401").map(|(t, _)| t.millis), Some(0));
        for other in ["", ".5", "1.2.3", "-1", "1e3", "9999999999999999999"] {
            assert_eq!(seconds(other.as_bytes()), None, "{other}");
        }
    }
}
