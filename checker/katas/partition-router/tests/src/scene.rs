//! Two worlds side by side — DynamoDB's router and the learner's — and the words for what
//! differs between them.

use std::sync::Arc;
use std::time::Duration;

use engine::seams::{EngineRouter, HashRange, KeyBytes, PartitionRouter, Pieces};
use engine::types::{
    AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput, ScalarAttributeType,
};
use engine::{AttributeValue, Client, Item, World, WorldConfig};
use katas_testkit::{fail, thousands, wrap};

/// The size limit of a partition in the tests' worlds (DynamoDB: 10 GB).
pub const SIZE_LIMIT: usize = 6 * 1024;

/// A world whose partitions split past [`SIZE_LIMIT`].
pub fn config(seed: u64) -> WorldConfig {
    WorldConfig {
        seed,
        partition_size_limit: SIZE_LIMIT,
        ..WorldConfig::default()
    }
}

/// A world whose partitions take 100 WCU a second (DynamoDB: 1,000) and split for heat after
/// 3 hot seconds (at 80 WCU or more).
pub fn hot_config(seed: u64) -> WorldConfig {
    WorldConfig {
        seed,
        partition_write_ceiling: 100.0,
        split_for_heat_after_s: 3,
        ..WorldConfig::default()
    }
}

/// One partition as a test compares it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub id: u32,
    pub range: HashRange,
    pub items: usize,
    pub bytes: usize,
}

pub type Layout = Vec<Row>;

pub struct Scene {
    pub dynamodb: World,
    pub yours: World,
    theirs_client: Client,
    your_client: Client,
}

impl Scene {
    pub fn new(_seed: u64, config: WorldConfig) -> Scene {
        let dynamodb = World::with_config(config.clone());
        let yours = World::with_pieces(
            config,
            Pieces {
                router: Arc::from(crate::router()),
                ..Pieces::default()
            },
        );
        Scene {
            theirs_client: dynamodb.client(),
            your_client: yours.client(),
            dynamodb,
            yours,
        }
    }

    fn both(&self) -> [(&World, &Client, &'static str); 2] {
        [
            (&self.dynamodb, &self.theirs_client, "DynamoDB's"),
            (&self.yours, &self.your_client, "your"),
        ]
    }

    /// A provisioned table `name` keyed by `PK` (and `SK`) of the given types.
    pub fn create(&self, name: &str, pk: &str, sk: Option<&str>, rcu: i64, wcu: i64) {
        let t = |s: &str| match s {
            "N" => ScalarAttributeType::N,
            "B" => ScalarAttributeType::B,
            _ => ScalarAttributeType::S,
        };
        for (_, c, _) in self.both() {
            let mut req = c
                .create_table()
                .table_name(name)
                .attribute_definitions(AttributeDefinition::new("PK", t(pk)))
                .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
                .provisioned_throughput(ProvisionedThroughput::new(rcu, wcu));
            if let Some(sk) = sk {
                req = req
                    .attribute_definitions(AttributeDefinition::new("SK", t(sk)))
                    .key_schema(KeySchemaElement::new("SK", KeyType::Range));
            }
            req.send().expect("the tests' table");
        }
    }

    /// PutItem of the same item in both worlds.
    pub fn put(&self, table: &str, attrs: &[(&str, AttributeValue)]) {
        let item: Item = attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        for (_, c, whose) in self.both() {
            if let Err(e) = c
                .put_item()
                .table_name(table)
                .set_item(Some(item.clone()))
                .send()
            {
                fail(wrap(&format!(
                    "PutItem of PK = {:?} failed in {whose} world: {e}",
                    item.get("PK")
                )));
            }
        }
    }

    /// `ADD hits :one` on `key` in both worlds (a throttled write still counts as heat).
    pub fn add(&self, table: &str, key: &str) {
        for (_, c, _) in self.both() {
            let _ = c
                .update_item()
                .table_name(table)
                .key("PK", AttributeValue::S(key.to_string()))
                .update_expression("ADD hits :one")
                .expression_attribute_values(":one", AttributeValue::N("1".into()))
                .send();
        }
    }

    pub fn advance_second(&self) {
        for (w, _, _) in self.both() {
            w.advance(Duration::from_secs(1));
        }
    }

    /// Whether a consistent GetItem finds the item.
    pub fn get(&self, world: &World, table: &str, pk: &str, sk: Option<AttributeValue>) -> bool {
        let c = world.client();
        let mut req = c
            .get_item()
            .table_name(table)
            .key("PK", AttributeValue::S(pk.to_string()))
            .consistent_read(true);
        if let Some(sk) = sk {
            req = req.key("SK", sk);
        }
        req.send().map(|o| o.item().is_some()).unwrap_or(false)
    }

    /// The sort keys a consistent Query of `pk` returns, in the order returned.
    pub fn query(&self, world: &World, table: &str, pk: &str) -> Vec<String> {
        let c = world.client();
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let page = c
                .query()
                .table_name(table)
                .key_condition_expression("PK = :pk")
                .expression_attribute_values(":pk", AttributeValue::S(pk.to_string()))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .expect("Query");
            for item in page.items() {
                out.push(match &item["SK"] {
                    AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
                    other => format!("{other:?}"),
                });
            }
            start = page.last_evaluated_key().cloned();
            if start.is_none() {
                return out;
            }
        }
    }

    /// Both worlds' partitions of `table`: (DynamoDB's, yours).
    pub fn layouts(&self, table: &str) -> (Layout, Layout) {
        let rows = |w: &World| {
            w.partitions(table)
                .expect("partitions")
                .into_iter()
                .map(|p| Row {
                    id: p.id,
                    range: HashRange::new(p.hash_range.0, p.hash_range.1),
                    items: p.item_count,
                    bytes: p.bytes,
                })
                .collect()
        };
        (rows(&self.dynamodb), rows(&self.yours))
    }

    /// "hash range 0x…–0x…" of partition `id` in `world`.
    pub fn range_text(&self, world: &World, table: &str, id: u32) -> String {
        let parts = world.partitions(table).expect("partitions");
        let p = parts.iter().find(|p| p.id == id).expect("partition");
        format!("hash range {}–{}", hex(p.hash_range.0), hex(p.hash_range.1))
    }

    /// Why a key with `hash` is not found in the learner's world, if routing explains it.
    pub fn route_cause(&self, table: &str, hash: u64) -> String {
        let ranges: Vec<HashRange> = self.layouts(table).1.iter().map(|r| r.range).collect();
        let yours = crate::router();
        let owner = ranges.iter().position(|r| r.contains(hash));
        let routed = yours.route(hash, &ranges);
        for (i, r) in ranges.iter().enumerate() {
            let got = yours.route(r.start, &ranges);
            if got != i {
                let at = if owner == Some(i) && r.start == hash {
                    " That is exactly this key's hash."
                } else {
                    ""
                };
                return format!(
                    "Your route sends hash {} — the first hash of partition #{i} ({}–{}) — to                      partition #{got}, where the engine never put those items.{at} A split cuts                      before an item collection, so the first hash of every right half is the                      hash of keys it holds: route must send that very hash to it.",
                    hex(r.start),
                    hex(r.start),
                    hex(r.end)
                );
            }
        }
        match owner {
            Some(o) if o != routed => format!(
                "Your route sends the hash to partition #{routed}; partition #{o} ({}–{}) \
                 owns it.",
                hex(ranges[o].start),
                hex(ranges[o].end)
            ),
            _ => String::new(),
        }
    }

    /// The message for partitions that differ after `second` seconds: both layouts, the split
    /// each world made, and what differs about it.
    pub fn layout_failure(
        &self,
        table: &str,
        second: u64,
        before: &(Layout, Layout),
        now: &(Layout, Layout),
        keys: &[(String, u64)],
        kind: &str,
    ) -> String {
        let hashes: Vec<(u64, &str, u64)> = keys
            .iter()
            .map(|(k, w)| {
                let h = EngineRouter.hash(
                    KeyBytes {
                        tag: b'S',
                        bytes: k.as_bytes(),
                    },
                    None,
                );
                (h, k.as_str(), *w)
            })
            .collect();
        let name = |h: u64| {
            hashes
                .iter()
                .find(|k| k.0 == h)
                .map(|k| format!(" (the hash of {:?})", k.1))
                .unwrap_or_default()
        };
        let theirs = split_of(&before.0, &now.0);
        let mine = split_of(&before.1, &now.1);
        let rule = if kind == "size" {
            format!(
                "it holds more than the {} KB size limit; the cut goes before the median of \
                 its item collections",
                SIZE_LIMIT / 1024
            )
        } else {
            "it stayed hot; the cut goes at the weighted median of its traffic".to_string()
        };
        let yours = crate::router();
        let wrong_hash = hashes.iter().find_map(|&(h, k, _)| {
            let bytes = KeyBytes {
                tag: b'S',
                bytes: k.as_bytes(),
            };
            let mine = yours.hash(bytes, None);
            (mine != h).then(|| {
                format!(
                    " Your hash already differs: DynamoDB hashes {k:?} to {}, yours to {} (see \
                     hashes_the_partition_key), so your partitions hold other keys.",
                    hex(h),
                    hex(mine)
                )
            })
        });
        let cause = match (&theirs, &mine) {
            (Some((parent, [_, r])), None) => format!(
                "DynamoDB split partition {} ({}–{}) at {}{}: {rule}. Yours did not split it.",
                parent.id,
                hex(parent.range.start),
                hex(parent.range.end),
                hex(r.start),
                name(r.start)
            ),
            (None, Some((parent, [_, r]))) => {
                let one = if keys.len() == 1 {
                    format!(
                        ": all its {} sit on one key, {:?} — one hash — and no cut can divide \
                         one key (a single hot key is split by sharding its writes, never by \
                         DynamoDB)",
                        if kind == "size" { "items" } else { "traffic" },
                        keys[0].0
                    )
                } else {
                    String::new()
                };
                format!(
                    "Yours split partition {} ({}–{}) at {}{}; DynamoDB does not split it{one}.",
                    parent.id,
                    hex(parent.range.start),
                    hex(parent.range.end),
                    hex(r.start),
                    name(r.start)
                )
            }
            (Some((parent, [_, tr])), Some((_, [ml, mr]))) => {
                let shape = if ml.end == mr.start {
                    format!(
                        " Your halves overlap: the left ends at {}, which the right starts at — \
                         both own that hash.",
                        hex(ml.end)
                    )
                } else if ml.end > mr.start {
                    format!(
                        " Your halves overlap: the left ends at {}, the right starts at {} — \
                         both own the hashes in between.",
                        hex(ml.end),
                        hex(mr.start)
                    )
                } else if ml.end + 1 != mr.start {
                    format!(
                        " Your halves leave a gap: the left ends at {}, the right starts at {} \
                         — the hashes in between belong to no partition.",
                        hex(ml.end),
                        hex(mr.start)
                    )
                } else {
                    String::new()
                };
                let middle = parent.range.start + (parent.range.end - parent.range.start) / 2 + 1;
                let how = if mr.start == middle && tr.start != middle {
                    " Yours is the middle of the partition's hash range, whatever the partition \
                     holds."
                        .to_string()
                } else if kind == "heat" && keys.len() > 1 {
                    let mut sorted = hashes.clone();
                    sorted.sort_unstable();
                    let total: u64 = sorted.iter().map(|k| k.2).sum();
                    let shares: Vec<String> = sorted
                        .iter()
                        .map(|k| format!("{} {}%", k.1, k.2 * 100 / total))
                        .collect();
                    let by_count = sorted[sorted.len() / 2].0;
                    let hint = if mr.start == by_count {
                        " Yours is the median hot key by count, not by traffic."
                    } else {
                        ""
                    };
                    format!(" The traffic, in hash order: {}.{hint}", shares.join(", "))
                } else {
                    String::new()
                };
                if tr.start != mr.start {
                    format!(
                        "DynamoDB cut partition {} ({}–{}) at {}{}: {rule}. Yours cut it at \
                         {}{}.{shape}{how}",
                        parent.id,
                        hex(parent.range.start),
                        hex(parent.range.end),
                        hex(tr.start),
                        name(tr.start),
                        hex(mr.start),
                        name(mr.start)
                    )
                } else if !shape.is_empty() {
                    format!(
                        "Both cut partition {} at {}{}.{shape}",
                        parent.id,
                        hex(tr.start),
                        name(tr.start)
                    )
                } else {
                    format!(
                        "Both cut partition {} at {}, but your partitions hold other items. {}",
                        parent.id,
                        hex(tr.start),
                        self.route_cause(table, tr.start)
                    )
                }
            }
            (None, None) => {
                let c = self.route_cause(table, 0);
                if c.is_empty() {
                    "The same splits, but your partitions hold other items.".to_string()
                } else {
                    format!("The same splits, but your partitions hold other items. {c}")
                }
            }
        };
        let mut text = wrap(&format!(
            "After second {second}, the partitions of table {table} differ. {cause}{}",
            wrong_hash.unwrap_or_default()
        ));
        text.push_str(&format!(
            "\n\n DynamoDB's partitions:\n{}\n your partitions:\n{}",
            layout_text(&now.0),
            layout_text(&now.1)
        ));
        text
    }
}

/// The partition that split between two layouts, and its two children.
fn split_of(before: &Layout, now: &Layout) -> Option<(Row, [HashRange; 2])> {
    let parent = before.iter().find(|p| !now.iter().any(|n| n.id == p.id))?;
    let children: Vec<&Row> = now
        .iter()
        .filter(|n| !before.iter().any(|b| b.id == n.id))
        .collect();
    match children.as_slice() {
        [l, r, ..] => Some((parent.clone(), [l.range, r.range])),
        _ => None,
    }
}

/// The partitions as a small table, one per line.
pub fn layout_text(layout: &Layout) -> String {
    let mut out = String::new();
    for p in layout {
        out.push_str(&format!(
            "   partition {:>2}  {}–{}  {:>4} items  {:>7} bytes\n",
            p.id,
            hex(p.range.start),
            hex(p.range.end),
            p.items,
            thousands(p.bytes as i128)
        ));
    }
    out.pop();
    out
}

/// A hash as 16 hex digits.
pub fn hex(h: u64) -> String {
    format!("0x{h:016x}")
}
