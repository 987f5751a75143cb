//! Known-wrong solution of `capacity-math`: the read plan reads first and checks the budget afterwards: an over-budget page is refused only after its reads were paid for.

use engine::types::{AttributeValue, KeysAndAttributes};
use engine::{Client, Error, Item};
use given::{
    number_size, over_budget, Consumed, Gsi, Page, Projection, Request, Table, Write, TABLE,
};

/// Bytes covered by one read unit, and by one write unit.
const READ_BLOCK: usize = 4096;
const WRITE_BLOCK: usize = 1024;

/// Bytes `item` counts for: Σ (UTF-8 length of the name + size of the value).
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| name.len() + value_size(value))
        .sum()
}

fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(list) => 3 + list.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        AttributeValue::M(map) => {
            3 + map
                .iter()
                .map(|(k, v)| 1 + k.len() + value_size(v))
                .sum::<usize>()
        }
        AttributeValue::Ss(set) => set.iter().map(String::len).sum(),
        AttributeValue::Ns(set) => set.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(set) => set.iter().map(|b| b.as_ref().len()).sum(),
    }
}

/// Read units of `bytes` read as one rounding unit: whole 4 KB blocks (at least one), at
/// 0.5 (eventual, the default), 1 (strong) or 2 (transactional) per block.
fn read_units(bytes: usize, per_block: f64) -> f64 {
    bytes.div_ceil(READ_BLOCK).max(1) as f64 * per_block
}

/// Write units of one item write: whole 1 KB blocks of the larger version (at least one).
fn write_units(before: Option<&Item>, after: Option<&Item>, per_block: f64) -> f64 {
    let bytes = before.map_or(0, item_size).max(after.map_or(0, item_size));
    bytes.div_ceil(WRITE_BLOCK).max(1) as f64 * per_block
}

/// Reads are eventually consistent unless the request asks for strong ones.
fn per_block(consistent_read: Option<bool>) -> f64 {
    if consistent_read == Some(true) {
        1.0
    } else {
        0.5
    }
}

fn size_of(item: &Option<Item>) -> usize {
    item.as_ref().map_or(0, item_size)
}

pub fn consumed(table: &Table, request: &Request) -> Consumed {
    let mut out = Consumed::default();
    match request {
        Request::GetItem {
            item,
            consistent_read,
        } => {
            out.table = read_units(size_of(item), per_block(*consistent_read));
        }
        Request::BatchGetItem {
            items,
            consistent_read,
        } => {
            // Each key is its own GetItem: rounded per item, then summed.
            let per = per_block(*consistent_read);
            out.table = items.iter().map(|i| read_units(size_of(i), per)).sum();
        }
        Request::Query {
            read,
            consistent_read,
            ..
        } => {
            // Everything the key condition matched, filter or not, summed and rounded once.
            let bytes: usize = read.iter().map(item_size).sum();
            out.table = read_units(bytes, per_block(*consistent_read));
        }
        Request::TransactGetItems { items } => {
            out.table = items.iter().map(|i| read_units(size_of(i), 2.0)).sum();
        }
        Request::PutItem { before, after } | Request::UpdateItem { before, after } => {
            write(table, before.as_ref(), Some(after), 1.0, &mut out);
        }
        Request::DeleteItem { before } => write(table, before.as_ref(), None, 1.0, &mut out),
        Request::BatchWriteItem { writes } => {
            for w in writes {
                let (before, after) = versions(w);
                write(table, before, after, 1.0, &mut out);
            }
        }
        Request::TransactWriteItems { writes } => {
            for w in writes {
                let (before, after) = versions(w);
                write(table, before, after, 2.0, &mut out);
            }
        }
    }
    out
}

fn versions(w: &Write) -> (Option<&Item>, Option<&Item>) {
    match w {
        Write::Put { before, after } | Write::Update { before, after } => {
            (before.as_ref(), Some(after))
        }
        Write::Delete { before } => (before.as_ref(), None),
    }
}

/// One item write: the table's units, and each GSI's (0, 1 or 2 index writes).
fn write(table: &Table, before: Option<&Item>, after: Option<&Item>, per: f64, out: &mut Consumed) {
    out.table += write_units(before, after, per);
    for gsi in &table.gsis {
        let old = before.and_then(|i| entry(gsi, i));
        let new = after.and_then(|i| entry(gsi, i));
        let units = match (&old, &new) {
            (None, None) => 0.0,
            // The item enters or leaves the index: one index write.
            (Some((_, e)), None) | (None, Some((_, e))) => write_units(Some(e), None, per),
            (Some((ok, o)), Some((nk, n))) => {
                if ok != nk {
                    // Index key changed: delete the old entry, put the new one.
                    write_units(Some(o), None, per) + write_units(None, Some(n), per)
                } else if o != n {
                    // A projected attribute changed: the entry is rewritten.
                    write_units(None, Some(n), per)
                } else {
                    0.0
                }
            }
        };
        if units > 0.0 {
            *out.gsis.entry(gsi.name.clone()).or_insert(0.0) += units;
        }
    }
}

/// The item's index key and its entry in `gsi` (what the index stores), if it is in it.
fn entry(gsi: &Gsi, item: &Item) -> Option<(Vec<AttributeValue>, Item)> {
    let mut key = vec![item.get(&gsi.partition_key)?.clone()];
    if let Some(sk) = &gsi.sort_key {
        key.push(item.get(sk)?.clone());
    }
    let keeps = |name: &str| {
        name == "PK"
            || name == "SK"
            || name == gsi.partition_key
            || gsi.sort_key.as_deref() == Some(name)
            || match &gsi.projection {
                Projection::All => true,
                Projection::KeysOnly => false,
                Projection::Include(names) => names.iter().any(|n| n == name),
            }
    };
    let projected: Item = item
        .iter()
        .filter(|(name, _)| keeps(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    Some((key, projected))
}

/// The page's two plans, priced with `consumed`; the cheaper is sent if it fits the budget.
pub fn read_page(client: &Client, page: &Page) -> Result<Vec<Item>, Error> {
    let sk = |item: &Item| item.get("SK").and_then(|v| v.as_s().ok()).cloned();
    let needed: Vec<Item> = page
        .collection
        .iter()
        .filter(|i| sk(i).is_some_and(|s| page.needed.contains(&s)))
        .cloned()
        .collect();
    let (first, last) = match (page.needed.first(), page.needed.last()) {
        (Some(first), Some(last)) => (first.clone(), last.clone()),
        _ => return Ok(Vec::new()),
    };
    // A Query of the range reads every item between the first and the last needed one.
    let range: Vec<Item> = page
        .collection
        .iter()
        .filter(|i| sk(i).is_some_and(|s| s >= first && s <= last))
        .cloned()
        .collect();
    let consistent_read = Some(page.strong);
    let no_gsis = Table::default();
    let query_cost = consumed(
        &no_gsis,
        &Request::Query {
            read: range,
            consistent_read,
            filter: None,
        },
    )
    .total();
    let batch_cost = consumed(
        &no_gsis,
        &Request::BatchGetItem {
            items: needed.iter().cloned().map(Some).collect(),
            consistent_read,
        },
    )
    .total();
    let pk = AttributeValue::S(page.pk.clone());
    let mut found = if query_cost <= batch_cost {
        let out = client
            .query()
            .table_name(TABLE)
            .key_condition_expression("PK = :pk AND SK BETWEEN :first AND :last")
            .expression_attribute_values(":pk", pk)
            .expression_attribute_values(":first", AttributeValue::S(first))
            .expression_attribute_values(":last", AttributeValue::S(last))
            .consistent_read(page.strong)
            .send()?;
        out.items()
            .iter()
            .filter(|i| sk(i).is_some_and(|s| page.needed.contains(&s)))
            .cloned()
            .collect()
    } else {
        batch_get(client, page, &pk)?
    };
    found.sort_by_key(|i| sk(i));
    let spent = query_cost.min(batch_cost);
    if spent > page.budget_rcu {
        return Err(over_budget(spent, page.budget_rcu));
    }
    Ok(found)
}

/// One BatchGetItem of the needed keys, sending again what comes back unprocessed.
fn batch_get(client: &Client, page: &Page, pk: &AttributeValue) -> Result<Vec<Item>, Error> {
    let mut wanted = page
        .needed
        .iter()
        .fold(KeysAndAttributes::builder(), |keys, sk| {
            keys.keys(Item::from([
                ("PK".to_string(), pk.clone()),
                ("SK".to_string(), AttributeValue::S(sk.clone())),
            ]))
        })
        .consistent_read(page.strong)
        .build()?;
    let mut found = Vec::new();
    while !wanted.keys.is_empty() {
        let out = client
            .batch_get_item()
            .request_items(TABLE, wanted.clone())
            .send()?;
        if let Some(items) = out.responses().and_then(|r| r.get(TABLE)) {
            found.extend(items.iter().cloned());
        }
        wanted = out
            .unprocessed_keys()
            .and_then(|u| u.get(TABLE))
            .cloned()
            .unwrap_or_default();
    }
    Ok(found)
}
