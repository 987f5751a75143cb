//! Hidden tests of the `query-pagination` kata.
//!
//! Each test builds a fresh world with the kata's table (`orders`, keys `PK`/`SK`, on-demand),
//! fills some customers' item collections (a `PROFILE` item and orders, `SK =
//! ORDER#<placed_at>#<order_id>`), lets replication settle, and judges the learner's
//! `orders_page` and `all_orders` from the outside: what they return, and what the request
//! log says each call read (`items_read` of its Queries). The test keeps a model of every
//! collection in the order a Query reads it (newest first), so it can tell which items each of
//! the learner's Queries read, how many bytes that was, and whether anything was left to read
//! after it — the facts a failure message names.
//!
//! - `pages_hold_every_order_once`: no cancelled orders; pages of 3–6 walk the collection:
//!   newest first, every page full but the last, every order on exactly one page, `next` None
//!   at the end (one empty page after a full last one is allowed: DynamoDB's own behaviour),
//!   and each call reads at most `page_size` orders past the last order it shows.
//! - `limit_counts_orders_read_not_returned`: about a third of the orders are cancelled; the
//!   screen still shows full pages (Limit counts items read, before the filter).
//! - `an_empty_page_is_not_the_end`: long stretches of cancelled orders, so a Query returns
//!   nothing and a LastEvaluatedKey; the screen must read on.
//! - `a_short_page_is_not_the_end`: orders of 60–95 KB: a Query stops at 1 MB before its
//!   Limit; the screen must read on.
//! - `all_orders_reads_past_one_megabyte`: the export of a collection of about 2 MB, a small
//!   one and an empty one: every order, newest first, each read once.
//! - `a_failed_page_fails_the_export`: the partition's read ceiling is scaled down to 300 RCU a
//!   second, so the third 1 MB page of one second is throttled: the export must return the
//!   error, not the orders before it (after a one-page export that must succeed).

use std::cell::Cell;
use std::time::Duration;

use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::world::log::RequestRecord;
use engine::{item_size, AttributeValue, Client, Error, Item, World, WorldConfig};
use given::{customer_pk, Order, OrdersPage, CANCELLED, TABLE};
use katas_testkit::{check_eq_text, fail, run, seeded, thousands, Rng};
use learner::{all_orders, orders_page};

/// Item data one Query page may read (DynamoDB: 1 MB, before the filter).
const PAGE_BYTES: usize = 1024 * 1024;
/// WCU the fill may spend on one partition in a second (its ceiling is 1,000).
const FILL_WCU_PER_SECOND: u64 = 800;
/// The scaled-down read ceiling of the failing-page test (DynamoDB: 3,000 RCU per partition).
const READ_CEILING: f64 = 300.0;

katas_testkit::learner! {
    /// One page of the orders screen.
    fn orders_page(client: &Client, customer_id: &str, page_size: i32, start: Option<Item>)
        -> Result<OrdersPage, Error>;
    /// Every order of the customer, newest first.
    fn all_orders(client: &Client, customer_id: &str) -> Result<Vec<Order>, Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("pages_hold_every_order_once", pages_hold_every_order_once),
        seeded(
            "limit_counts_orders_read_not_returned",
            limit_counts_orders_read_not_returned,
        ),
        seeded("an_empty_page_is_not_the_end", an_empty_page_is_not_the_end),
        seeded("a_short_page_is_not_the_end", a_short_page_is_not_the_end),
        seeded(
            "all_orders_reads_past_one_megabyte",
            all_orders_reads_past_one_megabyte,
        ),
        seeded(
            "a_failed_page_fails_the_export",
            a_failed_page_fails_the_export,
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// No order is cancelled: the pages are the collection cut into `page_size` pieces.
fn pages_hold_every_order_once(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, WorldConfig::default());
    let page_size = 3 + rng.below(4) as i32;
    let p = page_size as usize;
    let plain = |n: usize| vec![Spec::small("DELIVERED"); n];
    let c1 = s.add_customer("c-1", &plain(4 * p + 1 + rng.below(p as u64 - 1) as usize));
    let c2 = s.add_customer("c-2", &plain(2 * p));
    let c3 = s.add_customer("c-3", &[]);
    s.ready();
    walk_pages(&s, &c1, page_size);
    walk_pages(&s, &c2, page_size);
    walk_pages(&s, &c3, page_size);
}

/// About a third of the orders are cancelled, never more than two in a row.
fn limit_counts_orders_read_not_returned(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, WorldConfig::default());
    let mut specs = Vec::new();
    let mut run_length = 0;
    for _ in 0..33 {
        let cancel = run_length < 2 && rng.below(3) == 0;
        run_length = if cancel { run_length + 1 } else { 0 };
        specs.push(Spec::small(if cancel {
            CANCELLED
        } else {
            ["PLACED", "SHIPPED", "DELIVERED"][rng.below(3) as usize]
        }));
    }
    // The newest order is cancelled, so the first page's first read is filtered out.
    specs.push(Spec::small(CANCELLED));
    let c1 = s.add_customer("c-1", &specs);
    s.add_customer("c-2", &[Spec::small("PLACED"); 6]);
    s.ready();
    walk_pages(&s, &c1, 5);
}

/// Stretches of cancelled orders longer than a page: some Queries read only cancelled orders.
fn an_empty_page_is_not_the_end(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, WorldConfig::default());
    let page_size = 4;
    let open = |n: usize| vec![Spec::small("SHIPPED"); n];
    let cancelled = |n: usize| vec![Spec::small(CANCELLED); n];
    // Oldest first: what was placed first sorts last in a newest-first read.
    let mut specs = Vec::new();
    specs.extend(open(3));
    specs.extend(cancelled(4));
    specs.extend(open(8 + rng.below(3) as usize));
    specs.extend(cancelled(page_size + 2));
    specs.extend(open(6));
    specs.extend(cancelled(3 * page_size + rng.below(3) as usize));
    specs.extend(open(2));
    let c1 = s.add_customer("c-1", &specs);
    s.ready();
    walk_pages(&s, &c1, page_size as i32);
}

/// Large orders: a Query of Limit 20 stops at 1 MB after 12–18 of them.
fn a_short_page_is_not_the_end(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, WorldConfig::default());
    let specs: Vec<Spec> = (0..34)
        .map(|i| Spec {
            status: if i % 9 == 4 { CANCELLED } else { "DELIVERED" },
            receipt: 60_000 + rng.below(35_000) as usize,
        })
        .collect();
    let c1 = s.add_customer("c-1", &specs);
    s.ready();
    walk_pages(&s, &c1, 20);
}

/// The export: a collection of about 2 MB (two or three 1 MB pages), a small one, an empty one.
fn all_orders_reads_past_one_megabyte(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, WorldConfig::default());
    let big: Vec<Spec> = (0..48)
        .map(|i| Spec {
            status: ["PLACED", "SHIPPED", "DELIVERED", CANCELLED][i % 4],
            receipt: if i % 3 == 0 {
                300
            } else {
                60_000 + rng.below(20_000) as usize
            },
        })
        .collect();
    let c1 = s.add_customer("c-1", &big);
    let c2 = s.add_customer("c-2", &[Spec::small("PLACED"); 7]);
    let c3 = s.add_customer("c-3", &[]);
    s.ready();
    for customer in [&c1, &c2, &c3] {
        export_exactly(&s, customer);
    }
}

/// The partition can serve 300 RCU a second here, and every page of the export lands in the
/// same second: the third 1 MB page is throttled, and the export must fail with it. A small
/// customer's export (one page) must still succeed first.
fn a_failed_page_fails_the_export(seed: u64) {
    let mut rng = Rng::new(seed);
    let config = WorldConfig {
        partition_read_ceiling: READ_CEILING,
        ..WorldConfig::default()
    };
    let s = Scene::new(seed, config);
    let specs: Vec<Spec> = (0..50)
        .map(|_| Spec {
            status: "DELIVERED",
            receipt: 70_000 + rng.below(10_000) as usize,
        })
        .collect();
    let c1 = s.add_customer("c-1", &specs);
    let c2 = s.add_customer("c-2", &[Spec::small("SHIPPED"); 7]);
    s.ready();
    // A small export first (one page, half a read unit): the export works at all.
    export_exactly(&s, &c2);
    let from = s.next_seq();
    let result = all_orders(&s.client, &c1.id);
    let sent = s.requests_since(from);
    let refused = sent.iter().find(|r| r.throttled());
    match (result, refused) {
        (Err(_), _) => {}
        (Ok(orders), Some(refused)) => {
            let before: Vec<&RequestRecord> = sent.iter().filter(|r| r.seq < refused.seq).collect();
            let rcu: f64 = before.iter().map(|r| r.read_units).sum();
            fail(format!(
                "all_orders(\"c-1\") returned Ok with {} of the customer's {} orders, but its \
                 page {}, {} #{}, was refused with {}: the customer's partition serves at most \
                 {} RCU a second in \
                 this test (DynamoDB's ceiling, 3,000, scaled down), the pages before it had \
                 taken {} RCU in this second, and every page of the export lands in the same \
                 second. The export went on as if that page did not exist.\nA page that fails \
                 fails the whole export: a shorter list looks complete, and whoever receives \
                 it cannot tell, while an error lets the caller retry the export.\nThe \
                 requests: {}",
                orders.len(),
                c1.orders.len(),
                before.len() + 1,
                refused.operation,
                refused.seq,
                refused.error.unwrap_or("an error"),
                READ_CEILING,
                rcu,
                show_requests(&sent),
            ))
        }
        (Ok(orders), None) => {
            // No page failed: the export stopped early (or read too little) on its own.
            judge_export("all_orders(\"c-1\")", &c1, &orders, &sent);
            fail(format!(
                "all_orders(\"c-1\") returned Ok with {} orders, and none of its requests was \
                 throttled — this test's partition serves {} RCU a second and a full export of \
                 c-1 needs about {} RCU in one second, so a throttled page was expected. The \
                 requests: {}",
                orders.len(),
                READ_CEILING,
                (c1.bytes() / 4096) / 2,
                show_requests(&sent),
            ))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Walking the pages, judging each call
// ---------------------------------------------------------------------------------------

/// Calls `orders_page` from the first page until `next` is `None`, and judges every call:
/// the orders it shows, the page's fullness, `next`, and what it read.
fn walk_pages(s: &Scene, c: &Customer, page_size: i32) {
    let p = page_size as usize;
    let visible: Vec<&Stored> = c.orders.iter().filter(|o| o.status != CANCELLED).collect();
    let mut shown: Vec<&Stored> = Vec::new();
    let mut start: Option<Item> = None;
    let calls = visible.len() / p + 3;
    for number in 1..=calls {
        let call = format!(
            "orders_page(\"{}\", {page_size}, {})",
            c.id,
            if number == 1 {
                "None".to_string()
            } else {
                format!("page {}'s next", number - 1)
            }
        );
        // Where the learner's first Query starts: after the item its start key names.
        let resume = match &start {
            None => 0,
            Some(key) => c.position_after(key),
        };
        let from = s.next_seq();
        let page = orders_page(&s.client, &c.id, page_size, start.clone())
            .unwrap_or_else(|e| fail(format!("{call} (page {number}) failed: {e}")));
        let sent = s.requests_since(from);
        check_queries_only(&call, &sent);
        let reads = c.reads_of(resume, &sent);
        let context = format!(
            "{call} — page {number} of customer {} ({} orders, {} of them cancelled; pages of \
             {page_size}) —",
            c.id,
            c.orders.len(),
            c.orders.len() - visible.len()
        );
        if page.orders.len() > p {
            fail(format!(
                "{context} returned {} orders: a page holds at most page_size = {page_size}. {}",
                page.orders.len(),
                show_reads(&reads)
            ));
        }
        // The orders the page shows must be the next ones, in order.
        let expected: Vec<&Stored> = visible.iter().skip(shown.len()).take(p).copied().collect();
        let got: Vec<&Order> = page.orders.iter().collect();
        let mut matched = 0;
        for (want, got) in expected.iter().zip(&got) {
            if want.order != **got {
                break;
            }
            matched += 1;
        }
        if matched < got.len() {
            let wrong = got[matched];
            let cause = explain_wrong_order(c, &shown, &visible, wrong, &start);
            let want_text = show_orders(expected.iter().map(|o| &o.order));
            let got_text = show_orders(got.iter().copied());
            katas_testkit::Failure::compare(
                format!(
                    "{context} shows the wrong orders: its order {} is {}. {cause}",
                    matched + 1,
                    show_order(wrong)
                ),
                want_text,
                got_text,
            )
            .raise();
        }
        shown.extend(expected.iter().take(got.len()).copied());
        let left = visible.len() - shown.len();
        let end_after = shown.last().map_or(0, |o| o.position + 1);
        let read_items: usize = reads.iter().map(|r| r.items).sum();
        // Reads: up to the last order shown plus one Limit's worth, or to the end on the last.
        let allowed = if page.next.is_none() {
            c.orders.len().saturating_sub(resume.min(end_after))
        } else {
            end_after.saturating_sub(resume) + p
        };
        if read_items > allowed {
            fail(format!(
                "{context} read {} items to show {} orders: a page reads the orders it shows, \
                 the cancelled ones between them, and at most one Limit (page_size = \
                 {page_size} items) past the last order it shows — {allowed} items here. \
                 Reading more is paying for orders no one sees: every item a Query reads costs \
                 its bytes in RCU, whether the filter keeps it or not. A Query can begin after a \
                 given key and stop after a given number of items. {}",
                thousands(read_items as i64),
                page.orders.len(),
                show_reads(&reads)
            ));
        }
        if page.orders.len() < p && left > 0 {
            fail(format!(
                "{context} returned {} orders, not {page_size}, {}, although {left} more \
                 orders follow (the next: {}). Every page but the last is full. {}",
                page.orders.len(),
                if page.next.is_some() {
                    "and a next key"
                } else {
                    "and next = None"
                },
                show_order(&visible[shown.len()].order),
                short_page_cause(c, &reads, page.next.is_none())
            ));
        }
        if page.next.is_none() {
            if left > 0 {
                fail(format!(
                    "{context} returned a full page and next = None, although {left} more orders \
                     follow (the next: {}). {}",
                    show_order(&visible[shown.len()].order),
                    short_page_cause(c, &reads, true)
                ));
            }
            return;
        }
        if page.orders.len() < p {
            // Short, nothing follows, yet a next key: only an empty page may come after a
            // full one.
            fail(format!(
                "{context} returned {} orders, not {page_size}, and a next key. No order \
                 follows, so this page is the last one and must say so (next = None): a page \
                 that is not full is the last page. {}",
                page.orders.len(),
                short_page_cause(c, &reads, false)
            ));
        }
        start = page.next;
    }
    fail(format!(
        "orders_page(\"{}\", {page_size}, ..) was called {calls} times, following each page's \
         next, and never returned next = None: the customer has {} visible orders, so {} pages \
         (one more, empty, after a full last page) were expected",
        c.id,
        visible.len(),
        visible.len().div_ceil(p).max(1)
    ));
}

/// Why a page showed `wrong` where another order was expected, from the model.
fn explain_wrong_order(
    c: &Customer,
    shown: &[&Stored],
    visible: &[&Stored],
    wrong: &Order,
    start: &Option<Item>,
) -> String {
    let Some(found) = c.orders.iter().find(|o| o.order == *wrong) else {
        return "That order is not one of this customer's orders.".to_string();
    };
    if found.status == CANCELLED {
        return format!(
            "It is cancelled, and the screen hides cancelled orders — {} are cancelled here. \
             A Query can drop items after reading them and before returning them (a \
             FilterExpression); `status` is one of DynamoDB's reserved words, so an \
             expression can name it only through a placeholder.",
            c.orders.iter().filter(|o| o.status == CANCELLED).count()
        );
    }
    if shown.iter().any(|o| o.order == *wrong) {
        return "That order was already on an earlier page: the page did not start after the \
                previous page's last order. A Query starts after the key its ExclusiveStartKey \
                names, and at the start of the collection without one."
            .to_string();
    }
    let expected = visible.get(shown.len());
    if let (Some(expected), Some(last)) = (expected, shown.last()) {
        if found.position > expected.position {
            let skipped: Vec<&Stored> = visible
                .iter()
                .filter(|o| o.position > last.position && o.position < found.position)
                .copied()
                .collect();
            let key_note = match start.as_ref().map(|k| c.position_after(k)) {
                Some(resume) if resume > last.position + 1 => format!(
                    " The previous page's next was the key of order {} (SK = {}), which that \
                     page read but did not show: a Query's LastEvaluatedKey is the last item it \
                     *read*, so when a \
                     page keeps fewer orders than its Queries read, that key lies past orders \
                     no page shows: the next page starts after the last order shown.",
                    c.orders[resume - 1].order.order_id,
                    c.orders[resume - 1].sk
                ),
                _ => String::new(),
            };
            return format!(
                "The {} order(s) after the previous page's last order, {}, are on no page: {}.{}",
                skipped.len(),
                last.order.order_id,
                skipped
                    .iter()
                    .map(|o| o.order.order_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                key_note
            );
        }
        if found.position < last.position {
            return "It is newer than the previous page's last order: each page starts after the \
                    previous page's last order, and the orders run newest first (descending \
                    sort-key order)."
                .to_string();
        }
    }
    if visible.first().is_some_and(|first| first.order != *wrong) && shown.is_empty() {
        return "The first page starts with the newest order: sort keys hold the time the order \
                was placed, and a Query reads them in ascending order, oldest first, unless \
                told otherwise."
            .to_string();
    }
    String::new()
}

/// Why a page came back short (or ended): the last Query's stop, read off the model.
fn short_page_cause(c: &Customer, reads: &[QueryRead], ended: bool) -> String {
    let Some(last) = reads.last() else {
        return "It sent no Query.".to_string();
    };
    let more = last.end < c.orders.len();
    let why_stopped = if last.bytes >= PAGE_BYTES {
        format!(
            "it stopped at DynamoDB's 1 MB page: {} items, {} bytes of data read",
            last.items,
            thousands(last.bytes as i64)
        )
    } else if last.returned == 0 && last.items > 0 {
        format!(
            "{} it read {} cancelled, so the filter left it empty",
            if last.items == 1 {
                "the one item"
            } else {
                "all the items"
            },
            if last.items == 1 { "was" } else { "were" }
        )
    } else {
        format!(
            "it read {} items (its Limit) and the filter dropped the {} cancelled among them",
            last.items,
            last.items - last.returned
        )
    };
    let mut text = format!(
        "Its last request, {}, read {} and returned {} order(s): {why_stopped}.",
        last.shown,
        plural(last.items, "item"),
        last.returned
    );
    if more {
        text.push_str(&format!(
            " {} items were left to read after it, so it carried a LastEvaluatedKey.",
            c.orders.len() - last.end
        ));
    }
    if ended && more {
        text.push_str(
            " A page that is short — or empty — is not the end: only a page without a \
             LastEvaluatedKey is.",
        );
    }
    if last.bytes < PAGE_BYTES && last.returned < last.items && !ended {
        text.push_str(
            " Limit counts the items a Query reads, before the FilterExpression: a page of \
             page_size visible orders can take more than one Query.",
        );
    }
    if reads.len() > 1 {
        text.push_str(&format!(" {}", show_reads(reads)));
    }
    text
}

/// Calls `all_orders` for a customer and judges it.
fn export_exactly(s: &Scene, c: &Customer) {
    let call = format!("all_orders(\"{}\")", c.id);
    let from = s.next_seq();
    let got = all_orders(&s.client, &c.id).unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
    let sent = s.requests_since(from);
    judge_export(&call, c, &got, &sent);
}

/// Judges an export's list and reads: every order, newest first, each read once.
fn judge_export(call: &str, c: &Customer, got: &[Order], sent: &[RequestRecord]) {
    check_queries_only(call, sent);
    let reads = c.reads_of(0, sent);
    let want: Vec<&Order> = c.orders.iter().map(|o| &o.order).collect();
    let got_refs: Vec<&Order> = got.iter().collect();
    let size = format!(
        "customer {} has {} orders, {} bytes",
        c.id,
        c.orders.len(),
        thousands(c.bytes() as i64)
    );
    if got_refs.len() < want.len() && want.starts_with(&got_refs) {
        let last = reads.last();
        let stopped = match last {
            Some(q) if q.bytes >= PAGE_BYTES => format!(
                "Its last request, {}, stopped at DynamoDB's 1 MB page — {} orders, {} bytes of \
                 data read — with {} orders left to read after it, so it carried a \
                 LastEvaluatedKey. ",
                q.shown,
                q.items,
                thousands(q.bytes as i64),
                c.orders.len() - q.end
            ),
            Some(q) => format!(
                "Its last request, {}, read {} orders with {} left after it, so it carried a \
                 LastEvaluatedKey. ",
                q.shown,
                q.items,
                c.orders.len() - q.end
            ),
            None => String::new(),
        };
        fail(format!(
            "{call} returned the newest {} of the customer's {} orders ({size}) and stopped. It \
             sent {} Query request(s). {stopped}A Query returns at most 1 MB of data read per \
             call, fewer items if a Limit is reached first; a page that is shorter than its \
             Limit is not the last one. Only a page without a LastEvaluatedKey is; a \
             LastEvaluatedKey marks where the read stopped, for a next Query to go on from.",
            got.len(),
            c.orders.len(),
            reads.len()
        ));
    }
    check_eq_text(
        &show_orders(want.iter().copied()),
        &show_orders(got_refs.iter().copied()),
        format!(
            "{call}: every order of the customer, cancelled ones too, newest first \
             (descending sort-key order) — {size}"
        ),
    );
    let read_items: usize = reads.iter().map(|r| r.items).sum();
    if read_items != c.orders.len() {
        fail(format!(
            "{call} returned every order, but its Queries read {} items for {} orders: each \
             order should be read once. A page that starts over, or a key condition that \
             reads the PROFILE item too, pays for items twice or for items that are not \
             orders. Its Queries: {}",
            thousands(read_items as i64),
            c.orders.len(),
            show_reads(&reads)
        ));
    }
}

/// Fails unless every request of the call is a Query on the table.
fn check_queries_only(call: &str, sent: &[RequestRecord]) {
    if let Some(other) = sent
        .iter()
        .find(|r| r.operation != "Query" || !r.touches(TABLE) || r.index.is_some())
    {
        let why = if other.operation == "Scan" {
            " A Scan reads every customer's items, the whole table, to find one customer's: \
             a Query on the customer's partition key reads only theirs."
        } else {
            ""
        };
        fail(format!(
            "{call} sent {}: only Queries on the table `{TABLE}` are needed (a customer's \
             orders are one item collection).{why} Its requests: {}",
            show_request(other),
            show_requests(sent)
        ));
    }
}

// ---------------------------------------------------------------------------------------
// The world, the customers, the model
// ---------------------------------------------------------------------------------------

struct Scene {
    world: World,
    client: Client,
    /// WCU the fill has spent in the current second.
    spent: Cell<u64>,
    /// Orders placed so far (ids and times are unique across customers).
    placed: Cell<u64>,
}

/// An order to create: its status and the length of its receipt.
#[derive(Clone, Copy)]
struct Spec {
    status: &'static str,
    receipt: usize,
}

impl Spec {
    fn small(status: &'static str) -> Spec {
        Spec {
            status,
            receipt: 200,
        }
    }
}

/// One stored order, with where a newest-first Query reads it.
struct Stored {
    order: Order,
    sk: String,
    status: String,
    size: usize,
    /// Index in the newest-first read order of the customer's orders.
    position: usize,
}

struct Customer {
    id: String,
    /// Newest first: the order a Query with ScanIndexForward = false reads them in.
    orders: Vec<Stored>,
}

/// What one of the learner's Queries read, placed on the model.
struct QueryRead {
    /// `Query #12`.
    shown: String,
    items: usize,
    /// Index in `orders` after the last item it read.
    end: usize,
    bytes: usize,
    /// The visible orders among what it read (what its filter let through).
    returned: usize,
}

impl Customer {
    /// Where a Query starting after `key` begins reading (index into `orders`).
    fn position_after(&self, key: &Item) -> usize {
        let sk = match key.get("SK") {
            Some(AttributeValue::S(sk)) => sk,
            _ => return 0,
        };
        self.orders
            .iter()
            .position(|o| o.sk.as_str() < sk.as_str())
            .unwrap_or(self.orders.len())
    }

    fn bytes(&self) -> usize {
        self.orders.iter().map(|o| o.size).sum()
    }

    /// The Queries of a call, each placed after the one before, the first at `from`.
    fn reads_of(&self, from: usize, sent: &[RequestRecord]) -> Vec<QueryRead> {
        let mut at = from;
        sent.iter()
            .filter(|r| r.operation == "Query")
            .map(|r| {
                let begin = at.min(self.orders.len());
                let end = (begin + r.items_read as usize).min(self.orders.len());
                let read = &self.orders[begin..end];
                at = end;
                QueryRead {
                    shown: format!("{} #{}", r.operation, r.seq),
                    items: r.items_read as usize,
                    end,
                    bytes: read.iter().map(|o| o.size).sum(),
                    returned: read.iter().filter(|o| o.status != CANCELLED).count(),
                }
            })
            .collect()
    }
}

impl Scene {
    fn new(seed: u64, config: WorldConfig) -> Scene {
        let world = World::with_config(WorldConfig { seed, ..config });
        let client = world.client();
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
        Scene {
            world,
            client,
            spent: Cell::new(0),
            placed: Cell::new(0),
        }
    }

    /// Writes one item, moving the clock on a second before the fill would pass what one
    /// partition takes in a second.
    fn put(&self, item: Item) {
        let wcu = item_size(&item).div_ceil(1024) as u64;
        if self.spent.get() + wcu > FILL_WCU_PER_SECOND {
            self.world.advance(Duration::from_secs(1));
            self.spent.set(0);
        }
        self.spent.set(self.spent.get() + wcu);
        self.client
            .put_item()
            .table_name(TABLE)
            .set_item(Some(item))
            .send()
            .expect("the tests' fill");
    }

    /// Stores a customer's profile and orders (`specs` oldest first, one every 37 minutes).
    fn add_customer(&self, id: &str, specs: &[Spec]) -> Customer {
        let pk = customer_pk(id);
        self.put(Item::from([
            ("PK".to_string(), AttributeValue::S(pk.clone())),
            ("SK".to_string(), AttributeValue::S("PROFILE".into())),
            (
                "name".to_string(),
                AttributeValue::S(format!("Customer {id}")),
            ),
        ]));
        let mut orders = Vec::new();
        for spec in specs {
            let n = self.placed.get() + 1;
            self.placed.set(n);
            let epoch_ms =
                (self.world.config().epoch_seconds - 400 * 86_400) * 1000 + n * 37 * 60 * 1000;
            let placed_at = format!("{}Z", engine::world::iso8601(epoch_ms));
            let order_id = format!("o-{n:04}");
            let sk = format!("ORDER#{placed_at}#{order_id}");
            let total_cents = 500 + (n * 7_919) % 20_000;
            let item = Item::from([
                ("PK".to_string(), AttributeValue::S(pk.clone())),
                ("SK".to_string(), AttributeValue::S(sk.clone())),
                ("order_id".to_string(), AttributeValue::S(order_id.clone())),
                (
                    "placed_at".to_string(),
                    AttributeValue::S(placed_at.clone()),
                ),
                ("status".to_string(), AttributeValue::S(spec.status.into())),
                (
                    "total_cents".to_string(),
                    AttributeValue::N(total_cents.to_string()),
                ),
                (
                    "receipt".to_string(),
                    AttributeValue::S(receipt(&order_id, spec.receipt)),
                ),
            ]);
            let size = item_size(&item);
            self.put(item);
            orders.push(Stored {
                order: Order {
                    order_id,
                    placed_at,
                    status: spec.status.to_string(),
                    total_cents,
                },
                sk,
                status: spec.status.to_string(),
                size,
                position: 0,
            });
        }
        orders.reverse();
        for (i, o) in orders.iter_mut().enumerate() {
            o.position = i;
        }
        Customer {
            id: id.to_string(),
            orders,
        }
    }

    /// Replication settles, and the reads start in a second of their own.
    fn ready(&self) {
        self.world.settle();
        self.world.advance(Duration::from_secs(1));
    }

    fn next_seq(&self) -> u64 {
        self.world.request_totals().requests
    }

    fn requests_since(&self, from: u64) -> Vec<RequestRecord> {
        self.world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= from)
            .collect()
    }
}

/// A receipt of `len` bytes.
fn receipt(order_id: &str, len: usize) -> String {
    let line = format!("{order_id} 1 x tea 4.50 EUR; ");
    line.repeat(len / line.len() + 1)[..len].to_string()
}

// ---------------------------------------------------------------------------------------
// Showing things
// ---------------------------------------------------------------------------------------

fn show_order(o: &Order) -> String {
    format!("{} (placed {}, {})", o.order_id, o.placed_at, o.status)
}

fn show_orders<'a>(orders: impl Iterator<Item = &'a Order>) -> String {
    let lines: Vec<String> = orders.map(show_order).collect();
    if lines.is_empty() {
        "(no orders)".to_string()
    } else {
        lines.join("\n")
    }
}

/// `Query #12 (eventually consistent, ThrottlingException)`.
fn show_request(r: &RequestRecord) -> String {
    let mut notes = Vec::new();
    if (r.operation == "Query" || r.operation == "Scan") && r.succeeded() {
        notes.push(format!("{} items read", r.items_read));
    }
    if r.consistent_read == Some(true) {
        notes.push("strongly consistent".to_string());
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
    if requests.is_empty() {
        return "no request".to_string();
    }
    requests
        .iter()
        .map(show_request)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Query #12: 5 items read, 2 returned, 1,234 bytes` for each Query of a call.
fn show_reads(reads: &[QueryRead]) -> String {
    if reads.is_empty() {
        return "It sent no Query.".to_string();
    }
    let shown: Vec<String> = reads
        .iter()
        .map(|q| {
            format!(
                "{} read {} ({} not cancelled), {} bytes",
                q.shown,
                plural(q.items, "item"),
                q.returned,
                thousands(q.bytes as i64)
            )
        })
        .collect();
    format!("Its Queries: {}.", shown.join("; "))
}

/// `1 item`, `3 items`.
fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{} {what}s", thousands(n as i64))
    }
}
