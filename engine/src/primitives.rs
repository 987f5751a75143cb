//! Primitive types of the SDK's shapes, as `aws_sdk_dynamodb::primitives`.
//!
//! [`Blob`] is the bytes of a `B` value (`AttributeValue::B(Blob::new(bytes))`); [`DateTime`]
//! a point in time, as the descriptions report when a table was created.

pub use crate::value::Blob;

/// A point in time, seconds and nanoseconds since the Unix epoch, as the SDK's
/// `aws_smithy_types::DateTime` (the part of it the engine's shapes need: the constructors
/// from seconds and milliseconds, `secs`, `subsec_nanos`, `as_secs_f64`).
///
/// The engine's times are the world's clock on the world's calendar: simulated time since
/// the world started, plus `WorldConfig::epoch_seconds` (by default 2026-01-01T00:00:00Z).
/// Decision: a description carries a real-looking date, not the world's milliseconds since
/// its start (which made a fresh world's tables date from 1970), so code that prints or
/// compares `creation_date_time()` behaves as against the service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime {
    seconds: i64,
    subsecond_nanos: u32,
}

impl DateTime {
    /// Whole seconds since the Unix epoch.
    pub fn from_secs(epoch_seconds: i64) -> DateTime {
        DateTime {
            seconds: epoch_seconds,
            subsecond_nanos: 0,
        }
    }
    /// Milliseconds since the Unix epoch.
    pub fn from_millis(epoch_millis: i64) -> DateTime {
        DateTime {
            seconds: epoch_millis.div_euclid(1000),
            subsecond_nanos: (epoch_millis.rem_euclid(1000) as u32) * 1_000_000,
        }
    }
    /// The whole seconds since the Unix epoch (rounded down).
    pub fn secs(&self) -> i64 {
        self.seconds
    }
    /// The nanoseconds past `secs()`.
    pub fn subsec_nanos(&self) -> u32 {
        self.subsecond_nanos
    }
    /// Seconds since the Unix epoch, with the fraction (how the wire protocol writes it).
    pub fn as_secs_f64(&self) -> f64 {
        self.seconds as f64 + f64::from(self.subsecond_nanos) / 1e9
    }
}
