//! Alternative solution of `capacity-math`, by another route: the calculator counts in whole
//! half-units (an eventual 4 KB block is 1, a strong one 2, a transactional one 4; a write
//! block 2 or 4) and converts once at the end; the read plan finds the cheapest mix of Query
//! runs and single keys over the collection (dynamic programming), then sends one Query per
//! run and one BatchGetItem for the single keys.

use engine::types::{AttributeValue, KeysAndAttributes};
use engine::{Client, Error, Item};
use given::{
    number_size, over_budget, Consumed, Gsi, Page, Projection, Request, Table, Write, TABLE,
};

pub fn item_size(item: &Item) -> usize {
    let mut total = 0;
    for (name, value) in item {
        total += name.len();
        total += size(value);
    }
    total
}

fn size(value: &AttributeValue) -> usize {
    use AttributeValue as V;
    match value {
        V::S(s) => s.len(),
        V::N(n) => number_size(n),
        V::B(b) => b.as_ref().len(),
        V::Bool(_) | V::Null(_) => 1,
        V::L(list) => list.iter().fold(3, |acc, v| acc + 1 + size(v)),
        V::M(map) => map
            .iter()
            .fold(3, |acc, (k, v)| acc + 1 + k.len() + size(v)),
        V::Ss(set) => set.iter().map(|s| s.len()).sum(),
        V::Ns(set) => set.iter().map(|n| number_size(n)).sum(),
        V::Bs(set) => set.iter().map(|b| b.as_ref().len()).sum(),
    }
}

/// Half-units of a read of `bytes`: blocks of 4 KB (at least one) × 1, 2 or 4.
fn read_halves(bytes: usize, halves_per_block: u64) -> u64 {
    (bytes.max(1) as u64).div_ceil(4096) * halves_per_block
}

fn consistency_halves(consistent_read: Option<bool>) -> u64 {
    match consistent_read {
        Some(true) => 2,
        _ => 1,
    }
}

fn found(item: &Option<Item>) -> usize {
    item.as_ref().map(item_size).unwrap_or(0)
}

fn halves(u: u64) -> f64 {
    u as f64 / 2.0
}

pub fn consumed(table: &Table, request: &Request) -> Consumed {
    let mut out = Consumed::default();
    let mut table_halves = 0u64;
    let mut gsi_halves: Vec<(String, u64)> = Vec::new();
    match request {
        Request::GetItem {
            item,
            consistent_read,
        } => {
            table_halves = read_halves(found(item), consistency_halves(*consistent_read));
        }
        Request::BatchGetItem {
            items,
            consistent_read,
        } => {
            let h = consistency_halves(*consistent_read);
            table_halves = items.iter().map(|i| read_halves(found(i), h)).sum();
        }
        Request::Query {
            read,
            consistent_read,
            filter: _,
        } => {
            let total: usize = read.iter().map(item_size).sum();
            table_halves = read_halves(total, consistency_halves(*consistent_read));
        }
        Request::TransactGetItems { items } => {
            table_halves = items.iter().map(|i| read_halves(found(i), 4)).sum();
        }
        Request::PutItem { before, after } | Request::UpdateItem { before, after } => {
            table_halves = item_write(table, before.as_ref(), Some(after), 2, &mut gsi_halves);
        }
        Request::DeleteItem { before } => {
            table_halves = item_write(table, before.as_ref(), None, 2, &mut gsi_halves);
        }
        Request::BatchWriteItem { writes } | Request::TransactWriteItems { writes } => {
            let per = if matches!(request, Request::TransactWriteItems { .. }) {
                4
            } else {
                2
            };
            for w in writes {
                let (before, after) = match w {
                    Write::Put { before, after } | Write::Update { before, after } => {
                        (before.as_ref(), Some(after))
                    }
                    Write::Delete { before } => (before.as_ref(), None),
                };
                table_halves += item_write(table, before, after, per, &mut gsi_halves);
            }
        }
    }
    out.table = halves(table_halves);
    for (name, h) in gsi_halves {
        *out.gsis.entry(name).or_insert(0.0) += halves(h);
    }
    out
}

/// Half-units of one write block count.
fn write_halves(bytes: usize, per_block: u64) -> u64 {
    (bytes.max(1) as u64).div_ceil(1024) * per_block
}

/// Table half-units of one item write; each GSI's are pushed onto `gsis`.
fn item_write(
    table: &Table,
    before: Option<&Item>,
    after: Option<&Item>,
    per: u64,
    gsis: &mut Vec<(String, u64)>,
) -> u64 {
    let larger = before
        .map(item_size)
        .unwrap_or(0)
        .max(after.map(item_size).unwrap_or(0));
    for gsi in &table.gsis {
        let old = before.and_then(|i| projection(gsi, i));
        let new = after.and_then(|i| projection(gsi, i));
        let cost = match (old, new) {
            (None, None) => 0,
            (Some((_, o)), None) => write_halves(o, per),
            (None, Some((_, n))) => write_halves(n, per),
            (Some((ok, o)), Some((nk, n))) if ok != nk => {
                write_halves(o, per) + write_halves(n, per)
            }
            (Some(_), Some((_, n))) => {
                let same = before
                    .zip(after)
                    .is_some_and(|(b, a)| projected_equal(gsi, b, a));
                if same {
                    0
                } else {
                    write_halves(n, per)
                }
            }
        };
        if cost > 0 {
            gsis.push((gsi.name.clone(), cost));
        }
    }
    write_halves(larger, per)
}

fn in_entry(gsi: &Gsi, name: &str) -> bool {
    name == "PK"
        || name == "SK"
        || name == gsi.partition_key
        || gsi.sort_key.as_deref() == Some(name)
        || match &gsi.projection {
            Projection::All => true,
            Projection::KeysOnly => false,
            Projection::Include(names) => names.iter().any(|n| n == name),
        }
}

/// The item's index key and the size of its index entry, if it is in the index.
fn projection(gsi: &Gsi, item: &Item) -> Option<(Vec<AttributeValue>, usize)> {
    let mut key = vec![item.get(&gsi.partition_key)?.clone()];
    if let Some(sk) = &gsi.sort_key {
        key.push(item.get(sk)?.clone());
    }
    let bytes = item
        .iter()
        .filter(|(n, _)| in_entry(gsi, n))
        .map(|(n, v)| n.len() + size(v))
        .sum();
    Some((key, bytes))
}

fn projected_equal(gsi: &Gsi, a: &Item, b: &Item) -> bool {
    let names = a.keys().chain(b.keys()).filter(|n| in_entry(gsi, n));
    names.into_iter().all(|n| a.get(n) == b.get(n))
}

/// One step of the plan: a Query of positions `from..=to`, one key, or an item not needed.
#[derive(Clone, Copy)]
enum Step {
    Run(usize, usize),
    Key(usize),
    Skip,
}

pub fn read_page(client: &Client, page: &Page) -> Result<Vec<Item>, Error> {
    let items = &page.collection;
    let sk_of = |i: &Item| {
        i.get("SK")
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    let needed: Vec<bool> = items
        .iter()
        .map(|i| page.needed.contains(&sk_of(i)))
        .collect();
    let per = if page.strong { 2 } else { 1 };
    let sizes: Vec<usize> = items.iter().map(item_size).collect();
    // best[i]: cheapest half-units for the needed items among the first i, with its last step.
    let mut best: Vec<(u64, Option<(usize, Step)>)> = vec![(u64::MAX, None); items.len() + 1];
    best[0] = (0, None);
    for i in 0..items.len() {
        let base = best[i].0;
        if !needed[i] {
            if base < best[i + 1].0 {
                best[i + 1] = (base, Some((i, Step::Skip)));
            }
            continue;
        }
        let key = base + read_halves(sizes[i], per);
        if key < best[i + 1].0 {
            best[i + 1] = (key, Some((i, Step::Key(i))));
        }
        let mut bytes = sizes[i];
        for j in (0..i).rev() {
            bytes += sizes[j];
            if needed[j] && best[j].0 != u64::MAX {
                let run = best[j].0 + read_halves(bytes, per);
                if run < best[i + 1].0 {
                    best[i + 1] = (run, Some((j, Step::Run(j, i))));
                }
            }
        }
    }
    let cost = halves(best[items.len()].0);
    if cost > page.budget_rcu {
        return Err(over_budget(cost, page.budget_rcu));
    }
    let mut steps = Vec::new();
    let mut at = items.len();
    while let Some((from, step)) = best[at].1.take() {
        steps.push(step);
        at = from;
    }
    let pk = AttributeValue::S(page.pk.clone());
    let mut out = Vec::new();
    let mut keys = Vec::new();
    for step in steps {
        match step {
            Step::Skip => {}
            Step::Key(i) => keys.push(sk_of(&items[i])),
            Step::Run(a, b) => {
                let res = client
                    .query()
                    .table_name(TABLE)
                    .key_condition_expression("PK = :pk AND SK BETWEEN :a AND :b")
                    .expression_attribute_values(":pk", pk.clone())
                    .expression_attribute_values(":a", AttributeValue::S(sk_of(&items[a])))
                    .expression_attribute_values(":b", AttributeValue::S(sk_of(&items[b])))
                    .consistent_read(page.strong)
                    .send()?;
                out.extend(
                    res.items()
                        .iter()
                        .filter(|i| page.needed.contains(&sk_of(i)))
                        .cloned(),
                );
            }
        }
    }
    if !keys.is_empty() {
        let mut wanted = keys
            .iter()
            .fold(KeysAndAttributes::builder(), |b, sk| {
                b.keys(Item::from([
                    ("PK".to_string(), pk.clone()),
                    ("SK".to_string(), AttributeValue::S(sk.clone())),
                ]))
            })
            .consistent_read(page.strong)
            .build()?;
        while !wanted.keys.is_empty() {
            let res = client
                .batch_get_item()
                .request_items(TABLE, wanted.clone())
                .send()?;
            if let Some(found) = res.responses().and_then(|r| r.get(TABLE)) {
                out.extend(found.iter().cloned());
            }
            wanted = res
                .unprocessed_keys()
                .and_then(|u| u.get(TABLE))
                .cloned()
                .unwrap_or_default();
        }
    }
    out.sort_by_key(|i| sk_of(i));
    Ok(out)
}
