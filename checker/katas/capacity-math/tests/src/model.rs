//! The tests' own capacity model, with each rule a switch: switched right it must agree with
//! the engine on every request (the tests check that first), and each known mistake is one
//! switch flipped. When the learner's figure equals what a flipped model gives on a request
//! (and the right model does not), the failure names that mistake: arithmetic on the very
//! request that failed, not a guess about the code.

use std::collections::BTreeMap;

use engine::{AttributeValue, Item};
use given::{Consumed, Gsi, Projection, Request, Table, Write};
use katas_testkit::thousands;

/// How the arithmetic is done: [`RIGHT`] is DynamoDB's; every other value is a mistake.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rules {
    pub names: bool,
    pub utf8_bytes: bool,
    pub document_overhead: bool,
    pub kib: bool,
    pub query_once: bool,
    pub batch_per_item: bool,
    pub filter_pays: bool,
    pub eventual_default: bool,
    pub eventual_half_per_4k: bool,
    pub transactions_double: bool,
    pub write_larger: bool,
    pub missing_costs: bool,
    pub gsi_charged: bool,
    pub gsi_only_changes: bool,
    pub gsi_key_change_two: bool,
    pub gsi_entry_size: bool,
}

pub const RIGHT: Rules = Rules {
    names: true,
    utf8_bytes: true,
    document_overhead: true,
    kib: true,
    query_once: true,
    batch_per_item: true,
    filter_pays: true,
    eventual_default: true,
    eventual_half_per_4k: true,
    transactions_double: true,
    write_larger: true,
    missing_costs: true,
    gsi_charged: true,
    gsi_only_changes: true,
    gsi_key_change_two: true,
    gsi_entry_size: true,
};

/// A known mistake: the rule it breaks, and what to say about it.
pub struct Mistake {
    pub rules: Rules,
    pub says: &'static str,
}

/// The known mistakes, most specific first (the first whose figure matches is named).
pub fn mistakes() -> Vec<Mistake> {
    let m = |f: fn(&mut Rules), says: &'static str| {
        let mut rules = RIGHT;
        f(&mut rules);
        Mistake { rules, says }
    };
    vec![
        m(|r| r.filter_pays = false, "counting only the items the FilterExpression keeps. A filter runs AFTER the read: the Query pays for every item its key condition matched, kept or not"),
        m(|r| r.query_once = false, "rounding each item of the Query up to 4 KB on its own. A Query adds up the sizes of all the items it read and rounds the sum up once"),
        m(|r| r.batch_per_item = false, "adding up the BatchGetItem's items and rounding once. A BatchGetItem is one GetItem per key: each item is rounded up to 4 KB on its own, then the units are summed"),
        m(|r| r.eventual_default = false, "treating a read without ConsistentRead as strongly consistent. Reads are eventually consistent unless the request sets ConsistentRead = true: half price"),
        m(|r| r.eventual_half_per_4k = false, "pricing an eventually consistent read as one unit per 8 KB. It is half a unit per 4 KB block: the bytes are rounded up to 4 KB first, then halved (10 KB = 3 blocks = 1.5 RCU, not 2)"),
        m(|r| r.transactions_double = false, "pricing a transaction like the plain requests. A transaction reads or writes every item twice (prepare and commit): 2 RCU per 4 KB, 2 WCU per 1 KB"),
        m(|r| r.missing_costs = false, "charging nothing for a key no item has. Reading a missing item still costs the minimum (one 4 KB block), and deleting one costs 1 WCU"),
        m(|r| r.write_larger = false, "charging a write for the new item only. A write costs the LARGER of the item before and the item after, whole: a delete the item it removed"),
        m(|r| r.gsi_key_change_two = false, "charging one index write when the item's index key changed. A changed index key moves the entry: one write to delete the old entry and one to put the new one, 2 writes"),
        m(|r| r.gsi_only_changes = false, "charging every GSI on every write. A GSI pays only when its entry changes: 0 writes when the item is in the index neither before nor after, or when nothing the index holds changed"),
        m(|r| r.gsi_entry_size = false, "sizing every index entry as the whole item. An index entry holds the table's key, the index's key and the projected attributes only; KEYS_ONLY and INCLUDE entries are smaller than the item"),
        m(|r| r.gsi_charged = false, "charging no GSI. Every GSI whose entry a write adds, changes or removes costs its own write units, on top of the table's"),
        m(|r| r.names = false, "counting the values only. An item's size is the UTF-8 length of every attribute NAME plus the size of its value"),
        m(|r| r.utf8_bytes = false, "counting characters instead of UTF-8 bytes. A string value and an attribute name count their UTF-8 bytes: é is 2 bytes, 茶 is 3"),
        m(|r| r.document_overhead = false, "counting a map or a list as its contents only. An L or M value is 3 bytes plus 1 byte per element, plus the elements (and a map's keys)"),
        m(|r| r.kib = false, "taking KB as 1,000 bytes. A read unit covers 4 KB = 4,096 bytes, a write unit 1 KB = 1,024 bytes"),
    ]
}

fn text_len(s: &str, rules: Rules) -> usize {
    if rules.utf8_bytes {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Bytes of one value under `rules`.
pub fn value_size(v: &AttributeValue, rules: Rules) -> usize {
    let doc = |n: usize| if rules.document_overhead { 3 + n } else { 0 };
    match v {
        AttributeValue::S(s) => text_len(s, rules),
        AttributeValue::N(_) | AttributeValue::Bool(_) | AttributeValue::Null(_) => v.size(),
        AttributeValue::B(b) => b.len(),
        AttributeValue::L(l) => {
            doc(l.len()) + l.iter().map(|e| value_size(e, rules)).sum::<usize>()
        }
        AttributeValue::M(m) => {
            doc(m.len())
                + m.iter()
                    .map(|(k, e)| k.len() + value_size(e, rules))
                    .sum::<usize>()
        }
        AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => v.size(),
    }
}

/// Bytes of an item under `rules`.
pub fn item_size(item: &Item, rules: Rules) -> usize {
    item.iter()
        .map(|(k, v)| if rules.names { text_len(k, rules) } else { 0 } + value_size(v, rules))
        .sum()
}

fn blocks(bytes: usize, block: usize) -> usize {
    bytes.div_ceil(block).max(1)
}

fn read_block(rules: Rules) -> usize {
    if rules.kib {
        4096
    } else {
        4000
    }
}

fn write_block(rules: Rules) -> usize {
    if rules.kib {
        1024
    } else {
        1000
    }
}

/// Read units of `bytes` read as one rounding unit.
fn read_units(bytes: usize, strong: bool, rules: Rules) -> f64 {
    if strong {
        blocks(bytes, read_block(rules)) as f64
    } else if rules.eventual_half_per_4k {
        blocks(bytes, read_block(rules)) as f64 * 0.5
    } else {
        blocks(bytes, 2 * read_block(rules)) as f64
    }
}

fn strong(consistent_read: Option<bool>, rules: Rules) -> bool {
    consistent_read.unwrap_or(!rules.eventual_default)
}

fn found_units(item: &Option<Item>, strong: bool, rules: Rules) -> f64 {
    match item {
        None if !rules.missing_costs => 0.0,
        _ => read_units(
            item.as_ref().map_or(0, |i| item_size(i, rules)),
            strong,
            rules,
        ),
    }
}

/// What `request` consumes on `table` under `rules`.
pub fn consumed(table: &Table, request: &Request, rules: Rules) -> Consumed {
    let mut out = Consumed::default();
    match request {
        Request::GetItem {
            item,
            consistent_read,
        } => {
            out.table = found_units(item, strong(*consistent_read, rules), rules);
        }
        Request::BatchGetItem {
            items,
            consistent_read,
        } => {
            let s = strong(*consistent_read, rules);
            out.table = if rules.batch_per_item {
                items.iter().map(|i| found_units(i, s, rules)).sum()
            } else {
                let bytes = items.iter().flatten().map(|i| item_size(i, rules)).sum();
                read_units(bytes, s, rules)
            };
        }
        Request::Query {
            read,
            consistent_read,
            filter,
        } => {
            let s = strong(*consistent_read, rules);
            let paid: Vec<&Item> = read
                .iter()
                .filter(|i| {
                    rules.filter_pays
                        || filter
                            .as_ref()
                            .is_none_or(|f| i.get(&f.attribute) == Some(&f.equals))
                })
                .collect();
            out.table = if rules.query_once {
                read_units(paid.iter().map(|i| item_size(i, rules)).sum(), s, rules)
            } else if paid.is_empty() {
                read_units(0, s, rules)
            } else {
                paid.iter()
                    .map(|i| read_units(item_size(i, rules), s, rules))
                    .sum()
            };
        }
        Request::TransactGetItems { items } => {
            let f = if rules.transactions_double { 2.0 } else { 1.0 };
            out.table = items.iter().map(|i| found_units(i, true, rules) * f).sum();
        }
        Request::PutItem { before, after } | Request::UpdateItem { before, after } => {
            item_write(table, before.as_ref(), Some(after), 1.0, rules, &mut out);
        }
        Request::DeleteItem { before } => {
            item_write(table, before.as_ref(), None, 1.0, rules, &mut out)
        }
        Request::BatchWriteItem { writes } => {
            for w in writes {
                let (b, a) = versions(w);
                item_write(table, b, a, 1.0, rules, &mut out);
            }
        }
        Request::TransactWriteItems { writes } => {
            let f = if rules.transactions_double { 2.0 } else { 1.0 };
            for w in writes {
                let (b, a) = versions(w);
                item_write(table, b, a, f, rules, &mut out);
            }
        }
    }
    out
}

pub fn versions(w: &Write) -> (Option<&Item>, Option<&Item>) {
    match w {
        Write::Put { before, after } | Write::Update { before, after } => {
            (before.as_ref(), Some(after))
        }
        Write::Delete { before } => (before.as_ref(), None),
    }
}

fn write_units(bytes: usize, factor: f64, rules: Rules) -> f64 {
    blocks(bytes, write_block(rules)) as f64 * factor
}

fn item_write(
    table: &Table,
    before: Option<&Item>,
    after: Option<&Item>,
    factor: f64,
    rules: Rules,
    out: &mut Consumed,
) {
    let size = |i: Option<&Item>| i.map_or(0, |i| item_size(i, rules));
    let bytes = if rules.write_larger {
        size(before).max(size(after))
    } else if after.is_some() {
        size(after)
    } else if rules.missing_costs {
        size(before)
    } else {
        0
    };
    out.table += if bytes == 0 && !rules.missing_costs {
        0.0
    } else {
        write_units(bytes, factor, rules)
    };
    if !rules.gsi_charged {
        return;
    }
    for gsi in &table.gsis {
        let change = index_change(gsi, before, after);
        let entry_bytes = |e: &Option<Item>, whole: Option<&Item>| -> usize {
            if rules.gsi_entry_size {
                e.as_ref().map_or(0, |e| item_size(e, rules))
            } else {
                whole.map_or(0, |i| item_size(i, rules))
            }
        };
        let old = entry_bytes(&change.old_entry, before);
        let new = entry_bytes(&change.new_entry, after);
        let units = match change.kind {
            IndexChangeKind::None if !rules.gsi_only_changes => {
                write_units(size(before).max(size(after)), factor, rules)
            }
            IndexChangeKind::None => 0.0,
            IndexChangeKind::Enters => write_units(new, factor, rules),
            IndexChangeKind::Leaves => write_units(old, factor, rules),
            IndexChangeKind::Rewritten => write_units(new, factor, rules),
            IndexChangeKind::Unchanged if !rules.gsi_only_changes => {
                write_units(new, factor, rules)
            }
            IndexChangeKind::Unchanged => 0.0,
            IndexChangeKind::KeyChanged if rules.gsi_key_change_two => {
                write_units(old, factor, rules) + write_units(new, factor, rules)
            }
            IndexChangeKind::KeyChanged => write_units(new, factor, rules),
        };
        if units > 0.0 {
            *out.gsis.entry(gsi.name.clone()).or_insert(0.0) += units;
        }
    }
}

/// What one write does to one GSI.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IndexChangeKind {
    /// In the index neither before nor after.
    None,
    Enters,
    Leaves,
    /// Same index key, a projected attribute changed.
    Rewritten,
    /// Same index key, nothing projected changed.
    Unchanged,
    KeyChanged,
}

pub struct IndexChange {
    pub kind: IndexChangeKind,
    pub old_entry: Option<Item>,
    pub new_entry: Option<Item>,
}

/// The entry `item` has in `gsi` (its key attributes and projection), if it is in it.
pub fn entry(gsi: &Gsi, item: &Item) -> Option<Item> {
    item.get(&gsi.partition_key)?;
    if let Some(sk) = &gsi.sort_key {
        item.get(sk)?;
    }
    let keeps = |name: &str| {
        ["PK", "SK"].contains(&name)
            || name == gsi.partition_key
            || gsi.sort_key.as_deref() == Some(name)
            || match &gsi.projection {
                Projection::All => true,
                Projection::KeysOnly => false,
                Projection::Include(names) => names.iter().any(|n| n == name),
            }
    };
    Some(
        item.iter()
            .filter(|(k, _)| keeps(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

fn index_key(gsi: &Gsi, item: &Item) -> Vec<Option<AttributeValue>> {
    let mut key = vec![item.get(&gsi.partition_key).cloned()];
    if let Some(sk) = &gsi.sort_key {
        key.push(item.get(sk).cloned());
    }
    key
}

pub fn index_change(gsi: &Gsi, before: Option<&Item>, after: Option<&Item>) -> IndexChange {
    let old_entry = before.and_then(|i| entry(gsi, i));
    let new_entry = after.and_then(|i| entry(gsi, i));
    let kind = match (&old_entry, &new_entry) {
        (None, None) => IndexChangeKind::None,
        (None, Some(_)) => IndexChangeKind::Enters,
        (Some(_), None) => IndexChangeKind::Leaves,
        (Some(o), Some(n)) => {
            let (b, a) = (before.expect("entry"), after.expect("entry"));
            if index_key(gsi, b) != index_key(gsi, a) {
                IndexChangeKind::KeyChanged
            } else if o != n {
                IndexChangeKind::Rewritten
            } else {
                IndexChangeKind::Unchanged
            }
        }
    };
    IndexChange {
        kind,
        old_entry,
        new_entry,
    }
}

/// `0.5`, `1`, `2.5`: units as the lessons write them.
pub fn units(u: f64) -> String {
    if u.fract() == 0.0 {
        format!("{u:.0}")
    } else {
        format!("{u}")
    }
}

/// `4,113 B`.
pub fn bytes(n: usize) -> String {
    format!("{} B", thousands(n as i128))
}

/// A figure as text, one line per consumer, GSIs with 0 units left out.
pub fn figure(c: &Consumed, unit: &str) -> String {
    let mut lines = vec![format!("table: {} {unit}", units(c.table))];
    for (name, u) in &c.gsis {
        if *u != 0.0 {
            lines.push(format!("GSI {name}: {} {unit}", units(*u)));
        }
    }
    lines.join("\n")
}

/// Two figures are the same when the table's units and every GSI's (0 when absent) are.
pub fn same(a: &Consumed, b: &Consumed) -> bool {
    let names: std::collections::BTreeSet<&String> = a.gsis.keys().chain(b.gsis.keys()).collect();
    a.table == b.table
        && names
            .into_iter()
            .all(|n| a.gsis.get(n).copied().unwrap_or(0.0) == b.gsis.get(n).copied().unwrap_or(0.0))
}

/// The first known mistake that gives exactly `got` on this request (and is not right there).
pub fn diagnose(table: &Table, request: &Request, got: &Consumed) -> Option<&'static str> {
    let right = consumed(table, request, RIGHT);
    mistakes().into_iter().find_map(|m| {
        let wrong = consumed(table, request, m.rules);
        (!same(&wrong, &right) && same(&wrong, got)).then_some(m.says)
    })
}

/// The first known item-size mistake that gives exactly `got` for `item`.
pub fn diagnose_size(item: &Item, got: usize) -> Option<&'static str> {
    let right = item_size(item, RIGHT);
    mistakes().into_iter().find_map(|m| {
        let wrong = item_size(item, m.rules);
        (wrong != right && wrong == got).then_some(m.says)
    })
}

/// A GSI's name → its change, for messages.
pub fn gsi_changes<'a>(
    table: &'a Table,
    before: Option<&Item>,
    after: Option<&Item>,
) -> BTreeMap<&'a str, IndexChange> {
    table
        .gsis
        .iter()
        .map(|g| (g.name.as_str(), index_change(g, before, after)))
        .collect()
}
