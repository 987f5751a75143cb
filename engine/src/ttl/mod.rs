//! # Time to Live
//!
//! TTL lets items expire: name a top-level attribute, store in it the time (as epoch
//! **seconds**, a Number) after which the item may go, and DynamoDB deletes it some time
//! later — free of charge, without consuming write capacity.
//!
//! "Some time later" is the lesson: deletion is a background sweep, not an alarm clock.
//! DynamoDB documents "typically within 48 hours" (now "a few days"). Until the sweep gets
//! to it, an expired item is still returned by GetItem, Query and Scan, so applications
//! filter (`#ttl > :now`). An item is eligible when its TTL attribute is a Number of epoch
//! seconds in the past — but not more than five years in the past (a guard against values
//! in the wrong unit or bad data). Milliseconds look like a date far in the future, so such
//! items never expire.
//!
//! A TTL deletion is an ordinary delete for indexes (entries removed) and streams (a
//! `REMOVE` record), marked in the stream with the service's identity
//! (`{"type": "Service", "principalId": "dynamodb.amazonaws.com"}`).
//!
//! The model keeps, per table, an index of items by expiry time, so the sweeper never scans
//! the table. The sweeper runs every `ttl_sweep_interval_s` of simulated time and deletes
//! items expired for at least `ttl_delete_delay_s`.
//!
//! Where it lives: this file keeps the configuration and the expiry index ([`Ttl`], kept up
//! to date by every write); [`sweep`] decides when a sweep runs and what it deletes; the
//! world runs the sweeper with its other background work and deletes through the ordinary
//! write path, so indexes and streams see an ordinary delete.

pub mod sweep;

use std::collections::BTreeSet;

use crate::table::key::StoreKey;
use crate::value::{AttributeValue, Item};

/// TTL configuration and the expiry index of one table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ttl {
    pub attribute: Option<String>,
    /// Simulated ms of the last enable/disable (one change per hour is allowed).
    pub last_change_ms: Option<u64>,
    /// (expiry epoch seconds, key) of every item whose TTL attribute is a valid expiry.
    pub expiries: BTreeSet<(u64, StoreKey)>,
    /// When the sweeper last ran (simulated ms).
    pub last_sweep_ms: Option<u64>,
}

impl Ttl {
    /// Updates the expiry index for one item's change.
    pub fn on_write(&mut self, key: &StoreKey, old: Option<&Item>, new: Option<&Item>) {
        let Some(attr) = &self.attribute else { return };
        if let Some(e) = old.and_then(|o| expiry_of(o, attr)) {
            self.expiries.remove(&(e, key.clone()));
        }
        if let Some(e) = new.and_then(|n| expiry_of(n, attr)) {
            self.expiries.insert((e, key.clone()));
        }
    }

    /// Items eligible for deletion at `now` (epoch seconds), given the model's delay.
    pub fn due(&self, now_epoch_s: u64, delay_s: u64) -> Vec<StoreKey> {
        let floor = now_epoch_s.saturating_sub(FIVE_YEARS_S);
        self.expiries
            .iter()
            .take_while(|(e, _)| e + delay_s <= now_epoch_s)
            .filter(|(e, _)| *e >= floor)
            .map(|(_, k)| k.clone())
            .collect()
    }

    /// The earliest expiry still waiting (for scheduling the next sweep).
    pub fn earliest(&self, now_epoch_s: u64) -> Option<u64> {
        let floor = now_epoch_s.saturating_sub(FIVE_YEARS_S);
        self.expiries.iter().map(|(e, _)| *e).find(|e| *e >= floor)
    }
}

/// The expiry (epoch seconds) an item's TTL attribute holds, if it is a Number.
pub fn expiry_of(item: &Item, attribute: &str) -> Option<u64> {
    match item.get(attribute)? {
        AttributeValue::N(n) => {
            let number = crate::value::Number::parse(n).ok()?;
            if number.is_negative() {
                return None;
            }
            // Fractions of a second round down.
            let whole = number.to_f64_lossy().floor();
            (whole < 1e15).then_some(whole as u64)
        }
        _ => None,
    }
}

/// Items expired more than five years ago are never deleted.
pub const FIVE_YEARS_S: u64 = 5 * 365 * 24 * 3600;
