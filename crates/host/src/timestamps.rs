//! Times as the contract writes them: ISO 8601 in UTC with milliseconds (`2026-05-01T12:00:00.000Z`).

/// ISO 8601 UTC of now, millisecond precision.
pub fn now_iso8601() -> String {
    iso8601(time::OffsetDateTime::now_utc())
}

/// ISO 8601 UTC of a time in epoch milliseconds.
pub fn iso8601_from_ms(ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .map(iso8601)
        .unwrap_or_else(|_| ms.to_string())
}

fn iso8601(at: time::OffsetDateTime) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    at.format(&format)
        .unwrap_or_else(|_| at.unix_timestamp().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_in_utc_with_milliseconds() {
        assert_eq!(iso8601_from_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            iso8601_from_ms(1_700_000_000_123),
            "2023-11-14T22:13:20.123Z"
        );
    }
}
