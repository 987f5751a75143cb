//! The scene every test plays in: a world with the `orders` table, orders made up from the
//! seed, the history the table already holds when the index is added, and what the tests read
//! of the index from the outside (DescribeTable, its partitions, its per-second metrics).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndexDescription, IndexStatus,
    KeySchemaElement, KeyType, ProvisionedThroughput, ScalarAttributeType,
};
use engine::world::log::RequestRecord;
use engine::{AttributeValue, Client, Item, World};
use given::{Order, Pick, INDEX, TABLE, TABLE_RCU, TABLE_WCU};
use katas_testkit::{fail, thousands, Rng};

use crate::learner::{add_awaiting_index, place_order, ship_order};

/// Orders the table holds when the index is added, and how many of them were shipped.
pub(crate) const HISTORY: u64 = 600;
pub(crate) const HISTORY_SHIPPED: u64 = 540;
/// Orders a second while the history was written (simulated).
const HISTORY_RATE: u64 = 100;
/// The test's budget for `add_awaiting_index`: far more than a backfill of the history takes.
pub(crate) const BACKFILL_BUDGET: Duration = Duration::from_secs(600);

const ZONES: [&str; 6] = ["A", "B", "C", "D", "E", "F"];
const SKUS: [&str; 8] = [
    "TEA-01", "CUP-07", "POT-02", "MUG-11", "LID-04", "JAR-09", "BOX-03", "TIN-05",
];

pub(crate) struct Scene {
    pub world: World,
    pub client: Client,
    pub rng: Rng,
    /// Every order placed, by id.
    pub orders: BTreeMap<String, Order>,
    /// Ids of the orders shipped.
    pub shipped: BTreeSet<String>,
    next_id: u64,
}

impl Scene {
    /// A world with the empty `orders` table.
    pub fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        create_table(&client);
        Scene {
            world,
            client,
            rng: Rng::new(seed ^ 0x5eed),
            orders: BTreeMap::new(),
            shipped: BTreeSet::new(),
            next_id: 1,
        }
    }

    /// A world whose table holds the history (`history` orders over the last minutes, all but
    /// `awaiting` of them shipped), and the index, added by the learner's code.
    pub fn with_index(seed: u64, history: u64, awaiting: u64) -> Scene {
        let mut s = Scene::new(seed);
        s.history(history, history - awaiting);
        s.add_index();
        s
    }

    /// A new order, placed now (its `placed_at` is the simulated clock, to the microsecond,
    /// plus `micros` within the millisecond).
    pub fn order(&mut self, micros: u64) -> Order {
        let id = format!("o-{:06}", self.next_id);
        self.next_id += 1;
        let now_ms = self.world.config().epoch_seconds * 1000 + self.world.now().as_millis() as u64;
        let iso = engine::world::iso8601(now_ms); // 2026-01-01T00:00:00.000
        let placed_at = format!("{iso}{:03}Z", micros % 1000);
        let lines: Vec<String> = (0..1 + self.rng.below(3))
            .map(|_| {
                format!(
                    "{} x{}",
                    SKUS[self.rng.below(SKUS.len() as u64) as usize],
                    1 + self.rng.below(4)
                )
            })
            .collect();
        let n = self.next_id;
        Order {
            placed_at,
            zone: ZONES[self.rng.below(ZONES.len() as u64) as usize].to_string(),
            lines: lines.join(", "),
            customer: format!("Customer {}", 1 + self.rng.below(90_000)),
            address: format!(
                "{} Quai des Chartrons, 33000 Bordeaux",
                1 + self.rng.below(200)
            ),
            invoice: invoice(&id, n),
            id,
        }
    }

    /// Places an order through the learner's `place_order`; fails the test if it fails.
    pub fn place(&mut self, order: Order) {
        if let Err(e) = place_order(&self.client, &order) {
            fail(format!(
                "place_order({}) failed at {:.3} s on the simulated clock: {e}",
                order.id,
                self.world.now().as_secs_f64()
            ));
        }
        self.orders.insert(order.id.clone(), order);
    }

    /// Ships an order through the learner's `ship_order`; fails the test if it fails.
    pub fn ship(&mut self, id: &str) {
        if let Err(e) = ship_order(&self.client, id) {
            fail(format!(
                "ship_order(\"{id}\") failed at {:.3} s on the simulated clock, for an order that \
                 awaits shipment: {e}",
                self.world.now().as_secs_f64()
            ));
        }
        self.shipped.insert(id.to_string());
    }

    /// Writes the table's history: `orders` orders at 100 a second, then ships `shipped` of
    /// them (drawn from the seed), through the learner's own `place_order` and `ship_order`
    /// (the service wrote them; the index does not exist yet).
    pub fn history(&mut self, orders: u64, shipped: u64) {
        for k in 0..orders {
            if k > 0 && k % (HISTORY_RATE / 10) == 0 {
                self.world.advance(Duration::from_millis(100));
            }
            let o = self.order(k % 1000);
            self.place(o);
        }
        let mut ids: Vec<String> = self.orders.keys().cloned().collect();
        for i in (1..ids.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            ids.swap(i, j);
        }
        for (k, id) in ids.iter().take(shipped as usize).enumerate() {
            if k > 0 && k % 10 == 0 {
                self.world.advance(Duration::from_millis(100));
            }
            self.ship(id);
        }
        self.world.settle();
    }

    /// Calls the learner's `add_awaiting_index` and requires the index to be ACTIVE when it
    /// returns (the judging of how is `waits_for_the_backfill`'s).
    pub fn add_index(&mut self) {
        let started = self.world.now();
        if let Err(e) = add_awaiting_index(&self.client) {
            fail(format!(
                "add_awaiting_index() failed at {:.1} s on the simulated clock: {e}",
                self.world.now().as_secs_f64()
            ));
        }
        match self.index() {
            None => fail(format!(
                "add_awaiting_index() returned Ok, but the table {TABLE} has no global secondary \
                 index named {INDEX}: create it with UpdateTable (GlobalSecondaryIndexUpdate with \
                 a CreateGlobalSecondaryIndexAction)"
            )),
            Some(i) if i.index_status() != Some(&IndexStatus::Active) => fail(format!(
                "add_awaiting_index() returned while the index {INDEX} was still {}: it cannot be \
                 queried until its backfill ends and it is ACTIVE (waits_for_the_backfill \
                 explains)",
                i.index_status().map_or("without a status", |s| s.as_str())
            )),
            Some(_) => {}
        }
        if self.world.now() - started > BACKFILL_BUDGET {
            fail(format!(
                "add_awaiting_index() took {:.0} s of simulated time to return; the backfill of \
                 the table's orders was done long before. Poll DescribeTable every second or so.",
                (self.world.now() - started).as_secs_f64()
            ));
        }
        self.world.settle();
    }

    /// The index as DescribeTable shows it.
    pub fn index(&self) -> Option<GlobalSecondaryIndexDescription> {
        let out = self
            .client
            .describe_table()
            .table_name(TABLE)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not describe {TABLE}: {e}")));
        out.table()?
            .global_secondary_indexes()
            .iter()
            .find(|i| i.index_name() == Some(INDEX))
            .cloned()
    }

    /// The index's partition key attribute (and sort key attribute, if any).
    pub fn index_keys(&self) -> (String, Option<String>) {
        let index = self
            .index()
            .unwrap_or_else(|| fail(format!("the table has no index named {INDEX}")));
        let name = |t: KeyType| {
            index
                .key_schema()
                .iter()
                .find(|e| e.key_type == t)
                .map(|e| e.attribute_name.clone())
        };
        (
            name(KeyType::Hash).unwrap_or_default(),
            name(KeyType::Range),
        )
    }

    /// Entries the index holds now (over all its partitions' leaders).
    pub fn index_entries(&self) -> usize {
        self.world
            .index_partitions(TABLE, INDEX)
            .unwrap_or_else(|e| fail(format!("cannot read the index's partitions: {e}")))
            .iter()
            .map(|p| p.item_count)
            .sum()
    }

    /// Write units the index has consumed so far, in all.
    pub fn index_write_units(&self) -> f64 {
        self.world
            .partition_metrics(TABLE, Some(INDEX))
            .unwrap_or_else(|e| fail(format!("cannot read the index's metrics: {e}")))
            .iter()
            .map(|m| m.consumed_write)
            .sum()
    }

    /// The orders that await shipment, as the picking screen must list them.
    pub fn expected_picks(&self) -> Vec<Pick> {
        let mut picks: Vec<Pick> = self
            .orders
            .values()
            .filter(|o| !self.shipped.contains(&o.id))
            .map(Pick::of)
            .collect();
        picks.sort_by(|a, b| (&a.placed_at, &a.order_id).cmp(&(&b.placed_at, &b.order_id)));
        picks
    }

    /// Ids of orders that await shipment (in id order).
    pub fn awaiting_ids(&self) -> Vec<String> {
        self.orders
            .keys()
            .filter(|id| !self.shipped.contains(*id))
            .cloned()
            .collect()
    }

    /// An order's item in the table, read strongly consistent by the test.
    pub fn stored(&self, id: &str) -> Option<Item> {
        self.client
            .get_item()
            .table_name(TABLE)
            .key("PK", AttributeValue::S(format!("ORDER#{id}")))
            .consistent_read(true)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not read ORDER#{id}: {e}")))
            .into_item()
    }

    /// Requests sent since the log position `from` (a request's `seq`).
    pub fn requests_since(&self, from: u64) -> Vec<RequestRecord> {
        self.world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= from)
            .collect()
    }

    /// The position the next request will take in the log.
    pub fn log_position(&self) -> u64 {
        self.world.request_totals().requests
    }
}

/// An invoice's text: about 1.3 KB, so an order's item is about 1.6 KB (2 WCU a put).
fn invoice(id: &str, n: u64) -> String {
    const LINE: &str = "article — unit price 12.50 EUR, VAT 20 %, total 15.00 EUR\n";
    let mut text = format!("INVOICE {id} ({n})\n");
    while text.len() < 1_300 {
        text.push_str(LINE);
    }
    text
}

/// Creates the kata's table: `orders`, `PK` (S), provisioned 1,000 RCU / 12,000 WCU.
pub(crate) fn create_table(client: &Client) {
    let made = (|| -> Result<(), engine::Error> {
        client
            .create_table()
            .table_name(TABLE)
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name("PK")
                    .attribute_type(ScalarAttributeType::S)
                    .build()?,
            )
            .key_schema(
                KeySchemaElement::builder()
                    .attribute_name("PK")
                    .key_type(KeyType::Hash)
                    .build()?,
            )
            .billing_mode(BillingMode::Provisioned)
            .provisioned_throughput(
                ProvisionedThroughput::builder()
                    .read_capacity_units(TABLE_RCU)
                    .write_capacity_units(TABLE_WCU)
                    .build()?,
            )
            .send()?;
        Ok(())
    })();
    if let Err(e) = made {
        fail(format!("the test could not create its table: {e}"));
    }
}

/// `1.5 s` for a duration of simulated time.
pub(crate) fn secs(ms: u64) -> String {
    format!("{:.3} s", ms as f64 / 1000.0)
}

/// `#12 (PutItem at 3.021 s)`.
pub(crate) fn request(r: &RequestRecord) -> String {
    format!("{} #{} at {}", r.operation, thousands(r.seq), secs(r.at_ms))
}
