//! Hidden tests of the `ttl-sweeper` kata.
//!
//! Every test runs one workload twice, in two worlds built from the same seed and settings:
//! one with the engine's TTL sweeper, one with the learner's (`Pieces::with_ttl_sweeper`).
//! The workload writes the table `sessions` (`PK`, TTL on `expires_at`, a stream with both
//! images) and moves the clock; unless the test is about quiet worlds, the clock stops at every
//! sweep boundary on its way, so both worlds sweep at the same instants whatever the pieces'
//! `next_due` says. Afterwards the tests read each world's stream and compare its TTL deletes
//! (`REMOVE` records with the service's identity): which item, at which sweep. The first
//! difference fails the test, told with the item's story as the test wrote it.
//!
//! - `the_lessons_session_goes_at_the_first_sweep_after_expiry_and_delay`: the lesson's
//!   session, expiring a minute on, at a seeded time into the hour; it is still returned two
//!   minutes later in both worlds.
//! - `only_numbers_of_epoch_seconds_expire`: items written before TTL is enabled and after,
//!   with TTL values of every kind (seconds, fractions, exponent notation, Strings, milliseconds,
//!   negative, Bool, Null, List, none, four and six years old, five years and a second).
//! - `an_item_is_due_once_its_expiry_is_the_delay_in_the_past`: expiries one second before, at
//!   and one second after `boundary − delay`, and long past, under seeded delays and intervals.
//! - `a_rescued_item_is_never_deleted`: items made due, then rescued moments before the sweep
//!   (refreshed to the future, refreshed to the recent past, attribute removed, replaced
//!   without one, deleted and put back), then left to expire again.
//! - `a_quiet_world_still_sweeps`: writes, then `settle`: no request, no boundary stop; each
//!   world sweeps when its piece's `next_due` asks.
//! - `seeded_workloads_match_dynamodb`: random puts, refreshes, removals and deletes over 16
//!   simulated hours, seeded delays and intervals.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use engine::seams::{Learners, Pieces};
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, OperationType,
    ScalarAttributeType, ShardIteratorType, StreamSpecification, StreamViewType,
    TimeToLiveSpecification,
};
use engine::{AttributeValue, Client, Item, World, WorldConfig};
use given::{TtlSweeper, FIVE_YEARS_S, TABLE, TTL_ATTRIBUTE};
use katas_testkit::{check, fail, run, seeded, wrap, Rng};

katas_testkit::learner! {
    /// The learner's TTL sweeper.
    fn ttl_sweeper() -> Box<dyn TtlSweeper>;
}

/// Runs the hidden tests against the learner's sweeper (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded(
            "the_lessons_session_goes_at_the_first_sweep_after_expiry_and_delay",
            the_lessons_session,
        ),
        seeded("only_numbers_of_epoch_seconds_expire", only_numbers_expire),
        seeded(
            "an_item_is_due_once_its_expiry_is_the_delay_in_the_past",
            due_after_the_delay,
        ),
        seeded("a_rescued_item_is_never_deleted", rescued_items),
        seeded("a_quiet_world_still_sweeps", quiet_world),
        seeded("seeded_workloads_match_dynamodb", seeded_workloads),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

fn the_lessons_session(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed, 3600, 3600, true);
    s.advance(1 + rng.below(3599));
    let now = s.now();
    s.put("SESSION#s-1", Some(n(now + 60)));
    s.advance(120);
    for (world, whose) in [(&s.engine, "DynamoDB's"), (&s.yours, "your")] {
        let item = get(&world.client(), "SESSION#s-1");
        check(
            item.is_some(),
            format!(
                "Two minutes after the session was written, with an expiry one minute on, it is \
                 gone from {whose} world. An expired item stays until a sweep at least the \
                 delete delay (here {} s) after its expiry deletes it; until then reads return \
                 it.",
                s.delay
            ),
        );
    }
    s.advance(3 * 3600);
    s.compare("the lesson's session (expires a minute after it is written)");
    let removes = service_removes(&s.yours);
    check(
        removes.len() == 1,
        "Three hours on, DynamoDB has deleted the session (one REMOVE by the TTL service); your \
         world's stream has no such record.",
    );
}

fn only_numbers_expire(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed, 3600, 3600, false);
    s.advance(rng.below(3600));
    let now = s.now();
    let year = 365 * 24 * 3600;
    let values: Vec<(&str, Option<AttributeValue>)> = vec![
        ("seconds-past", Some(n(now - 3 * 3600))),
        ("seconds-soon", Some(n(now + 600))),
        ("seconds-later", Some(n(now + 5 * 3600))),
        (
            "fraction",
            Some(AttributeValue::N(format!("{}.75", now - 7200))),
        ),
        (
            "exponent",
            Some(AttributeValue::N(format!("{}E2", (now - 7200) / 100))),
        ),
        (
            "string-digits",
            Some(AttributeValue::S((now - 7200).to_string())),
        ),
        ("string-word", Some(AttributeValue::S("yesterday".into()))),
        ("millis-past", Some(n((now - 7200) * 1000))),
        ("millis-soon", Some(n((now + 60) * 1000))),
        ("negative", Some(AttributeValue::N("-7200".into()))),
        ("bool", Some(AttributeValue::Bool(true))),
        ("null", Some(AttributeValue::Null(true))),
        ("list", Some(AttributeValue::L(vec![n(now - 7200)]))),
        ("none", None),
        ("four-years-old", Some(n(now - 4 * year))),
        ("six-years-old", Some(n(now - 6 * year))),
        // Five years and a second old now, and older at every sweep to come: kept. A five-year
        // guard measured from the item's due time (expiry + delay) instead of its expiry
        // deletes it at the first sweep within the delay (3600 s here, one interval).
        (
            "five-years-and-a-second-old",
            Some(n(now - FIVE_YEARS_S - 1)),
        ),
    ];
    // Half the items exist before TTL is enabled (the sweeper learns of them then).
    let before = rng.below(values.len() as u64) as usize;
    for (name, v) in &values[..before] {
        s.put(&format!("before#{name}"), v.clone());
    }
    s.enable_ttl();
    for (name, v) in &values[before..] {
        s.put(&format!("after#{name}"), v.clone());
    }
    s.advance(8 * 3600);
    s.compare("items with TTL values of every kind");
}

/// Seeded (delay, interval) pairs: the world's TTL settings are not always an hour.
fn settings(rng: &mut Rng) -> (u64, u64) {
    [
        (3600, 3600),
        (600, 300),
        (1800, 900),
        (7200, 3600),
        (900, 1800),
    ][rng.below(5) as usize]
}

fn due_after_the_delay(seed: u64) {
    let mut rng = Rng::new(seed);
    let (delay, interval) = settings(&mut rng);
    let mut s = Scene::new(seed, delay, interval, true);
    s.advance(rng.below(interval));
    let now = s.now();
    // The boundary a few intervals on, and expiries around boundary − delay.
    let boundary = (now / interval + 3) * interval;
    let edge = boundary - delay;
    s.put("edge-1s-before", Some(n(edge - 1)));
    s.put("edge-exact", Some(n(edge)));
    s.put("edge-1s-after", Some(n(edge + 1)));
    s.put("long-past-week", Some(n(now - 7 * 24 * 3600)));
    s.put("long-past-year", Some(n(now - 365 * 24 * 3600)));
    s.put("past-within-delay", Some(n(now - delay / 2)));
    s.put("future", Some(n(now + 1 + rng.below(4 * interval))));
    s.advance(6 * interval + delay);
    s.compare(&format!(
        "expiries around a sweep boundary minus the delay (delay {delay} s, a sweep every \
         {interval} s)"
    ));
}

fn rescued_items(seed: u64) {
    let mut rng = Rng::new(seed);
    let (delay, interval) = settings(&mut rng);
    let mut s = Scene::new(seed, delay, interval, true);
    s.advance(rng.below(interval));
    let rescues = [
        "refreshed",
        "refreshed-to-recent-past",
        "ttl-removed",
        "replaced-without-ttl",
        "deleted-and-put-back",
        "replaced-by-string",
    ];
    for (i, name) in rescues.iter().enumerate() {
        let now = s.now();
        s.put(
            &format!("session#{i}-{name}"),
            Some(n(now + 30 + rng.below(60))),
        );
    }
    // Let them become due, then rescue each just before the sweep that would delete them.
    let now = s.now();
    let deletable = now + 90 + delay;
    let sweep = deletable.div_ceil(interval) * interval;
    s.advance_to(sweep - 1 - rng.below(3));
    for (i, name) in rescues.iter().enumerate() {
        let key = format!("session#{i}-{name}");
        let now = s.now();
        match *name {
            "refreshed" => s.update_set(&key, n(now + 2 * interval + delay)),
            "refreshed-to-recent-past" => s.update_set(&key, n(now - delay / 3)),
            "ttl-removed" => s.update_remove(&key),
            "replaced-without-ttl" => s.put(&key, None),
            "deleted-and-put-back" => {
                s.delete(&key);
                s.put(&key, Some(n(now + 3 * interval)));
            }
            _ => s.put(&key, Some(AttributeValue::S((now - 3600).to_string()))),
        }
    }
    s.advance(8 * interval + 2 * delay);
    s.compare("items rescued just before the sweep that would have deleted them");
}

fn quiet_world(seed: u64) {
    let mut rng = Rng::new(seed);
    let (delay, interval) = settings(&mut rng);
    let mut s = Scene::new(seed, delay, interval, true);
    s.advance(rng.below(interval));
    let now = s.now();
    for i in 0..8 {
        let expiry = now + rng.below(6 * interval) - interval.min(now);
        s.put(&format!("quiet#{i}"), Some(n(expiry)));
    }
    // No request, no stop at the boundaries: the world sweeps when next_due says.
    s.settle();
    s.compare("items written once, then world.settle() (background work until none is pending)");
}

fn seeded_workloads(seed: u64) {
    let mut rng = Rng::new(seed);
    let (delay, interval) = settings(&mut rng);
    let mut s = Scene::new(seed, delay, interval, rng.below(4) != 0);
    let keys = 12;
    let end = s.now() + 16 * 3600;
    let mut enabled = s.enabled;
    while s.now() < end {
        let key = format!("user#{}", rng.below(keys));
        let now = s.now();
        let ttl = match rng.below(10) {
            0 => Some(AttributeValue::S(now.to_string())),
            1 => Some(n(now * 1000)),
            2 => None,
            3 => Some(n(now.saturating_sub(rng.below(2 * delay)))),
            _ => Some(n(now + rng.below(3 * interval))),
        };
        match rng.below(8) {
            0 => s.delete(&key),
            1 => s.update_remove(&key),
            2 | 3 => match ttl {
                Some(v) => s.update_set(&key, v),
                None => s.update_remove(&key),
            },
            _ => s.put(&key, ttl),
        }
        if !enabled && rng.below(20) == 0 {
            s.enable_ttl();
            enabled = true;
        }
        s.advance(1 + rng.below(interval / 2));
    }
    s.advance(2 * interval + delay);
    s.compare(&format!(
        "a seeded workload over 16 simulated hours (delay {delay} s, a sweep every {interval} s)"
    ));
}

// ---------------------------------------------------------------------------------------
// The scene: two worlds, one workload
// ---------------------------------------------------------------------------------------

/// One write as the test made it: when, which request, the TTL value it left (`None`: no
/// attribute; `gone` when the item was deleted).
struct Event {
    at: u64,
    what: &'static str,
    value: Option<AttributeValue>,
    gone: bool,
}

struct Scene {
    engine: World,
    yours: World,
    delay: u64,
    interval: u64,
    epoch0: u64,
    enabled: bool,
    /// Whether the clock was moved by `settle` (no stop at the boundaries).
    quiet: bool,
    history: BTreeMap<String, Vec<Event>>,
}

impl Scene {
    /// Two worlds from `seed` with these TTL settings, the table created (TTL enabled if
    /// `enabled`).
    fn new(seed: u64, delay: u64, interval: u64, enabled: bool) -> Scene {
        let config = WorldConfig {
            seed,
            ttl_delete_delay_s: delay,
            ttl_sweep_interval_s: interval,
            ..WorldConfig::default()
        };
        let pieces =
            Pieces::default().with_ttl_sweeper(Arc::new(Learners::new(learner::ttl_sweeper)));
        let epoch0 = config.epoch_seconds;
        let mut s = Scene {
            engine: World::with_config(config.clone()),
            yours: World::with_pieces(config, pieces),
            delay,
            interval,
            epoch0,
            enabled: false,
            quiet: false,
            history: BTreeMap::new(),
        };
        for w in [&s.engine, &s.yours] {
            create_table(&w.client());
        }
        if enabled {
            s.enable_ttl();
        }
        s
    }

    fn worlds(&self) -> [Client; 2] {
        [self.engine.client(), self.yours.client()]
    }

    fn now(&self) -> u64 {
        self.engine.epoch_seconds()
    }

    fn enable_ttl(&mut self) {
        for c in self.worlds() {
            c.update_time_to_live()
                .table_name(TABLE)
                .time_to_live_specification(TimeToLiveSpecification::new(true, TTL_ATTRIBUTE))
                .send()
                .unwrap_or_else(|e| fail(format!("enabling TTL failed: {e}")));
        }
        self.enabled = true;
    }

    fn record(&mut self, key: &str, what: &'static str, value: Option<AttributeValue>, gone: bool) {
        let at = self.now();
        self.history
            .entry(key.to_string())
            .or_default()
            .push(Event {
                at,
                what,
                value,
                gone,
            });
    }

    fn put(&mut self, key: &str, ttl: Option<AttributeValue>) {
        for c in self.worlds() {
            let mut item = Item::new();
            item.insert("PK".into(), AttributeValue::S(key.into()));
            item.insert("data".into(), AttributeValue::S("x".into()));
            if let Some(v) = &ttl {
                item.insert(TTL_ATTRIBUTE.into(), v.clone());
            }
            c.put_item()
                .table_name(TABLE)
                .set_item(Some(item))
                .send()
                .unwrap_or_else(|e| fail(format!("PutItem failed: {e}")));
        }
        self.record(key, "PutItem", ttl, false);
    }

    fn update_set(&mut self, key: &str, ttl: AttributeValue) {
        for c in self.worlds() {
            c.update_item()
                .table_name(TABLE)
                .key("PK", AttributeValue::S(key.into()))
                .update_expression("SET #t = :t")
                .expression_attribute_names("#t", TTL_ATTRIBUTE)
                .expression_attribute_values(":t", ttl.clone())
                .send()
                .unwrap_or_else(|e| fail(format!("UpdateItem failed: {e}")));
        }
        self.record(key, "UpdateItem SET", Some(ttl), false);
    }

    fn update_remove(&mut self, key: &str) {
        for c in self.worlds() {
            c.update_item()
                .table_name(TABLE)
                .key("PK", AttributeValue::S(key.into()))
                .update_expression("REMOVE #t")
                .expression_attribute_names("#t", TTL_ATTRIBUTE)
                .send()
                .unwrap_or_else(|e| fail(format!("UpdateItem failed: {e}")));
        }
        self.record(key, "UpdateItem REMOVE", None, false);
    }

    fn delete(&mut self, key: &str) {
        for c in self.worlds() {
            c.delete_item()
                .table_name(TABLE)
                .key("PK", AttributeValue::S(key.into()))
                .send()
                .unwrap_or_else(|e| fail(format!("DeleteItem failed: {e}")));
        }
        self.record(key, "DeleteItem", None, true);
    }

    /// Moves both clocks by `secs`, stopping at every sweep boundary on the way (where each
    /// world sweeps, whatever its piece's `next_due`).
    fn advance(&mut self, secs: u64) {
        self.advance_to(self.now() + secs);
    }

    fn advance_to(&mut self, target: u64) {
        loop {
            let now = self.now();
            let boundary = ((now - self.epoch0) / self.interval + 1) * self.interval + self.epoch0;
            let to = boundary.min(target);
            if to <= now {
                return;
            }
            for w in [&self.engine, &self.yours] {
                w.advance(Duration::from_secs(to - now));
            }
        }
    }

    /// `settle` in both worlds: no request; each world runs its background work until none
    /// is pending, sweeping at the times its piece's `next_due` gives.
    fn settle(&mut self) {
        self.quiet = true;
        for w in [&self.engine, &self.yours] {
            w.settle();
        }
    }

    /// Compares the two worlds' TTL deletes; the first difference fails the test.
    fn compare(&self, workload: &str) {
        let ours = service_removes(&self.engine);
        let yours = service_removes(&self.yours);
        if ours == yours {
            return;
        }
        let first = ours
            .iter()
            .filter(|r| !yours.contains(r))
            .chain(yours.iter().filter(|r| !ours.contains(r)))
            .min()
            .cloned()
            .unwrap_or_default();
        let (at, key) = first;
        let when_yours = yours.iter().find(|(_, k)| *k == key).map(|(t, _)| *t);
        let when_ours = ours.iter().find(|(_, k)| *k == key).map(|(t, _)| *t);
        let (headline, cause) = if when_yours == Some(at) && when_ours != Some(at) {
            (
                format!(
                    "Sweep at {}, item {key}: yours deleted it; DynamoDB {}.",
                    self.clock(at),
                    match when_ours {
                        Some(t) => format!("deletes it only at the sweep at {}", self.clock(t)),
                        None => "keeps it".to_string(),
                    }
                ),
                self.why_not_due(&key, at),
            )
        } else {
            (
                format!(
                    "Sweep at {}, item {key}: DynamoDB deletes it; yours {}.",
                    self.clock(at),
                    match when_yours {
                        Some(t) if t < at => format!("had deleted it already at {}", self.clock(t)),
                        Some(t) => format!("deleted it only at the sweep at {}", self.clock(t)),
                        None => "never deleted it (it is still in the table)".to_string(),
                    }
                ),
                self.why_due(&key, at, when_yours),
            )
        };
        fail(format!(
            "{}\n\n{}\n\n{}\n\nThe workload: {workload}; sweeps every {} s, items deletable {} s \
             after expiry. Times are the simulated clock (hh:mm:ss from the start), epoch \
             seconds in brackets.",
            wrap(&headline),
            self.story(&key, at),
            wrap(&cause),
            self.interval,
            self.delay
        ));
    }

    /// The TTL value `key` had at the sweep at `at` (the last write before it), and that write.
    fn value_at(&self, key: &str, at: u64) -> Option<&Event> {
        self.history.get(key)?.iter().rev().find(|e| e.at <= at)
    }

    /// Why DynamoDB does not delete `key` at the sweep at `at` (which yours did).
    fn why_not_due(&self, key: &str, at: u64) -> String {
        let Some(last) = self.value_at(key, at) else {
            return "The test never wrote this item.".into();
        };
        let written = format!("the {} at {}", last.what, self.clock(last.at));
        let Some(value) = &last.value else {
            let had = self.history[key]
                .iter()
                .any(|e| e.value.is_some() && e.at <= last.at);
            return if had {
                format!(
                    "It had no TTL attribute any more: {written} left the item without \
                     {TTL_ATTRIBUTE}. An item without the attribute never expires — an \
                     expiry your sweeper saw earlier no longer holds, so check the item as it is \
                     now (sweep.ttl_value) before deleting it."
                )
            } else {
                format!(
                    "It never had a TTL attribute: an item without {TTL_ATTRIBUTE} never expires."
                )
            };
        };
        let AttributeValue::N(text) = value else {
            return format!(
                "Its TTL attribute is {} ({written}): only a Number is an expiry; DynamoDB \
                 ignores any other type, even a String of digits.",
                show(value)
            );
        };
        let Ok(number) = text.parse::<f64>() else {
            return format!(
                "Its TTL attribute is {}: not a number DynamoDB reads.",
                show(value)
            );
        };
        if number < 0.0 {
            return format!("Its TTL attribute is {text}: a negative number is not an expiry.");
        }
        let e = number.floor() as u64;
        if e > 100_000_000_000 {
            return format!(
                "Its TTL attribute is {text}: as epoch seconds that is some {} years from now \
                 (it is in milliseconds), so it never expires. DynamoDB does not guess units.",
                thousands_u((e - at) / (365 * 24 * 3600))
            );
        }
        let earlier_due = self.history[key]
            .iter()
            .filter(|ev| ev.at < last.at)
            .any(|ev| {
                ev.value
                    .as_ref()
                    .and_then(expiry)
                    .is_some_and(|x| x + self.delay <= at)
            });
        if e > at {
            return format!(
                "It was not expired: {written} had set its TTL to {} — it expires then.{}",
                self.clock(e),
                if earlier_due {
                    " An earlier expiry your sweeper saw no longer holds (the item was \
                     rescued): decide on the item as it is at the sweep (sweep.ttl_value), not \
                     on what was written before."
                } else {
                    ""
                }
            );
        }
        if e + self.delay > at {
            return format!(
                "It expired at {} ({written}), only {} s before the sweep: an item is deletable \
                 once its expiry is at least the delay ({} s, sweep.delay_s()) in the past — \
                 from {}.{}",
                self.clock(e),
                at - e,
                self.delay,
                self.clock(e + self.delay),
                if earlier_due {
                    " Its earlier expiry was due, but the write replaced it: what counts is the \
                     expiry the item has at the sweep, with the delay."
                } else {
                    ""
                }
            );
        }
        if e < at.saturating_sub(FIVE_YEARS_S) {
            return format!(
                "It expired at {} — more than five years before the sweep. DynamoDB never \
                 deletes such items (FIVE_YEARS_S: a guard against bad data).",
                self.clock(e)
            );
        }
        format!("Its TTL value {text} was written by {written}.")
    }

    /// Why DynamoDB deletes `key` at the sweep at `at` (which yours did not).
    fn why_due(&self, key: &str, at: u64, yours: Option<u64>) -> String {
        let Some(last) = self.value_at(key, at) else {
            return "The test never wrote this item.".into();
        };
        let value = last.value.clone().unwrap_or(AttributeValue::Null(true));
        let e = expiry(&value).unwrap_or_default();
        let mut why = format!(
            "Its TTL attribute is {} (written by the {} at {}): it expired at {}, {} s before \
             the sweep — at least the delay ({} s) and less than five years ago, so it is due.",
            show(&value),
            last.what,
            self.clock(last.at),
            self.clock(e),
            thousands_u(at - e),
            self.delay
        );
        if let AttributeValue::N(t) = &value {
            if t.contains('.') {
                why.push_str(" A Number with a fraction is an expiry: the fraction is dropped.");
            }
            if t.contains('E') || t.contains('e') {
                why.push_str(" A Number in exponent notation is a Number like any other.");
            }
        }
        if e + self.delay == at {
            why.push_str(
                " Its expiry + delay is exactly the sweep's time: due (expiry + delay <= now).",
            );
        }
        if e + self.delay + self.interval < at || last.at >= e + self.delay {
            why.push_str(&format!(
                " It was already {} s past due when the sweep before this one ran (or when it \
                 was written): an item expired long ago — within five years — is due at the \
                 very first sweep.",
                thousands_u(at.saturating_sub(e + self.delay + self.interval))
            ));
        }
        if let Some(t) = yours {
            if t < at {
                return format!("Yours deleted it too early. {}", self.why_not_due(key, t));
            }
        }
        if self.quiet {
            why.push_str(
                " The world was settling (no request, background work until none is pending): \
                 it sweeps only at the times the sweeper's next_due gives. Return the earliest \
                 time an entry of the index becomes due (expiry + delay).",
            );
        }
        why
    }

    /// The item's story up to a little after `at`: its writes and the sweep.
    fn story(&self, key: &str, at: u64) -> String {
        let mut lines = vec![format!("  item {key}")];
        let events = self.history.get(key).map(Vec::as_slice).unwrap_or_default();
        let mut swept = false;
        for e in events.iter().filter(|e| e.at <= at + self.interval) {
            if e.at > at && !swept {
                lines.push(format!("  {}  sweep", self.short(at)));
                swept = true;
            }
            let value = if e.gone {
                "(item deleted)".to_string()
            } else {
                match &e.value {
                    Some(v) => format!("{TTL_ATTRIBUTE} = {}{}", show(v), self.when(v)),
                    None => format!("no {TTL_ATTRIBUTE}"),
                }
            };
            lines.push(format!("  {}  {:<18} {value}", self.short(e.at), e.what));
        }
        if !swept {
            lines.push(format!("  {}  sweep", self.short(at)));
        }
        lines.join("\n")
    }

    /// " (hh:mm:ss)" for a value that is an expiry near the run, else "".
    fn when(&self, v: &AttributeValue) -> String {
        match expiry(v) {
            Some(e) if e < 100_000_000_000 => format!(", expires {}", self.short(e)),
            _ => String::new(),
        }
    }

    /// [`Scene::clock`] without the epoch seconds (for the story's lines).
    fn short(&self, t: u64) -> String {
        let long = self.clock(t);
        long.split(" [").next().unwrap_or_default().to_string()
    }

    /// The simulated clock at epoch second `t`: "hh:mm:ss [t]", or a distance in days.
    fn clock(&self, t: u64) -> String {
        if t < self.epoch0 {
            return format!("{} days before the start [{t}]", (self.epoch0 - t) / 86_400);
        }
        let s = t - self.epoch0;
        if s >= 7 * 86_400 {
            return format!("{} days after the start [{t}]", s / 86_400);
        }
        format!("{:02}:{:02}:{:02} [{t}]", s / 3600, s / 60 % 60, s % 60)
    }
}

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn n(v: u64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// What DynamoDB reads as an expiry (epoch seconds), for the explanations.
fn expiry(v: &AttributeValue) -> Option<u64> {
    match v {
        AttributeValue::N(t) => t
            .parse::<f64>()
            .ok()
            .filter(|f| *f >= 0.0)
            .map(|f| f as u64),
        _ => None,
    }
}

fn show(v: &AttributeValue) -> String {
    match v {
        AttributeValue::N(t) => format!("{t} (N)"),
        AttributeValue::S(t) => format!("\"{t}\" (S)"),
        AttributeValue::Bool(b) => format!("{b} (BOOL)"),
        AttributeValue::Null(_) => "NULL".into(),
        other => format!("{other:?}"),
    }
}

fn thousands_u(v: u64) -> String {
    katas_testkit::thousands(i128::from(v))
}

fn create_table(c: &Client) {
    c.create_table()
        .table_name(TABLE)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(StreamSpecification::enabled(
            StreamViewType::NewAndOldImages,
        ))
        .send()
        .unwrap_or_else(|e| fail(format!("CreateTable failed: {e}")));
}

fn get(c: &Client, key: &str) -> Option<Item> {
    c.get_item()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(key.into()))
        .consistent_read(true)
        .send()
        .unwrap_or_else(|e| fail(format!("GetItem failed: {e}")))
        .into_item()
}

/// The TTL service's deletes in a world's stream: (epoch second, item), sorted. A REMOVE
/// record without the service's identity is the user's; every other record is a write.
fn service_removes(world: &World) -> Vec<(u64, String)> {
    let c = world.client();
    let streams = c
        .list_streams()
        .table_name(TABLE)
        .send()
        .unwrap_or_else(|e| fail(format!("ListStreams failed: {e}")));
    let arn = streams.streams()[0]
        .stream_arn()
        .unwrap_or_default()
        .to_string();
    let d = c
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .unwrap_or_else(|e| fail(format!("DescribeStream failed: {e}")));
    let mut out = Vec::new();
    for shard in d
        .stream_description()
        .map(|d| d.shards())
        .unwrap_or_default()
    {
        let mut it = c
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(shard.shard_id().unwrap_or_default())
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .unwrap_or_else(|e| fail(format!("GetShardIterator failed: {e}")))
            .shard_iterator()
            .map(str::to_string);
        while let Some(i) = it {
            let page = c
                .get_records()
                .shard_iterator(i)
                .send()
                .unwrap_or_else(|e| fail(format!("GetRecords failed: {e}")));
            if page.records().is_empty() {
                break;
            }
            for r in page.records() {
                if r.event_name == OperationType::Remove && r.is_ttl_delete() {
                    let key = match r.keys().get("PK") {
                        Some(AttributeValue::S(k)) => k.clone(),
                        other => format!("{other:?}"),
                    };
                    out.push((r.dynamodb.approximate_creation_date_time, key));
                }
            }
            it = page.next_shard_iterator().map(str::to_string);
        }
    }
    out.sort();
    out
}
