//! Hidden tests of the `first-steps` kata.
//!
//! Each test opens a fresh world with the kata's table (`shop`, `PK`/`SK` strings, on-demand)
//! and fills it with a small shop, written by the test in the README's layout: a dozen
//! customers, each an item collection under `PK = CUSTOMER#<id>` holding a profile (one
//! customer has none), addresses (`ADDRESS#…`, sorting before the orders), reviews
//! (`REVIEW#…`, sorting after the profile) and 0 to 60 orders (`ORDER#<placed_at>#<id>`, ids
//! not in time order). Then it calls one learner function at a time and judges it from the
//! outside: the return value, the table (read by the test with strongly consistent requests)
//! and the requests the call sent (the request log: operation, items read, read units,
//! outcome).
//!
//! - `saves_a_profile`, `saves_an_order`: one write per call, and the table then holds exactly
//!   the README's item (a replaced profile too). A wrong key or a number stored as a string is
//!   named.
//! - `reads_a_profile_with_one_get_item`: the right profile from exactly one GetItem.
//! - `a_missing_profile_is_none`: no profile (unknown customer, or orders and no profile) is
//!   `Ok(None)` from one successful GetItem.
//! - `recent_orders_newest_first`: the `limit` newest orders, newest first, from one Query
//!   (a Scan, the oldest orders, a short filtered page are each explained).
//! - `recent_orders_read_only_what_they_return`: the Query's `items_read` equals the orders
//!   returned, compared with what the right Query (sent by the test) reads and costs.
//! - `orders_placed_in_a_period`: a year, a month, a day, a month without orders; oldest
//!   first, one Query, `items_read` equal to the orders returned.
//! - `errors_are_not_missing_items`: with every replica of the table down (each request
//!   refused with `InternalServerError`), every function returns `Err`.
//! - `two_orders_of_one_second_are_both_kept`: two orders of one customer placed in the same
//!   second are two items (the primary key is unique), and both come back as the newest.
//!
//! Nothing here depends on the iteration order of an item: items are shown with their
//! attribute names sorted.

use std::collections::BTreeSet;

use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::world::faults::Az;
use engine::world::log::RequestRecord;
use engine::{item, AttributeValue, Client, Error, Item, World};
use given::{Order, Profile, TABLE};
use katas_testkit::items::item_text;
use katas_testkit::{check_eq_text, fail, run, seeded, Rng};
use learner::{orders_placed_in, profile, recent_orders, save_order, save_profile};

mod same_second;

katas_testkit::learner! {
    /// Stores a profile.
    fn save_profile(client: &Client, profile: &Profile) -> Result<(), Error>;
    /// Stores an order.
    fn save_order(client: &Client, order: &Order) -> Result<(), Error>;
    /// The profile, or `None`.
    fn profile(client: &Client, customer_id: &str) -> Result<Option<Profile>, Error>;
    /// The `limit` newest orders, newest first.
    fn recent_orders(client: &Client, customer_id: &str, limit: usize) -> Result<Vec<Order>, Error>;
    /// The orders placed in a period, oldest first.
    fn orders_placed_in(client: &Client, customer_id: &str, period: &str) -> Result<Vec<Order>, Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("saves_a_profile", saves_a_profile),
        seeded("saves_an_order", saves_an_order),
        seeded(
            "reads_a_profile_with_one_get_item",
            reads_a_profile_with_one_get_item,
        ),
        seeded("a_missing_profile_is_none", a_missing_profile_is_none),
        seeded("recent_orders_newest_first", recent_orders_newest_first),
        seeded(
            "recent_orders_read_only_what_they_return",
            recent_orders_read_only_what_they_return,
        ),
        seeded("orders_placed_in_a_period", orders_placed_in_a_period),
        seeded("errors_are_not_missing_items", errors_are_not_missing_items),
        seeded(
            "two_orders_of_one_second_are_both_kept",
            same_second::two_orders_of_one_second_are_both_kept,
        ),
    ]);
}

/// Orders of the loyal customer: enough that reading them all costs more than reading a page.
const LOYAL_ORDERS: usize = 150;
/// Customers in the shop.
const CUSTOMERS: usize = 12;
/// A customer id no item has (the shop's ids are c-100 … c-999).
const UNKNOWN: &str = "c-7";
/// The rules the right requests follow, said once for the messages (the requests themselves
/// are the hints' to give).
const GET_ADVICE: &str = "the profile's whole primary key is known, and a GetItem of a whole \
     key reads exactly that one item";
const RECENT_ADVICE: &str = "the orders sit together in the collection in time order (their \
     sort keys start with ORDER#<placed_at>), and a Query can start at either end of a sort-key \
     range and stop after a given number of items";
const PERIOD_ADVICE: &str = "the period is a prefix of its orders' sort keys (they start with \
     ORDER#<placed_at>), and a key condition can select a sort-key prefix, so a Query can read \
     exactly the period's orders";

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// save_profile writes exactly the README's item with one write; saving again replaces it.
fn saves_a_profile(seed: u64) {
    let s = Shop::build(seed);
    let mut rng = Rng::new(seed ^ 11);
    let id = format!("c-{}", 1000 + rng.below(9000));
    let first = Profile {
        customer_id: id.clone(),
        name: "Mei".to_string(),
        email: format!("mei.{}@example.com", rng.below(100)),
    };
    let call = format!("save_profile({})", show_profile(&first));
    s.check_write(
        &call,
        |c| save_profile(c, &first),
        &profile_item(&first),
        None,
    );

    // Saving again replaces the item: the new name and email, nothing of the old one.
    let second = Profile {
        customer_id: id.clone(),
        name: "Mei Lin".to_string(),
        email: format!("mei.lin.{}@example.com", rng.below(100)),
    };
    let call = format!(
        "save_profile({}) over the profile saved before",
        show_profile(&second)
    );
    s.check_write(
        &call,
        |c| save_profile(c, &second),
        &profile_item(&second),
        Some(&profile_item(&first)),
    );
}

/// save_order writes exactly the README's item — the sort key leads with placed_at, the total
/// is a number — with one write per call.
fn saves_an_order(seed: u64) {
    let s = Shop::build(seed);
    let mut rng = Rng::new(seed ^ 12);
    let customer = &s.customers[1 + rng.below(CUSTOMERS as u64 - 1) as usize];
    // Ids against time order: the newest order has the smallest id.
    let mut orders = Vec::new();
    for (i, id) in ["o-990", "o-120", "o-5"].into_iter().enumerate() {
        orders.push(Order {
            customer_id: customer.id.clone(),
            order_id: id.to_string(),
            placed_at: iso(AFTER_THE_SHOP + i as u64 * 86_400 + rng.below(80_000)),
            total_cents: 100 + rng.below(20_000),
        });
    }
    for order in &orders {
        let call = format!("save_order({})", show_order(order));
        s.check_write(&call, |c| save_order(c, order), &order_item(order), None);
    }
}

/// profile: the right profile from one GetItem, never a Query or a Scan.
fn reads_a_profile_with_one_get_item(seed: u64) {
    let s = Shop::build(seed);
    let mut rng = Rng::new(seed ^ 13);
    // The loyal customer first: the biggest collection, where a Query pays most.
    let mut picks = vec![0usize];
    picks.extend((0..4).map(|_| rng.below(CUSTOMERS as u64) as usize));
    for i in picks {
        let customer = &s.customers[i];
        let Some(want) = &customer.profile else {
            continue;
        };
        let call = format!("profile({:?})", customer.id);
        let (got, sent) = s.measure(|c| profile(c, &customer.id));
        let got = got.unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
        s.check_get_item(&call, &sent, customer, 1);
        if got.as_ref() != Some(want) {
            check_eq_text(
                &show_profile(want),
                &got.as_ref().map_or("None".to_string(), show_profile),
                format!(
                    "{call} returned the wrong profile. The item it reads is:\n{}",
                    item_text(&profile_item(want))
                ),
            );
        }
    }
}

/// profile of a customer without one: `Ok(None)`, from one successful GetItem.
fn a_missing_profile_is_none(seed: u64) {
    let s = Shop::build(seed);
    let no_profile = s
        .customers
        .iter()
        .find(|c| c.profile.is_none())
        .expect("the shop has a customer without a profile");
    let unknown = Customer {
        id: UNKNOWN.to_string(),
        profile: None,
        orders: Vec::new(),
        addresses: 0,
        reviews: 0,
    };
    for (customer, who) in [
        (
            &unknown,
            "no item of the table has PK = CUSTOMER#c-7".to_string(),
        ),
        (
            no_profile,
            format!(
                "customer {} has {} orders but no profile: no item has PK = CUSTOMER#{}, SK = \
                 PROFILE",
                no_profile.id,
                no_profile.orders.len(),
                no_profile.id
            ),
        ),
    ] {
        let call = format!("profile({:?})", customer.id);
        let (got, sent) = s.measure(|c| profile(c, &customer.id));
        match got {
            Ok(None) => {}
            Ok(Some(p)) => fail(format!(
                "{call} returned Some({}), but {who}.",
                show_profile(&p)
            )),
            Err(e) => {
                let answered = sent
                    .iter()
                    .find(|r| r.operation == "GetItem" && r.succeeded());
                let why = match answered {
                    Some(r) => format!(
                        "DynamoDB answered: {} succeeded, with no item in its output (it \
                         still cost {} RCU). A GetItem of a key no item has is a successful \
                         request, not an error",
                        show_request(r),
                        units(r.read_units)
                    ),
                    None => format!("it sent {}", show_requests(&sent)),
                };
                fail(format!(
                    "{call} returned Err({e}), but {who}: that is not an error. {why}. No \
                     item is an answer (None in the README); an Err is for a request DynamoDB \
                     refused."
                ));
            }
        }
        s.check_get_item(&call, &sent, customer, 0);
    }
}

/// recent_orders: the newest orders, newest first, from one Query.
fn recent_orders_newest_first(seed: u64) {
    let s = Shop::build(seed);
    for (customer, limit) in &s.recent_cases(seed) {
        let (customer, limit) = (customer, *limit);
        let call = format!("recent_orders({:?}, {limit})", customer.id);
        let (got, sent) = s.measure(|c| recent_orders(c, &customer.id, limit));
        let got = got.unwrap_or_else(|e| fail(read_failure(&call, &e)));
        s.check_one_query(&call, &sent, got.len(), RECENT_ADVICE);
        let want = customer.newest(limit);
        if got != want {
            fail_recent(&call, customer, limit, &want, &got, &sent);
        }
    }
}

/// recent_orders reads only what it returns: its Query's items_read is the orders returned,
/// what the right Query (sent by the test afterwards) reads too.
fn recent_orders_read_only_what_they_return(seed: u64) {
    let s = Shop::build(seed);
    for (customer, limit) in &s.recent_cases(seed) {
        let (customer, limit) = (customer, *limit);
        let call = format!("recent_orders({:?}, {limit})", customer.id);
        let (got, sent) = s.measure(|c| recent_orders(c, &customer.id, limit));
        let got = got.unwrap_or_else(|e| fail(read_failure(&call, &e)));
        s.check_one_query(&call, &sent, got.len(), RECENT_ADVICE);
        let query = &sent[0];
        if query.items_read as usize > got.len() {
            let right = s.right_query(customer, "ORDER#", false, Some(limit));
            let what = s.what_was_read(customer, query.items_read as usize);
            fail(format!(
                "{call} returned {} orders, but its {} read {} items ({} RCU): {what}. A Query \
                 pays for every item it reads, and the customer's history only grows. Limit \
                 counts items read, before any FilterExpression, and sorting or filtering in \
                 code happens after the read and saves nothing. From the newest end, the {} \
                 newest orders come first: {RECENT_ADVICE} (a Query that reads only them: {} \
                 items, {} RCU).",
                got.len(),
                show_request(query),
                query.items_read,
                units(query.read_units),
                limit.min(customer.orders.len()),
                right.items_read,
                units(right.read_units),
            ));
        }
        let want = customer.newest(limit);
        if got != want {
            fail_recent(&call, customer, limit, &want, &got, &sent);
        }
    }
}

/// orders_placed_in: the orders of a year, a month, a day (and a month without orders),
/// oldest first, from one Query that reads only them.
fn orders_placed_in_a_period(seed: u64) {
    let s = Shop::build(seed);
    let mut rng = Rng::new(seed ^ 17);
    let loyal = &s.customers[0];
    let some = &loyal.orders[rng.below(loyal.orders.len() as u64) as usize];
    let months: BTreeSet<&str> = loyal.orders.iter().map(|o| &o.placed_at[..7]).collect();
    let empty_month = (2023..=2025)
        .flat_map(|y| (1..=12).map(move |m| format!("{y}-{m:02}")))
        .find(|m| !months.contains(m.as_str()))
        .unwrap_or_else(|| "2022-12".to_string());
    let periods = [
        some.placed_at[..7].to_string(),
        some.placed_at[..4].to_string(),
        some.placed_at[..10].to_string(),
        empty_month,
    ];
    for period in &periods {
        let call = format!("orders_placed_in({:?}, {period:?})", loyal.id);
        let (got, sent) = s.measure(|c| orders_placed_in(c, &loyal.id, period));
        let got = got.unwrap_or_else(|e| fail(read_failure(&call, &e)));
        s.check_one_query(&call, &sent, got.len(), PERIOD_ADVICE);
        let want = loyal.placed_in(period);
        let query = &sent[0];
        if got != want {
            let mut sorted = got.clone();
            sorted.sort_by_key(order_sk);
            let note = if got.is_empty() && query.items_read == 0 {
                format!(
                    "Its {} read no item at all: its key condition matched no sort key. A \
                     sort-key prefix is compared from the sort key's first character, and every \
                     order's sort key starts with ORDER# (this period's first: ORDER#{}#{}).",
                    show_request(query),
                    want[0].placed_at,
                    want[0].order_id
                )
            } else if sorted == want {
                "These are the right orders in the wrong order: oldest first is the Query's own \
                 order, ascending sort keys, unless it is told to read backwards."
                    .to_string()
            } else {
                String::new()
            };
            check_eq_text(
                &orders_text(&want),
                &orders_text(&got),
                format!(
                    "{call} should return the {} orders of {} placed in {period}, oldest \
                     first. {note}",
                    want.len(),
                    loyal.id
                ),
            );
        }
        if query.items_read as usize > got.len() {
            let right = s.right_query(loyal, &format!("ORDER#{period}"), true, None);
            fail(format!(
                "{call} returned the right {} orders, but its {} read {} items ({} RCU): {}. \
                 Filtering after the read — in code, or with a FilterExpression, which DynamoDB \
                 applies after reading — still pays for every item read: {PERIOD_ADVICE} (a \
                 Query that reads only them: {} items, {} RCU).",
                got.len(),
                show_request(query),
                query.items_read,
                units(query.read_units),
                s.what_was_read(loyal, query.items_read as usize),
                right.items_read,
                units(right.read_units),
            ));
        }
    }
}

/// One learner call of the fault test: its `Ok` result as text, or its error.
type Call<'a> = Box<dyn Fn(&Client) -> Result<String, Error> + 'a>;

/// While every replica of the table is down, each function returns the refusal as an error.
fn errors_are_not_missing_items(seed: u64) {
    let s = Shop::build(seed);
    let loyal = &s.customers[0];
    let mut rng = Rng::new(seed ^ 19);
    let fault = "every replica of the table's partitions is down (fail_az on all three \
                 availability zones), so DynamoDB refuses every request with \
                 InternalServerError";
    let new = Profile {
        customer_id: format!("c-{}", 1000 + rng.below(9000)),
        name: "Ines".to_string(),
        email: "ines@example.com".to_string(),
    };
    let order = Order {
        customer_id: loyal.id.clone(),
        order_id: "o-77".to_string(),
        placed_at: iso(AFTER_THE_SHOP),
        total_cents: 1999,
    };
    let calls: [(String, Call); 5] = [
        (
            format!("save_profile({})", show_profile(&new)),
            Box::new(|c| save_profile(c, &new).map(|()| "Ok(())".to_string())),
        ),
        (
            format!("save_order({})", show_order(&order)),
            Box::new(|c| save_order(c, &order).map(|()| "Ok(())".to_string())),
        ),
        (
            format!("profile({:?})", loyal.id),
            Box::new(|c| {
                profile(c, &loyal.id)
                    .map(|p| format!("Ok({})", p.map_or("None".into(), |p| show_profile(&p))))
            }),
        ),
        (
            format!("recent_orders({:?}, 5)", loyal.id),
            Box::new(|c| recent_orders(c, &loyal.id, 5).map(|o| format!("Ok({} orders)", o.len()))),
        ),
        (
            format!("orders_placed_in({:?}, \"2024\")", loyal.id),
            Box::new(|c| {
                orders_placed_in(c, &loyal.id, "2024").map(|o| format!("Ok({} orders)", o.len()))
            }),
        ),
    ];
    // First with DynamoDB up: every call must work, or this test proves nothing.
    for (call, f) in &calls {
        if let Err(e) = f(&s.client) {
            fail(format!(
                "{call} failed while DynamoDB was up (before the test stopped any replica): \
                 {e}\nThis test then stops every replica and checks that the same calls return \
                 the refusal as an error; make them work first (the other tests show how)."
            ));
        }
    }
    for az in Az::ALL {
        s.world.fail_az(az);
    }
    for (call, f) in &calls {
        let (result, sent) = s.measure(|c| f(c));
        let Ok(ok) = result else { continue };
        let refused = sent.iter().find(|r| r.error.is_some());
        let detail = match refused {
            Some(r) => format!(
                "its {} #{} was refused with {}: DynamoDB did not do what was asked",
                r.operation,
                r.seq,
                r.error.unwrap_or("an error")
            ),
            None => format!("it sent {}", show_requests(&sent)),
        };
        let what = if call.starts_with("save_") {
            "A write that was refused stored nothing: the caller must hear it (and may retry)."
        } else {
            "A refused read says nothing about the items: an answer of \"none\" here tells the \
             caller the customer has no profile or no orders, which is false."
        };
        fail(format!(
            "{call} returned {ok}, but {fault}, and {detail}. {what} Ok(None) and an empty \
             list are answers of requests that succeeded; a refusal is an Err for the caller."
        ));
    }
    s.world.heal_all();
}

// ---------------------------------------------------------------------------------------
// The shop
// ---------------------------------------------------------------------------------------

/// 2023-01-01T00:00:00Z: the shop's first order is after it.
const SHOP_OPENED: u64 = 1_672_531_200;
/// Three years of orders.
const SHOP_YEARS: u64 = 3 * 365 * 86_400;
/// 2026-01-01T00:00:00Z: orders the tests ask the learner to save are after every seeded one.
const AFTER_THE_SHOP: u64 = SHOP_OPENED + SHOP_YEARS + 86_400;

/// One customer, as the test wrote it.
#[derive(Debug, Clone)]
struct Customer {
    id: String,
    profile: Option<Profile>,
    /// Oldest first (sort-key order).
    orders: Vec<Order>,
    /// Items of the collection that are neither profile nor order: addresses, reviews.
    addresses: usize,
    reviews: usize,
}

impl Customer {
    fn newest(&self, limit: usize) -> Vec<Order> {
        self.orders.iter().rev().take(limit).cloned().collect()
    }

    fn placed_in(&self, period: &str) -> Vec<Order> {
        self.orders
            .iter()
            .filter(|o| o.placed_at.starts_with(period))
            .cloned()
            .collect()
    }

    /// Items of the collection, all kinds.
    fn collection(&self) -> usize {
        self.orders.len() + self.addresses + self.reviews + usize::from(self.profile.is_some())
    }
}

struct Shop {
    world: World,
    client: Client,
    /// The loyal customer (most orders) first, then one with a handful, one with none, one
    /// with orders and no profile, then the rest.
    customers: Vec<Customer>,
    /// Every item the test wrote.
    items: usize,
}

impl Shop {
    fn build(seed: u64) -> Shop {
        let world = World::new(seed);
        let client = world.client();
        create_table(&client);
        let mut rng = Rng::new(seed);
        let mut ids = BTreeSet::new();
        while ids.len() < CUSTOMERS {
            ids.insert(100 + rng.below(900));
        }
        let mut ids: Vec<u64> = ids.into_iter().collect();
        shuffle(&mut ids, &mut rng);
        // Order ids against time: drawn at random, so id order is not sort-key order.
        let mut order_ids = BTreeSet::new();
        let mut customers = Vec::new();
        let mut items = 0;
        for (i, n) in ids.into_iter().enumerate() {
            let id = format!("c-{n}");
            let orders = match i {
                0 => LOYAL_ORDERS,
                1 => 7,
                2 => 0,
                3 => 4,
                _ => rng.below(13) as usize,
            };
            let mut times = BTreeSet::new();
            while times.len() < orders {
                times.insert(SHOP_OPENED + rng.below(SHOP_YEARS));
            }
            let mut orders: Vec<Order> = times
                .into_iter()
                .map(|t| {
                    let mut oid = 1000 + rng.below(9000);
                    while !order_ids.insert(oid) {
                        oid = 1000 + rng.below(9000);
                    }
                    Order {
                        customer_id: id.clone(),
                        order_id: format!("o-{oid}"),
                        placed_at: iso(t),
                        total_cents: 150 + rng.below(30_000),
                    }
                })
                .collect();
            orders.sort_by_key(order_sk);
            let profile = (i != 3).then(|| Profile {
                customer_id: id.clone(),
                name: NAMES[i % NAMES.len()].to_string(),
                email: format!("{}.{n}@example.com", NAMES[i % NAMES.len()].to_lowercase()),
            });
            let mut written: Vec<Item> = orders.iter().map(order_item).collect();
            written.extend(profile.iter().map(profile_item));
            let addresses = 1 + rng.below(2) as usize;
            for a in 1..=addresses {
                written.push(item! {
                    "PK" => format!("CUSTOMER#{id}"),
                    "SK" => format!("ADDRESS#{a}"),
                    "line" => format!("{} Tea Street", 1 + rng.below(200)),
                });
            }
            let reviews = 1 + rng.below(3) as usize;
            for r in 0..reviews {
                written.push(item! {
                    "PK" => format!("CUSTOMER#{id}"),
                    "SK" => format!("REVIEW#{}#tea-{}", &iso(SHOP_OPENED + rng.below(SHOP_YEARS))[..10], r + 1),
                    "stars" => 1 + rng.below(5),
                });
            }
            // Written in no particular order: the table sorts the collection, not the writer.
            shuffle(&mut written, &mut rng);
            items += written.len();
            for it in written {
                client
                    .put_item()
                    .table_name(TABLE)
                    .set_item(Some(it))
                    .send()
                    .expect("the test's own PutItem");
            }
            customers.push(Customer {
                id,
                profile,
                orders,
                addresses,
                reviews,
            });
        }
        world.settle();
        Shop {
            world,
            client,
            customers,
            items,
        }
    }

    /// Calls `f` and returns its result with the requests it sent.
    fn measure<T>(&self, f: impl FnOnce(&Client) -> T) -> (T, Vec<RequestRecord>) {
        let from = self.world.request_totals().requests;
        let result = f(&self.client);
        let sent = self
            .world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= from)
            .collect();
        (result, sent)
    }

    /// The (customer, limit) pairs recent_orders is asked about: the loyal customer with a
    /// page and with one order, a customer with fewer orders than the limit, one with none, an
    /// unknown one.
    fn recent_cases(&self, seed: u64) -> Vec<(Customer, usize)> {
        let mut rng = Rng::new(seed ^ 15);
        let unknown = Customer {
            id: UNKNOWN.to_string(),
            profile: None,
            orders: Vec::new(),
            addresses: 0,
            reviews: 0,
        };
        vec![
            (self.customers[0].clone(), 3 + rng.below(6) as usize),
            (self.customers[0].clone(), 1),
            (self.customers[1].clone(), 10),
            (self.customers[3].clone(), 2),
            (self.customers[2].clone(), 5),
            (unknown, 5),
        ]
    }

    /// Every item of the table, read by the test (strongly consistent, all pages).
    fn scan_all(&self) -> Vec<Item> {
        let mut items = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(TABLE)
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .expect("the test's own Scan");
            items.extend(page.items().iter().cloned());
            start = page.last_evaluated_key().cloned();
            if start.is_none() {
                return items;
            }
        }
    }

    /// The right Query for `prefix`, sent by the test: what it reads and costs.
    fn right_query(
        &self,
        customer: &Customer,
        prefix: &str,
        forward: bool,
        limit: Option<usize>,
    ) -> RequestRecord {
        let ((), sent) = self.measure(|c| {
            c.query()
                .table_name(TABLE)
                .key_condition_expression("PK = :pk AND begins_with(SK, :prefix)")
                .expression_attribute_values(":pk", s(format!("CUSTOMER#{}", customer.id)))
                .expression_attribute_values(":prefix", s(prefix))
                .scan_index_forward(forward)
                .set_limit(limit.map(|l| l as i32))
                .send()
                .expect("the test's own Query");
        });
        sent.into_iter().next().expect("the test's Query is logged")
    }

    /// What `n` items read from the customer's collection were: every order, or the whole
    /// collection, or some of either — from the test's own count of the collection.
    fn what_was_read(&self, customer: &Customer, n: usize) -> String {
        let orders = customer.orders.len();
        let all = customer.collection();
        if n == all {
            let profile = if customer.profile.is_some() {
                "the profile, "
            } else {
                ""
            };
            format!(
                "the customer's whole item collection — {profile}{} address(es), {} review(s) \
                 and all {orders} orders",
                customer.addresses, customer.reviews
            )
        } else if n == orders {
            format!("all {orders} orders {} ever placed", customer.id)
        } else if n > orders {
            format!(
                "more items than {} has orders ({orders}): items that are not orders were read \
                 too",
                customer.id
            )
        } else {
            format!("{n} of the {orders} orders of {}", customer.id)
        }
    }

    /// A write: one write request, no read, and the table then differs from before by
    /// exactly `want` (in place of `replaces`, if given).
    fn check_write(
        &self,
        call: &str,
        f: impl FnOnce(&Client) -> Result<(), Error>,
        want: &Item,
        replaces: Option<&Item>,
    ) {
        let before = item_set(&self.scan_all());
        let (result, sent) = self.measure(f);
        if let Err(e) = result {
            let refused = sent
                .iter()
                .find(|r| r.error == Some("ConditionalCheckFailedException"));
            let note = match (refused, replaces) {
                (Some(r), Some(_)) => format!(
                    "\nIts {} #{} failed its ConditionExpression against the profile saved \
                     before. Saving a profile again must replace it, and a PutItem replaces the \
                     item with the same key unless a condition of its own refuses.",
                    r.operation, r.seq
                ),
                _ => String::new(),
            };
            fail(format!("{call} failed: {e}{note}"));
        }
        let writes: Vec<&RequestRecord> = sent.iter().filter(|r| is_write(r)).collect();
        if writes.len() != 1 || sent.len() != 1 {
            fail(format!(
                "{call} sent {}: one PutItem stores the whole item, in one request.",
                show_requests(&sent)
            ));
        }
        let after = item_set(&self.scan_all());
        let added: Vec<&String> = after.difference(&before).collect();
        let removed: Vec<&String> = before.difference(&after).collect();
        let want_text = item_text(want);
        let expected_removed: Vec<String> = replaces.map(item_text).into_iter().collect();
        if added == [&want_text] && removed.iter().map(|r| (*r).clone()).eq(expected_removed) {
            return;
        }
        let Some(got) = added.first() else {
            fail(format!(
                "{call} returned Ok(()) and sent {}, but the table holds no new or changed \
                 item afterwards. The item to store:\n{want_text}",
                show_requests(&sent)
            ));
        };
        let notes = write_notes(want, &self.scan_all(), replaces.is_some());
        check_eq_text(
            &want_text,
            got,
            format!(
                "{call}: the item in the table is not the README's layout (the attributes, \
                 sorted by name, with their types).{notes}"
            ),
        );
        fail(format!(
            "{call} stored the right item, but the table changed more than that: {} items \
             added or changed, {} removed or changed.",
            added.len(),
            removed.len()
        ));
    }

    /// A profile read: exactly one GetItem (no Query, no Scan) that read the profile's key.
    fn check_get_item(
        &self,
        call: &str,
        sent: &[RequestRecord],
        customer: &Customer,
        returned: usize,
    ) {
        self.check_no_scan(call, sent, returned, GET_ADVICE);
        if let Some(query) = sent.iter().find(|r| r.operation == "Query") {
            fail(format!(
                "{call} sent {}, which read {} items ({} RCU) to find one profile: {}. Yet \
                 {GET_ADVICE} — for {} RCU at most, however many orders the customer places.",
                show_request(query),
                query.items_read,
                units(query.read_units),
                self.what_was_read(customer, query.items_read as usize),
                units(0.5),
            ));
        }
        if sent.len() != 1 || sent[0].operation != "GetItem" {
            fail(format!(
                "{call} sent {}: {GET_ADVICE}, in one request.",
                show_requests(sent)
            ));
        }
    }

    /// A read of orders: exactly one Query (no Scan, no second request).
    fn check_one_query(&self, call: &str, sent: &[RequestRecord], returned: usize, advice: &str) {
        self.check_no_scan(call, sent, returned, advice);
        if sent.len() != 1 || sent[0].operation != "Query" {
            fail(format!(
                "{call} sent {}: {advice}, in one request.",
                show_requests(sent)
            ));
        }
    }

    fn check_no_scan(&self, call: &str, sent: &[RequestRecord], returned: usize, advice: &str) {
        let scans: Vec<&RequestRecord> = sent.iter().filter(|r| r.operation == "Scan").collect();
        if scans.is_empty() {
            return;
        }
        let read: u64 = scans.iter().map(|r| r.items_read).sum();
        let rcu: f64 = scans.iter().map(|r| r.read_units).sum();
        let partitions: BTreeSet<u32> = scans
            .iter()
            .flat_map(|r| r.partitions.iter().map(|(_, p)| *p))
            .collect();
        let pages = if scans.len() == 1 {
            show_request(scans[0])
        } else {
            format!(
                "{} Scan pages ({} … {})",
                scans.len(),
                show_request(scans[0]),
                show_request(scans[scans.len() - 1])
            )
        };
        let of = if read as usize == self.items {
            format!("all {} items of table {TABLE}", self.items)
        } else {
            format!("{read} of the {} items of table {TABLE}", self.items)
        };
        fail(format!(
            "{call} sent {pages}: it read {read} items — {of}, on {} partitions — for {} RCU, \
             to return {returned}. A Scan reads every item of the table, whatever its \
             FilterExpression keeps, and the cost grows with the whole shop. The customer's \
             items are one item collection (PK = CUSTOMER#<id>): {advice}.",
            partitions.len(),
            units(rcu),
        ));
    }
}

fn create_table(client: &Client) {
    client
        .create_table()
        .table_name(TABLE)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .send()
        .expect("the tests' table");
}

/// Why recent_orders returned the wrong list, from the orders and the request's items_read.
fn fail_recent(
    call: &str,
    customer: &Customer,
    limit: usize,
    want: &[Order],
    got: &[Order],
    sent: &[RequestRecord],
) -> ! {
    let query = &sent[0];
    let oldest: Vec<Order> = customer.orders.iter().take(limit).cloned().collect();
    let mut got_sorted = got.to_vec();
    got_sorted.sort_by_key(order_sk);
    let mut oldest_sorted = oldest.clone();
    oldest_sorted.sort_by_key(order_sk);
    let note = if got.len() < want.len() && query.items_read as usize > got.len() {
        let profile = if customer.profile.is_some() {
            " and the profile (PROFILE)"
        } else {
            ""
        };
        format!(
            "Its {} read {} items (the request log's items_read) and returned {} orders: {} \
             items it read were not returned. Read from the newest end, this collection starts \
             with the customer's reviews (REVIEW#…){profile}, which sort after every ORDER#…. \
             Limit counts the items READ, before any FilterExpression or check in code, so a \
             filtered page comes back short. A key condition on the sort key decides what is \
             read at all.",
            show_request(query),
            query.items_read,
            got.len(),
            query.items_read as usize - got.len()
        )
    } else if got_sorted == oldest_sorted && oldest_sorted != *want {
        format!(
            "These are the customer's {} OLDEST orders: a Query reads in ascending sort-key \
             order unless told otherwise, and its Limit stopped it after the first {}; sorting \
             the page in code cannot bring back the newer orders it never read. A Query can \
             read from the other end of the sort-key range.",
            got.len(),
            limit
        )
    } else if got_sorted == {
        let mut w = want.to_vec();
        w.sort_by_key(order_sk);
        w
    } {
        "These are the right orders in the wrong order: newest first. The sort key starts with \
         placed_at, so descending sort-key order is newest first, and a Query can return \
         descending order itself."
            .to_string()
    } else {
        String::new()
    };
    check_eq_text(
        &orders_text(want),
        &orders_text(got),
        format!(
            "{call} should return the {} newest of the {} orders of {}, newest first. {note}",
            want.len(),
            customer.orders.len(),
            customer.id
        ),
    );
    unreachable!("the lists differ")
}

/// Pointers for a written item that differs from the layout: the sort key, number types.
fn write_notes(want: &Item, table: &[Item], replacing: bool) -> String {
    let mut notes = String::new();
    let pk = want.get("PK");
    let same_key = table
        .iter()
        .find(|i| i.get("PK") == pk && i.get("SK") == want.get("SK"));
    if let (Some(AttributeValue::S(sk)), None) = (want.get("SK"), same_key) {
        notes.push_str(&format!(
            "\nNo item has the key PK = {}, SK = {sk}.",
            pk.and_then(|v| v.as_s().ok()).map_or("?", |v| v.as_str())
        ));
        if sk.starts_with("ORDER#") {
            notes.push_str(
                " An order's sort key is ORDER#<placed_at>#<order_id>: placed_at first, so \
                 that sort-key order is time order (order ids are not given out in time order) \
                 and a Query can read the newest orders first, or one month's, by key.",
            );
        }
    }
    if let Some(item) = same_key {
        // Attribute names sorted: the notes read the same whatever map an item is.
        let mut names: Vec<&String> = want.keys().collect();
        names.sort();
        for name in names {
            match (&want[name], item.get(name)) {
                (AttributeValue::N(n), Some(AttributeValue::S(got))) => notes.push_str(&format!(
                    "\n`{name}` is stored as a string (S \"{got}\"), but the README's item \
                     holds it as a number (N \"{n}\"): numbers travel as strings in DynamoDB's \
                     API, but they are stored, compared and sorted as numbers only as N."
                )),
                (_, None) => notes.push_str(&format!("\n`{name}` is missing.")),
                _ => {}
            }
        }
        if replacing && item.len() > want.len() {
            notes.push_str(
                "\nThe item keeps attributes of the profile saved before: PutItem replaces the \
                 whole item.",
            );
        }
    }
    notes
}

/// The message for a read that returned an error while DynamoDB was up.
fn read_failure(call: &str, e: &Error) -> String {
    let note = if e.to_string().contains("total_cents") {
        "\nThe error names `total_cents`: in the README's item it is a number (N), and an N \
         value comes back as the number's digits in a string, not as an S."
    } else {
        ""
    };
    format!("{call} failed: {e}{note}")
}

// ---------------------------------------------------------------------------------------
// Items and text
// ---------------------------------------------------------------------------------------

const NAMES: [&str; 12] = [
    "Ana", "Bo", "Chidi", "Dana", "Emil", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kai", "Lea",
];

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn profile_item(p: &Profile) -> Item {
    item! {
        "PK" => format!("CUSTOMER#{}", p.customer_id),
        "SK" => "PROFILE",
        "name" => p.name.as_str(),
        "email" => p.email.as_str(),
    }
}

fn order_sk(o: &Order) -> String {
    format!("ORDER#{}#{}", o.placed_at, o.order_id)
}

fn order_item(o: &Order) -> Item {
    item! {
        "PK" => format!("CUSTOMER#{}", o.customer_id),
        "SK" => order_sk(o),
        "order_id" => o.order_id.as_str(),
        "placed_at" => o.placed_at.as_str(),
        "total_cents" => AttributeValue::N(o.total_cents.to_string()),
    }
}

fn item_set(items: &[Item]) -> BTreeSet<String> {
    items.iter().map(item_text).collect()
}

fn show_profile(p: &Profile) -> String {
    format!(
        "Profile {{ customer_id: {:?}, name: {:?}, email: {:?} }}",
        p.customer_id, p.name, p.email
    )
}

fn show_order(o: &Order) -> String {
    format!(
        "Order {{ customer_id: {:?}, order_id: {:?}, placed_at: {:?}, total_cents: {} }}",
        o.customer_id, o.order_id, o.placed_at, o.total_cents
    )
}

fn orders_text(orders: &[Order]) -> String {
    if orders.is_empty() {
        return "(no orders)".to_string();
    }
    orders
        .iter()
        .map(|o| {
            format!(
                "{}  {}  {:<7} {:>6} cents",
                o.customer_id, o.placed_at, o.order_id, o.total_cents
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `GetItem #412 (eventually consistent, InternalServerError)`.
fn show_request(r: &RequestRecord) -> String {
    let mut notes = Vec::new();
    match r.consistent_read {
        Some(true) => notes.push("strongly consistent".to_string()),
        Some(false) => notes.push("eventually consistent".to_string()),
        None => {}
    }
    if let Some(error) = r.error {
        notes.push(error.to_string());
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join(", "))
    };
    format!("{} #{}{notes}", r.operation, r.seq)
}

fn show_requests(requests: &[RequestRecord]) -> String {
    match requests.len() {
        0 => "no request".to_string(),
        n => {
            let shown: Vec<String> = requests.iter().map(show_request).collect();
            format!(
                "{n} request{}: {}",
                if n == 1 { "" } else { "s" },
                shown.join(", ")
            )
        }
    }
}

fn is_write(r: &RequestRecord) -> bool {
    matches!(
        r.operation,
        "PutItem" | "UpdateItem" | "DeleteItem" | "BatchWriteItem" | "TransactWriteItems"
    )
}

/// Read units as the lessons write them: `0.5`, `1`, `2.5`.
fn units(u: f64) -> String {
    if u.fract() == 0.0 {
        format!("{u:.0}")
    } else {
        format!("{u}")
    }
}

/// Unix seconds as the kata's `placed_at`: `2025-06-12T09:30:00Z`.
fn iso(epoch_seconds: u64) -> String {
    let t = engine::world::iso8601(epoch_seconds * 1000);
    format!("{}Z", &t[..19])
}

fn shuffle<T>(v: &mut [T], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}
