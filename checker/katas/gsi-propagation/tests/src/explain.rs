//! Telling a difference in DynamoDB's terms, and checking the rules directly.
//!
//! A difference between the worlds is traced to the learner's answer that caused it: the
//! first question (an index, the item before and after) whose answer has another *effect*
//! than DynamoDB's — other entries left in the index, or other units charged. (Answers that
//! differ only in an order that changes nothing are not a cause.) The cause given is read off
//! the evidence — which attributes the item has, what each entry holds, how many bytes it
//! weighs — and stated only when the evidence shows it.
//!
//! The direct checks are the rules written once more, here, without the engine: after
//! every request, what it cost each index; once settled, which items each index holds and
//! what each entry keeps.

use std::collections::BTreeMap;
use std::sync::Arc;

use engine::{item_size, AttributeValue, Item};
use given::{ProjectionType, ScalarAttributeType};
use katas_testkit::{thousands, wrap, Failure};

use crate::scene::{def, table_key, Call, Def, Key, Scene, Written};

// ---------------------------------------------------------------------------------------
// The rules, written once more for the direct checks
// ---------------------------------------------------------------------------------------

fn accepts(t: ScalarAttributeType, v: &AttributeValue) -> bool {
    matches!(
        (t, v),
        (ScalarAttributeType::S, AttributeValue::S(_))
            | (ScalarAttributeType::N, AttributeValue::N(_))
            | (ScalarAttributeType::B, AttributeValue::B(_))
    )
}

/// The item's key in the index, if it is in it.
pub fn index_key(d: &Def, item: &Item) -> Option<Key> {
    let pk = item.get(d.pk.0).filter(|v| accepts(d.pk.1.clone(), v))?;
    let sk = match &d.sk {
        Some((name, t)) => Some(item.get(*name).filter(|v| accepts(t.clone(), v))?.clone()),
        None => None,
    };
    Some((pk.clone(), sk))
}

fn kept(d: &Def, name: &str) -> bool {
    d.projection == ProjectionType::All
        || ["PK", "SK"].contains(&name)
        || d.key_names().contains(&name)
        || (d.projection == ProjectionType::Include && d.include.contains(&name))
}

/// The entry the index holds for `item`.
pub fn entry(d: &Def, item: &Item) -> Item {
    item.iter()
        .filter(|(n, _)| kept(d, n))
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect()
}

fn write_units(entry: &Item) -> f64 {
    item_size(entry).div_ceil(1024).max(1) as f64
}

/// What a change from `old` to `new` costs the index, by the rules.
fn units(d: &Def, old: Option<&Item>, new: Option<&Item>) -> f64 {
    let placed = |i: Option<&Item>| i.and_then(|i| index_key(d, i).map(|k| (k, entry(d, i))));
    match (placed(old), placed(new)) {
        (None, None) => 0.0,
        (Some((_, e)), None) | (None, Some((_, e))) => write_units(&e),
        (Some((k1, e1)), Some((k2, e2))) if k1 != k2 => write_units(&e1) + write_units(&e2),
        (Some((_, e1)), Some((_, e2))) if e1 == e2 => 0.0,
        (Some(_), Some((_, e2))) => write_units(&e2),
    }
}

// ---------------------------------------------------------------------------------------
// The direct checks
// ---------------------------------------------------------------------------------------

/// The units the request at `at` cost each index, in the learner's world, against the rules
/// (the items before and after are the ones the engine showed the learner's piece).
pub fn check_units(s: &Scene, at: usize) {
    let sent = &s.sent[at];
    if sent.yours.result.is_err() {
        return;
    }
    let transactional = matches!(sent.op, crate::scene::Op::Transact(_));
    let calls = s.calls();
    for d in &s.indexes {
        // The first question about each item and index is the admission's (the commit asks
        // the same again).
        let mut seen = Vec::new();
        let mut expected = 0.0;
        for call in calls[sent.calls.clone()]
            .iter()
            .filter(|c| c.shape.name == d.name)
        {
            let item = call.item_key();
            if seen.contains(&item) {
                continue;
            }
            seen.push(item);
            expected += units(d, call.old.as_deref(), call.new.as_deref());
        }
        if transactional {
            expected *= 2.0;
        }
        let charged = sent.yours.units(d.name);
        if charged != expected {
            Failure::new(format!(
                "{}\n\nThe rules charge {} ({}) {} WCU for this request; your world charged {}.",
                headline(s, at),
                d.name,
                d.describe(),
                number(expected),
                number(charged)
            ))
            .raise();
        }
    }
}

/// What the learner's index holds, against the rules: exactly the items with its key, each
/// entry exactly what the projection keeps.
pub fn check_contents(
    s: &Scene,
    d: &Def,
    table: &BTreeMap<(String, String), Item>,
    yours: &BTreeMap<(String, String), Item>,
) {
    for (key, item) in table {
        let expected = index_key(d, item).map(|_| entry(d, item));
        let actual = yours.get(key);
        if expected.as_ref() != actual {
            let why = match (&expected, actual) {
                (Some(_), None) => format!(
                    "{} has {}, so it belongs in {}; your index has no entry for it.",
                    key.0,
                    key_values(d, item),
                    d.name
                ),
                (None, Some(_)) => format!(
                    "{} {} — it does not belong in {}; your index holds an entry for it.",
                    key.0,
                    missing_key(d, item),
                    d.name
                ),
                _ => format!(
                    "{} keeps {}; your entry for {} differs.",
                    d.name,
                    d.describe(),
                    key.0
                ),
            };
            Failure::compare(
                format!(
                    "Once both worlds settled ({}), {} does not hold what the rules say. \
                     {why}{EXPECTED_ENTRY}",
                    s.workload, d.name,
                ),
                expected.map_or("(no entry)".into(), |e| item_text(&e)),
                actual.map_or("(no entry)".into(), item_text),
            )
            .raise();
        }
    }
    if let Some(key) = yours.keys().find(|k| !table.contains_key(k)) {
        Failure::new(format!(
            "Once both worlds settled ({}), {} holds an entry for {}, an item the table no \
             longer has.",
            s.workload, d.name, key.0,
        ))
        .raise();
    }
}

// ---------------------------------------------------------------------------------------
// Differences between the worlds
// ---------------------------------------------------------------------------------------

/// The request at `at` showed something else in the two worlds.
pub fn request_differs(s: &Scene, at: usize) -> Failure {
    let sent = &s.sent[at];
    let (ours, yours) = (&sent.dynamodb, &sent.yours);
    let what = if ours.result != yours.result {
        match (&ours.result, &yours.result) {
            (Err(code), Ok(())) => {
                format!("DynamoDB refuses it ({code}); your world admitted it.")
            }
            (Ok(()), Err(code)) => format!("DynamoDB admits it; your world refused it ({code})."),
            (Err(a), Err(b)) => format!("DynamoDB refuses it with {a}; your world with {b}."),
            _ => unreachable!(),
        }
    } else if ours.unprocessed != yours.unprocessed {
        format!(
            "DynamoDB leaves {} of its puts unprocessed (throttled); your world {}.",
            ours.unprocessed, yours.unprocessed
        )
    } else {
        let names: Vec<&String> = ours.indexes.keys().chain(yours.indexes.keys()).collect();
        let index = names
            .into_iter()
            .find(|n| ours.units(n) != yours.units(n))
            .cloned()
            .unwrap_or_default();
        format!(
            "DynamoDB charges {index} {} WCU for it; your world charged {} WCU.",
            number(ours.units(&index)),
            number(yours.units(&index))
        )
    };
    let calls = s.calls();
    let range = sent.calls.clone();
    match calls[range.clone()].iter().find(|c| !same_effect(c)) {
        Some(call) => cause_failure(s, at, &what, call),
        None => {
            let earlier = (0..at)
                .rev()
                .flat_map(|i| s.sent[i].calls.clone().rev())
                .find(|i| !same_effect(&calls[*i]));
            let context = match earlier {
                Some(i) => {
                    let call = &calls[i];
                    let (pk, _) = call.item_key();
                    format!(
                        "Your piece answered this request as DynamoDB does; the difference \
                         comes from an earlier one, in {}: for {pk}, {}",
                        call.shape.name,
                        cause(call)
                    )
                }
                None => "Your piece answered every question of this workload as DynamoDB \
                         does; the worlds differ anyway — does your piece keep state between \
                         calls?"
                    .to_string(),
            };
            Failure::new(format!(
                "{}\n\n{}\n\n{}",
                headline(s, at),
                wrap(&what),
                wrap(&context),
            ))
        }
    }
}

/// After settling, index `d` holds something else in the two worlds.
pub fn contents_differ(
    s: &Scene,
    d: &Def,
    ours: &BTreeMap<(String, String), Item>,
    yours: &BTreeMap<(String, String), Item>,
) -> Failure {
    let key = ours
        .keys()
        .chain(yours.keys())
        .filter(|k| ours.get(*k) != yours.get(*k))
        .min()
        .cloned()
        .unwrap_or_default();
    let (o, y) = (ours.get(&key), yours.get(&key));
    let item = if key.0.is_empty() {
        "an item (the entry lacks the table's key attributes, PK and SK)".to_string()
    } else {
        key.0.clone()
    };
    let what = match (o, y) {
        (Some(_), None) => format!(
            "DynamoDB's {} holds an entry for {item}; yours has none.",
            d.name
        ),
        (None, Some(_)) => format!(
            "Your {} holds an entry for {item}; DynamoDB's has none.",
            d.name
        ),
        _ => format!("The two worlds' entries for {item} in {} differ.", d.name),
    };
    let calls = s.calls();
    // The questions about this item (or, for an entry without a table key, whose answer put
    // exactly that entry).
    let about: Vec<&Call> = calls
        .iter()
        .filter(|c| c.shape.name == d.name)
        .filter(|c| {
            c.item_key() == key
                || y.is_some_and(|e| c.yours.iter().any(|w| w.entry.as_deref() == Some(e)))
        })
        .collect();
    let culprit = about
        .iter()
        .rev()
        .find(|c| !same_effect(c))
        .or(about.last());
    let settled = format!(
        "Once both worlds settled ({}; every change delivered): {what}",
        s.workload
    );
    let message = match culprit {
        Some(call) => format!(
            "{}\n\n{}\n\n{}",
            wrap(&settled),
            story(call),
            wrap(&cause(call))
        ),
        None => wrap(&settled),
    };
    Failure::compare(
        format!("{message}{EXPECTED_ENTRY}"),
        o.map_or("(no entry)".into(), item_text),
        y.map_or("(no entry)".into(), item_text),
    )
}

/// The request at `at` showed the same in both worlds, but the learner's piece answered one
/// of its questions with writes that leave the index holding something else.
pub fn answer_differs(s: &Scene, at: usize, call: &Call) -> Failure {
    let (pk, _) = call.item_key();
    let what = format!(
        "Both worlds gave it the same result and charged the same units, but your piece's \
         writes leave {} holding something else for {pk} than DynamoDB's do.",
        call.shape.name
    );
    cause_failure(s, at, &what, call)
}

fn cause_failure(s: &Scene, at: usize, what: &str, call: &Call) -> Failure {
    Failure::compare(
        format!(
            "{}\n\n{}\n\n{}\n\n{}{EXPECTED_WRITES}",
            headline(s, at),
            wrap(what),
            story(call),
            wrap(&cause(call)),
        ),
        writes_text(&call.dynamodb()),
        writes_text(&call.yours),
    )
}

fn headline(s: &Scene, at: usize) -> String {
    wrap(&format!(
        "Request {} of {} — {}:",
        at + 1,
        s.workload,
        s.sent[at].op.describe()
    ))
}

/// The closing line of a failure that compares DynamoDB's side with the learner's.
const EXPECTED_WRITES: &str =
    "\n\n(Expected: DynamoDB's index writes for this change; actual: yours.)";
const EXPECTED_ENTRY: &str = "\n\n(Expected: DynamoDB's entry; actual: yours.)";

/// The question, in the index's terms: the item before and after, and both answers.
fn story(call: &Call) -> String {
    let d = def(&call.shape.name);
    let (old, new) = (call.old.as_deref(), call.new.as_deref());
    let changed = changed_attributes(old.unwrap_or(&Item::new()), new.unwrap_or(&Item::new()));
    // The attributes that matter here: what the index keeps, and what the write changed.
    let shown = |name: &str| name != "SK" && (kept(d, name) || changed.iter().any(|c| c == name));
    let image = |label: &str, item: Option<&Item>| match item {
        None => format!("  {label:<7} (no item)"),
        Some(i) => format!(
            "  {label:<7} {} — {}",
            item_text_short(i, &shown),
            match index_key(d, i) {
                Some(k) => format!("in the index under {}", key_text(d, &k)),
                None => "not in the index".to_string(),
            }
        ),
    };
    format!(
        "In {} ({}):\n{}\n{}\n  DynamoDB writes: {}\n  yours:           {}",
        d.name,
        d.describe(),
        image("before:", old),
        image("after:", new),
        writes_line(d, &call.dynamodb()),
        writes_line(d, &call.yours)
    )
}

// ---------------------------------------------------------------------------------------
// The effect of an answer, and its cause
// ---------------------------------------------------------------------------------------

/// What the index holds after an answer, for the keys it touches: the entry it had (`Old`),
/// a new one, or none — and the units charged.
#[derive(Clone, Debug, PartialEq)]
enum Slot {
    Old,
    Entry(Arc<Item>),
    Empty,
}

fn effect(call: &Call, writes: &[Written]) -> (BTreeMap<String, Slot>, f64) {
    let d = def(&call.shape.name);
    let old_key = call.old.as_deref().and_then(|o| index_key(d, o));
    let mut slots = BTreeMap::new();
    for w in writes {
        let k = format!("{:?}", w.key);
        slots.insert(
            k,
            match &w.entry {
                Some(e) if !w.delete => Slot::Entry(e.clone()),
                _ => Slot::Empty,
            },
        );
    }
    let old = old_key.map(|k| format!("{k:?}"));
    let old_entry = call.old.as_deref().map(|o| entry(d, o));
    // An entry put back as it was is no change to what the index holds (its units count).
    slots.retain(|k, v| {
        let at_old = Some(k) == old.as_ref();
        if at_old && matches!(v, Slot::Entry(e) if Some(&**e) == old_entry.as_ref()) {
            *v = Slot::Old;
        }
        *v != if at_old { Slot::Old } else { Slot::Empty }
    });
    (slots, writes.iter().map(|w| w.units).sum())
}

/// Whether the learner's answer to `call` has DynamoDB's effect.
pub fn same_effect(call: &Call) -> bool {
    effect(call, &call.yours) == effect(call, &call.dynamodb())
}

/// Why the learner's answer differs, from what the item and the entries show.
pub fn cause(call: &Call) -> String {
    let d = def(&call.shape.name);
    let ours = call.dynamodb();
    let yours = &call.yours;
    let (old, new) = (call.old.as_deref(), call.new.as_deref());
    let old_key = old.and_then(|o| index_key(d, o));
    let new_key = new.and_then(|n| index_key(d, n));
    let deletes = |ws: &[Written], k: &Key| ws.iter().any(|w| w.delete && &w.key == k);
    let puts = |ws: &[Written], k: &Key| ws.iter().any(|w| !w.delete && &w.key == k);

    // An item that is not in the index, before or after.
    if old_key.is_none() && new_key.is_none() && !yours.is_empty() {
        let item = new.or(old).expect("a write has an item");
        return format!(
            "{} {}: it is not in {}, before or after this write — no entry, not one under an \
             empty or NULL key, and no write to charge.",
            table_key(item).0,
            missing_key(d, item),
            d.name
        );
    }
    if let (Some(ok), None) = (&old_key, &new_key) {
        if !deletes(yours, ok) {
            let left = match new {
                None => "The item was deleted".to_string(),
                Some(n) => format!(
                    "The write left the item without its index key: it {}",
                    missing_key(d, n)
                ),
            };
            return format!(
                "{left}. It was in {} under {}: that entry must go (a delete, charged by the \
                 entry it removes); yours leaves it in the index.",
                d.name,
                key_text(d, ok)
            );
        }
    }
    if let (Some(ok), Some(nk)) = (&old_key, &new_key) {
        if ok != nk && !deletes(yours, ok) {
            return format!(
                "The index key changed from {} to {}: the entry under the old key must be \
                 deleted as well as the new one put — two writes, each charged. Yours leaves \
                 the entry under {} in the index.",
                key_text(d, ok),
                key_text(d, nk),
                key_text(d, ok)
            );
        }
        if ok == nk && ours.is_empty() && !yours.is_empty() {
            let changed =
                changed_attributes(old.unwrap_or(&Item::new()), new.unwrap_or(&Item::new()));
            return format!(
                "Only {} changed, which {} does not keep ({}): its entry is the same before \
                 and after, so DynamoDB writes nothing to the index and charges nothing.",
                names_list(&changed),
                d.name,
                d.describe()
            );
        }
        if ok == nk && deletes(yours, ok) && puts(yours, nk) && ours.len() == 1 {
            return format!(
                "The index key did not change, {}: the entry is rewritten in place — one \
                 put, one charge. Yours deletes it and puts it again: two writes, two \
                 charges.",
                key_text(d, ok)
            );
        }
    }
    if let (None, Some(nk)) = (&old_key, &new_key) {
        if yours.iter().any(|w| w.delete) {
            let before = match old {
                Some(o) => format!(" (it {})", missing_key(d, o)),
                None => " (it did not exist)".to_string(),
            };
            return format!(
                "Before this write the item was not in {}{before}: there was no entry to \
                 delete. It enters under {}: one put, one charge.",
                d.name,
                key_text(d, nk)
            );
        }
    }
    // The same writes: compare the entries, then the units.
    for (o, y) in ours.iter().zip(yours.iter()) {
        if o.delete != y.delete || o.key != y.key {
            break;
        }
        if let (Some(oe), Some(ye)) = (&o.entry, &y.entry) {
            if oe != ye {
                return entry_cause(d, oe, ye);
            }
        }
        if o.units != y.units {
            return units_cause(d, call, o, y);
        }
    }
    if ours.len() == yours.len() + 1 && ours.len() == 2 && yours.len() == 1 {
        // Two writes in DynamoDB, one in yours, with the same entries left: units differ.
        return format!(
            "DynamoDB makes {} writes, {} WCU; yours {} write, {} WCU.",
            ours.len(),
            number(ours.iter().map(|w| w.units).sum()),
            yours.len(),
            number(yours.iter().map(|w| w.units).sum())
        );
    }
    format!(
        "DynamoDB's writes: {}. Yours: {}.",
        writes_line(d, &ours),
        writes_line(d, yours)
    )
}

fn entry_cause(d: &Def, ours: &Item, yours: &Item) -> String {
    let extra: Vec<&String> = yours.keys().filter(|k| !ours.contains_key(*k)).collect();
    let missing: Vec<&String> = ours.keys().filter(|k| !yours.contains_key(*k)).collect();
    if !extra.is_empty() {
        return format!(
            "Your entry keeps {}, which {} does not project ({}): an entry holds the table's \
             key, the index's key{} and nothing else.",
            names_list(&extra),
            d.name,
            d.describe(),
            match d.projection {
                ProjectionType::Include => " and the INCLUDE attributes the item has",
                _ => "",
            }
        );
    }
    if let Some(name) = missing.first() {
        let role = if ["PK", "SK"].contains(&name.as_str()) {
            "part of the table's key — every entry carries it"
        } else if d.key_names().contains(&name.as_str()) {
            "part of the index's key — every entry carries it"
        } else if d.projection == ProjectionType::All {
            "and ALL keeps every attribute"
        } else {
            "one of the INCLUDE attributes, and the item has it"
        };
        return format!("Your entry leaves out {} ({role}).", names_list(&missing));
    }
    "Your entry holds other values than the item after the write.".to_string()
}

fn units_cause(d: &Def, call: &Call, ours: &Written, yours: &Written) -> String {
    let kind = if ours.delete { "delete" } else { "put" };
    // The entry this write weighs: the one it stores, or the one it removes.
    let weighed = match (&ours.entry, ours.delete) {
        (Some(e), false) => (**e).clone(),
        _ => call.old.as_deref().map(|o| entry(d, o)).unwrap_or_default(),
    };
    let bytes = item_size(&weighed);
    let head = format!(
        "DynamoDB charges this {kind} {} WCU: the entry it {} weighs {} bytes (names and \
         values), one unit per started KB. Yours charged {}.",
        number(ours.units),
        if ours.delete { "removes" } else { "stores" },
        thousands(bytes as i128),
        number(yours.units)
    );
    let whole = call
        .new
        .as_deref()
        .filter(|_| !ours.delete)
        .or(call.old.as_deref())
        .map(item_size);
    let values: usize = weighed.values().map(|v| v.size()).sum();
    let new_entry = call
        .new
        .as_deref()
        .filter(|n| index_key(d, n).is_some())
        .map(|n| item_size(&entry(d, n)));
    // A reason is given only when exactly one reading of the evidence explains yours.
    let mut readings = Vec::new();
    if let Some(w) = whole.filter(|w| units_of(*w) == yours.units && *w != bytes) {
        readings.push(format!(
            " That is what the whole table item ({} bytes) would cost: an index write weighs \
             the entry, not the item.",
            thousands(w as i128)
        ));
    }
    if yours.units == bytes as f64 / 1024.0 {
        readings.push(" That is the entry's size in KB, not rounded up to whole units.".into());
    }
    if units_of(values) == yours.units && values != bytes {
        readings.push(format!(
            " That is what its values alone ({} bytes) would cost: the attribute names count \
             too.",
            thousands(values as i128)
        ));
    }
    if ours.delete && new_entry.is_some_and(|n| units_of(n) == yours.units) {
        readings.push(
            " That is what the new entry weighs: a delete weighs the entry it removes, the \
             old one."
                .into(),
        );
    }
    if yours.units == 0.0 {
        readings.push(" Every index write is charged, a delete as much as a put.".into());
    }
    match readings.as_slice() {
        [only] => head + only,
        _ => head,
    }
}

fn units_of(bytes: usize) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

// ---------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------

/// "has no placed_at (the index's sort key)" and its kin, for an item not in the index.
fn missing_key(d: &Def, item: &Item) -> String {
    let mut missing = Vec::new();
    let mut wrong = Vec::new();
    for (name, t, role) in std::iter::once((d.pk.0, d.pk.1.clone(), "partition key"))
        .chain(d.sk.clone().map(|(n, t)| (n, t, "sort key")))
    {
        match item.get(name) {
            None => missing.push(format!("{name} (the index's {role})")),
            Some(v) if !accepts(t.clone(), v) => wrong.push(format!(
                "a {name} of type {} where the index's {role} is {}",
                value_type(v),
                type_name(t)
            )),
            Some(_) => {}
        }
    }
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("has no {}", missing.join(" and no ")));
    }
    if !wrong.is_empty() {
        parts.push(format!("has {}", wrong.join(" and ")));
    }
    if parts.is_empty() {
        "has the index's key".to_string()
    } else {
        parts.join(" and ")
    }
}

fn key_values(d: &Def, item: &Item) -> String {
    d.key_names()
        .iter()
        .map(|n| match item.get(*n) {
            Some(v) => format!("{n} = {}", value_text(v)),
            None => format!("no {n}"),
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

fn key_text(d: &Def, k: &Key) -> String {
    let mut parts = vec![format!("{} = {}", d.pk.0, value_text(&k.0))];
    match (d.sk.clone(), &k.1) {
        (Some((name, _)), Some(v)) => parts.push(format!("{name} = {}", value_text(v))),
        (Some((name, _)), None) => parts.push(format!("no {name}")),
        (None, Some(v)) => parts.push(format!(
            "a sort key {} the index does not have",
            value_text(v)
        )),
        (None, None) => {}
    }
    format!("({})", parts.join(", "))
}

fn writes_line(d: &Def, writes: &[Written]) -> String {
    if writes.is_empty() {
        return "nothing".to_string();
    }
    writes
        .iter()
        .map(|w| {
            format!(
                "{} {} ({} WCU)",
                if w.delete { "delete" } else { "put" },
                key_text(d, &w.key),
                number(w.units)
            )
        })
        .collect::<Vec<_>>()
        .join(", then ")
}

/// The writes one per line, entries shown: what the failure's diff compares.
fn writes_text(writes: &[Written]) -> String {
    if writes.is_empty() {
        return "(no index writes)".to_string();
    }
    writes
        .iter()
        .map(|w| {
            let key = match &w.key.1 {
                Some(sk) => format!("{}, {}", value_text(&w.key.0), value_text(sk)),
                None => value_text(&w.key.0),
            };
            match &w.entry {
                Some(e) if !w.delete => format!(
                    "put ({key}), {} WCU, entry of {} bytes:\n{}",
                    number(w.units),
                    thousands(item_size(e) as i128),
                    indent(&item_text(e))
                ),
                _ => format!("delete ({key}), {} WCU", number(w.units)),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One attribute per line, names sorted, long strings shortened.
fn item_text(item: &Item) -> String {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    let lines: Vec<String> = names
        .into_iter()
        .map(|n| format!("  {n}: {}", value_text(&item[n])))
        .collect();
    format!("{{\n{}\n}}", lines.join("\n"))
}

fn item_text_short(item: &Item, shown: &dyn Fn(&str) -> bool) -> String {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    let parts: Vec<String> = names
        .into_iter()
        .filter(|n| shown(n))
        .map(|n| format!("{n}: {}", value_text(&item[n])))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// A value as the messages show it: strings quoted (long ones shortened, with their length).
pub fn value_text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) if s.chars().count() > 24 => {
            let head: String = s.chars().take(8).collect();
            format!("\"{head}…\" ({} chars)", thousands(s.len() as i128))
        }
        AttributeValue::S(s) => format!("{s:?}"),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::Null(_) => "NULL".to_string(),
        AttributeValue::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

fn value_type(v: &AttributeValue) -> &'static str {
    match v {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        _ => "a set",
    }
}

fn type_name(t: ScalarAttributeType) -> &'static str {
    match t {
        ScalarAttributeType::S => "S",
        ScalarAttributeType::N => "N",
        _ => "B",
    }
}

fn changed_attributes(old: &Item, new: &Item) -> Vec<String> {
    let mut names: Vec<String> = old
        .keys()
        .chain(new.keys())
        .filter(|n| old.get(*n) != new.get(*n))
        .cloned()
        .collect();
    names.sort();
    names.dedup();
    names
}

fn names_list<S: AsRef<str>>(names: &[S]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{}`", n.as_ref())).collect();
    match quoted.len() {
        0 => "nothing".to_string(),
        1 => quoted[0].clone(),
        _ => format!(
            "{} and {}",
            quoted[..quoted.len() - 1].join(", "),
            quoted[quoted.len() - 1]
        ),
    }
}

/// Units as the messages show them: whole numbers without a fraction.
pub fn number(u: f64) -> String {
    if u.fract() == 0.0 {
        format!("{u:.0}")
    } else {
        format!("{u:.3}")
    }
}
