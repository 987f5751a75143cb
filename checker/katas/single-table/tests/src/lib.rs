//! Hidden tests of the `single-table` kata.
//!
//! Each test opens a fresh world, lets the learner's `create_table` design the table, fills a
//! shop through the learner's writes (24 customers, about 110 orders with their lines, every
//! status represented; the two profile tests write customers only, so they pass before
//! `place_order` works), lets the indexes settle, and then judges from the outside only — the
//! kata's public functions, the request log, DescribeTable, and Scans of every table and index
//! the test makes itself:
//!
//! - `one_table_with_typed_items`: every item lives in one table and says what it is (`type`).
//! - `customer_profile`, `customer_by_email`, `order_by_id`, `order_with_items_in_one_query`,
//!   `customer_orders_newest_first_in_pages`, `orders_by_status_newest_first`: each access
//!   pattern returns the right answer and is served by exactly one GetItem or one Query —
//!   never a Scan, never a second request, and a Query reads (`items_read`) at most one item
//!   more than it returns, so a FilterExpression cannot do a key's work (the request log of
//!   that call). The pages of a customer's orders name any order a cursor skipped.
//! - `place_order_is_one_transaction`: an order's writes are one TransactWriteItems, and the
//!   order shows up in every view.
//! - `status_change_moves_the_order`: once the index settles, a changed order has left its old
//!   status list and joined the new one; changing an unknown order is an error that writes
//!   nothing.
//! - `status_change_is_all_or_nothing`: with the leader of each partition that holds a copy of
//!   the status stopped in turn, a status change leaves the copies agreeing; and it is one
//!   write request.
//! - `a_failed_line_cancels_the_whole_order`: an existing order id, or a line DynamoDB refuses
//!   (over the 400 KB item limit), fails the order and leaves every table as it was.
//! - `indexes_are_sparse`: no index holds an order line, or an order or profile twice.
//! - `indexes_project_what_their_patterns_need`: no index projects ALL (DescribeTable).

use std::collections::BTreeSet;

use engine::error::ProvideErrorMetadata;
use engine::types::{KeyType, ProjectionType, TableDescription};
use engine::world::log::RequestRecord;
use engine::{AttributeValue, Client, Error, Item, World};
use given::{Customer, Order, OrderItem, OrderStatus, OrderWithItems};
use katas_testkit::items::item_text;
use katas_testkit::{check_eq, fail, run, seeded, thousands, wrap, Failure, Rng};
use learner::{
    change_order_status, create_customer, create_table, customer, customer_by_email,
    customer_orders, order, order_with_items, orders_by_status, place_order,
};

katas_testkit::learner! {
    /// Creates the table and its indexes.
    fn create_table(client: &Client) -> Result<(), Error>;
    /// Stores a new customer's profile.
    fn create_customer(client: &Client, customer: &Customer) -> Result<(), Error>;
    /// Places an order with its lines in one transaction.
    fn place_order(client: &Client, order: &Order, items: &[OrderItem]) -> Result<(), Error>;
    /// Moves an order to another status.
    fn change_order_status(client: &Client, order_id: &str, status: OrderStatus) -> Result<(), Error>;
    /// Access pattern 1.
    fn customer(client: &Client, customer_id: &str) -> Result<Option<Customer>, Error>;
    /// Access pattern 2.
    fn customer_orders(client: &Client, customer_id: &str, page_size: usize, cursor: Option<&str>) -> Result<given::Page<Order>, Error>;
    /// Access pattern 3.
    fn order_with_items(client: &Client, order_id: &str) -> Result<Option<OrderWithItems>, Error>;
    /// Access pattern 4.
    fn order(client: &Client, order_id: &str) -> Result<Option<Order>, Error>;
    /// Access pattern 5.
    fn orders_by_status(client: &Client, status: OrderStatus, limit: usize) -> Result<Vec<Order>, Error>;
    /// Access pattern 6.
    fn customer_by_email(client: &Client, email: &str) -> Result<Option<Customer>, Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("one_table_with_typed_items", one_table_with_typed_items),
        seeded("customer_profile", customer_profile),
        seeded("customer_by_email", customer_by_email_test),
        seeded(
            "customer_orders_newest_first_in_pages",
            customer_orders_newest_first_in_pages,
        ),
        seeded("order_by_id", order_by_id),
        seeded(
            "order_with_items_in_one_query",
            order_with_items_in_one_query,
        ),
        seeded(
            "orders_by_status_newest_first",
            orders_by_status_newest_first,
        ),
        seeded(
            "place_order_is_one_transaction",
            place_order_is_one_transaction,
        ),
        seeded(
            "status_change_moves_the_order",
            status_change_moves_the_order,
        ),
        seeded(
            "status_change_is_all_or_nothing",
            status_change_is_all_or_nothing,
        ),
        seeded(
            "a_failed_line_cancels_the_whole_order",
            a_failed_line_cancels_the_whole_order,
        ),
        seeded("indexes_are_sparse", indexes_are_sparse),
        seeded(
            "indexes_project_what_their_patterns_need",
            indexes_project_what_their_patterns_need,
        ),
    ]);
}

// What each access pattern should be, said once for every failure message.
// Each names the rule the pattern breaks, not the key design that keeps it (the hints do).
const PROFILE_ADVICE: &str = "the customer id is all this call knows, and an item whose key \
     is built from what the caller knows is one GetItem away";
const EMAIL_ADVICE: &str = "the table's key cannot find an email, but a global secondary \
     index keyed by what the caller knows can, and one that holds only profiles reads nothing \
     else";
const CUSTOMER_ORDERS_ADVICE: &str = "items that share a partition key come back in sort-key \
     order, so a customer's orders kept in the customer's item collection, sorted by when they \
     were placed, are one Query a page, and Limit stops the read at the page";
const ORDER_WITH_ITEMS_ADVICE: &str = "items read together can share a partition key, and one \
     Query then returns them all — the join, done when the order was written";
const ORDER_ADVICE: &str = "the order id is all this call knows, and an item whose key is \
     built from what the caller knows is one GetItem away";
const STATUS_ADVICE: &str = "a global secondary index answers a question the table's key \
     cannot: keyed by what the call knows, holding order headers only and sorted by when they \
     were placed, it can return the newest first and stop at the limit";

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// Customers, order references, orders and lines share one table, each item typed.
fn one_table_with_typed_items(seed: u64) {
    let shop = Shop::build(seed);
    let tables = shop.tables();
    if tables.len() != 1 {
        let counts: Vec<String> = tables
            .iter()
            .map(|t| format!("{t} ({} items)", shop.scan(t).len()))
            .collect();
        fail(format!(
            "the shop is spread over {} tables: {}. Single-table design keeps customers, orders \
             and order lines in ONE table, with generic key names, so that items read \
             together share a partition key and one Query returns them together.",
            tables.len(),
            counts.join(", ")
        ));
    }
    let items = shop.scan(&tables[0]);
    let untyped: Vec<&Item> = items
        .iter()
        .filter(|i| !matches!(i.get("type"), Some(AttributeValue::S(_))))
        .collect();
    if let Some(first) = untyped.first() {
        fail(format!(
            "{} of the {} items in `{}` have no string attribute `type`, for example:\n{}\n\
             In a single table, keys like PK = ORDER#o-9 mean little on their own: give every \
             item a `type` (customer, orderref, order, item) saying what it is.",
            untyped.len(),
            items.len(),
            tables[0],
            item_text(first)
        ));
    }
}

/// Pattern 1: a customer's profile by id.
fn customer_profile(seed: u64) {
    let shop = Shop::customers_only(seed);
    let mut rng = Rng::new(seed ^ 1);
    for _ in 0..5 {
        let want = &shop.customers[rng.below(shop.customers.len() as u64) as usize];
        let call = format!("customer({:?})", want.id);
        let (got, log) = shop.measure(&call, |c| customer(c, &want.id));
        check_eq(
            Some(want.clone()),
            got.clone(),
            format!("{call} returned the wrong profile"),
        );
        shop.one_read(&call, &log, usize::from(got.is_some()), PROFILE_ADVICE);
    }
    let call = "customer(\"c-999\")".to_string();
    let (got, log) = shop.measure(&call, |c| customer(c, "c-999"));
    check_eq(None, got, format!("{call}: there is no customer c-999"));
    shop.one_read(&call, &log, 0, PROFILE_ADVICE);
}

/// Pattern 6: a customer by email, through an index.
fn customer_by_email_test(seed: u64) {
    let shop = Shop::customers_only(seed);
    let mut rng = Rng::new(seed ^ 6);
    for _ in 0..5 {
        let want = &shop.customers[rng.below(shop.customers.len() as u64) as usize];
        let call = format!("customer_by_email({:?})", want.email);
        let (got, log) = shop.measure(&call, |c| customer_by_email(c, &want.email));
        if got.is_none() {
            fail(format!(
                "{call} found nobody, but customer {} has that email (the test let the indexes \
                 settle first); its requests: {}. What create_customer writes must be what the \
                 lookup reads: an index holds an item only once it carries the index's key \
                 attributes.",
                want.id,
                describe(&log.iter().collect::<Vec<_>>())
            ));
        }
        check_eq(
            Some(want.clone()),
            got,
            format!("{call} returned the wrong customer"),
        );
        shop.one_read(&call, &log, 1, EMAIL_ADVICE);
    }
    let call = "customer_by_email(\"nobody@example.com\")".to_string();
    let (got, log) = shop.measure(&call, |c| customer_by_email(c, "nobody@example.com"));
    check_eq(None, got, format!("{call}: no customer has that email"));
    shop.one_read(&call, &log, 0, EMAIL_ADVICE);
}

/// Pattern 2: a customer's orders, newest first, one page per Query.
fn customer_orders_newest_first_in_pages(seed: u64) {
    let shop = Shop::build(seed);
    let regular = shop.customers[0].id.clone();
    let want = shop.orders_of(&regular);
    for page_size in [4usize, 3, 100] {
        let mut got: Vec<Order> = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            pages += 1;
            let call = format!(
                "customer_orders({regular:?}, {page_size}, {})",
                cursor
                    .as_deref()
                    .map_or("None".to_string(), |c| format!("Some({c:?})"))
            );
            let (page, log) = shop.measure(&call, |c| {
                customer_orders(c, &regular, page_size, cursor.as_deref())
            });
            shop.one_read(&call, &log, page.items.len(), CUSTOMER_ORDERS_ADVICE);
            if page.items.len() > page_size {
                fail(format!(
                    "{call} returned {} orders on one page, more than page_size = {page_size}: \
                     a page holds at most page_size orders, and a Query stops reading at its \
                     Limit",
                    page.items.len()
                ));
            }
            if let Some(skipped) = skipped_at_boundary(&want, &got, &page.items) {
                let last = got.last().map_or(String::new(), |o| {
                    format!(
                        "Page {} ended with {} ({}), and ",
                        pages - 1,
                        o.id,
                        o.placed_at
                    )
                });
                fail(format!(
                    "{call} began with {}, but {} newer order{} of {regular} came before it and \
                     {} on no page: {}. {last}the cursor it handed over made page {pages} start \
                     after {}. The next page starts after the key the cursor names, so \
                     the cursor must mark the last order the page SHOWS — not one that was read \
                     and dropped.",
                    page.items[0].id,
                    skipped.len(),
                    if skipped.len() == 1 { "" } else { "s" },
                    if skipped.len() == 1 { "was" } else { "were" },
                    skipped
                        .iter()
                        .map(|o| format!("{} ({})", o.id, o.placed_at))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if skipped.len() == 1 { "it" } else { "them" },
                ));
            }
            let more = want.len() > got.len() + page.items.len();
            if more && page.items.len() < page_size {
                fail(format!(
                    "{call} returned {} orders although page_size is {page_size} and {} more \
                     orders follow: a page should be full unless it is the last one. A Query's \
                     Limit counts the items it reads, before any FilterExpression (or your code) \
                     drops some: a page comes out short when the key condition also selects \
                     items that are not orders",
                    page.items.len(),
                    want.len() - got.len() - page.items.len()
                ));
            }
            got.extend(page.items);
            match page.next_cursor {
                Some(next) if pages <= want.len() / page_size + 1 => cursor = Some(next),
                Some(next) => fail(format!(
                    "customer_orders({regular:?}, {page_size}, …) still returned a cursor \
                     ({next:?}) after {pages} pages, for a customer with {} orders: the cursor \
                     must move past the orders already shown and be None on the last page (a \
                     Query says where it stopped in its LastEvaluatedKey, and none on its last \
                     page)",
                    want.len()
                )),
                None => break,
            }
        }
        check_eq(
            &want,
            &got,
            format!(
                "the pages of customer_orders({regular:?}, {page_size}, …) put together should be \
                 all {} orders of {regular}, newest first (by placed_at), each exactly once",
                want.len()
            ),
        );
    }

    // A customer who never ordered: an empty page and no cursor.
    let idle = shop
        .customers
        .last()
        .map(|c| c.id.clone())
        .unwrap_or_default();
    let call = format!("customer_orders({idle:?}, 4, None)");
    let (page, log) = shop.measure(&call, |c| customer_orders(c, &idle, 4, None));
    shop.one_read(&call, &log, page.items.len(), CUSTOMER_ORDERS_ADVICE);
    check_eq(
        Vec::<Order>::new(),
        page.items,
        format!("{call}: {idle} has placed no order"),
    );
    check_eq(
        None,
        page.next_cursor,
        format!("{call}: a customer without orders has no next page"),
    );
}

/// The orders a page skipped at its start: those between the orders shown so far (`got`) and
/// the page's first order, in the full list `want`. `None` if the page starts where it should
/// (or is wrong in another way, which the comparison of every page reports).
fn skipped_at_boundary(want: &[Order], got: &[Order], page: &[Order]) -> Option<Vec<Order>> {
    let first = page.first()?;
    let at = want.iter().position(|o| o.id == first.id)?;
    if got.is_empty() || at <= got.len() || want[..got.len()] != *got {
        return None;
    }
    Some(want[got.len()..at].to_vec())
}

/// Pattern 4: an order by its id alone.
fn order_by_id(seed: u64) {
    let shop = Shop::build(seed);
    let mut rng = Rng::new(seed ^ 4);
    for _ in 0..5 {
        let (want, _) = &shop.orders[rng.below(shop.orders.len() as u64) as usize];
        let call = format!("order({:?})", want.id);
        let (got, log) = shop.measure(&call, |c| order(c, &want.id));
        check_eq(
            Some(want.clone()),
            got.clone(),
            format!("{call} returned the wrong order"),
        );
        shop.one_read(&call, &log, 1, ORDER_ADVICE);
    }
    let call = "order(\"o-nope\")".to_string();
    let (got, log) = shop.measure(&call, |c| order(c, "o-nope"));
    check_eq(None, got, format!("{call}: there is no order o-nope"));
    shop.one_read(&call, &log, 0, ORDER_ADVICE);
}

/// Pattern 3: an order with its lines, in one Query — a 12-line order included.
fn order_with_items_in_one_query(seed: u64) {
    let shop = Shop::build(seed);
    let mut rng = Rng::new(seed ^ 3);
    let mut picks = vec![BIG_ORDER.to_string()];
    for _ in 0..3 {
        picks.push(
            shop.orders[rng.below(shop.orders.len() as u64) as usize]
                .0
                .id
                .clone(),
        );
    }
    for id in picks {
        let (header, lines) = shop
            .orders
            .iter()
            .find(|(o, _)| o.id == id)
            .cloned()
            .unwrap_or_else(|| fail(format!("the test lost order {id}")));
        let call = format!("order_with_items({id:?})");
        let (got, log) = shop.measure(&call, |c| order_with_items(c, &id));
        shop.one_read(&call, &log, 1 + lines.len(), ORDER_WITH_ITEMS_ADVICE);
        if log.len() == 1 && log[0].operation != "Query" {
            fail(format!(
                "{call} used one {} — an order and its {} lines are several items: one Query \
                 over their shared partition key returns them all",
                log[0].operation,
                lines.len()
            ));
        }
        let Some(got) = got else {
            fail(format!("{call} returned None, but order {id} was placed"))
        };
        check_eq(&header, &got.order, format!("{call}: the order header"));
        let sorted = |v: &[OrderItem]| {
            let mut v = v.to_vec();
            v.sort_by(|a, b| a.sku.cmp(&b.sku).then(a.quantity.cmp(&b.quantity)));
            v
        };
        if got.items != lines && sorted(&got.items) == sorted(&lines) {
            Failure::compare(
                wrap(&format!(
                    "{call} returned the right {} lines in the wrong order: lines come back in \
                     sort-key order, and a string sort key compares character by character: \
                     …#10 sorts before …#2.",
                    lines.len()
                )),
                format!("{lines:#?}"),
                format!("{:#?}", got.items),
            )
            .raise();
        }
        check_eq(
            &lines,
            &got.items,
            format!("{call}: the lines, in the order they were placed"),
        );
    }
    let call = "order_with_items(\"o-nope\")".to_string();
    let (got, log) = shop.measure(&call, |c| order_with_items(c, "o-nope"));
    check_eq(
        None::<OrderWithItems>,
        got,
        format!("{call}: there is no order o-nope"),
    );
    shop.one_read(&call, &log, 0, ORDER_WITH_ITEMS_ADVICE);
}

/// Pattern 5: the warehouse's lists, newest first, through the status index.
fn orders_by_status_newest_first(seed: u64) {
    let shop = Shop::build(seed);
    for status in OrderStatus::ALL {
        let all = shop.orders_in(status);
        for limit in [5usize, 1_000] {
            let want: Vec<Order> = all.iter().take(limit).cloned().collect();
            let call = format!("orders_by_status({status:?}, {limit})");
            let (got, log) = shop.measure(&call, |c| orders_by_status(c, status, limit));
            shop.one_read(&call, &log, got.len(), STATUS_ADVICE);
            check_eq(
                &want,
                &got,
                format!(
                    "{call} should return the {} newest of the {} {} orders, newest first (by \
                     placed_at)",
                    want.len(),
                    all.len(),
                    status.as_str()
                ),
            );
        }
    }
}

/// Placing an order is one TransactWriteItems, and the order appears in every view.
fn place_order_is_one_transaction(seed: u64) {
    let shop = Shop::build(seed);
    let buyer = shop.customers[1].id.clone();
    let lines = vec![
        line("TEA-GREEN-100G", 2, 650),
        line("MUG-STONE", 1, 1_800),
        line("FILTER-PAPER", 3, 250),
    ];
    let new = Order {
        id: "o-new".into(),
        customer_id: buyer.clone(),
        placed_at: "2026-02-01T12:00:00Z".into(),
        status: OrderStatus::Placed,
        total_cents: total(&lines),
    };
    let call = "place_order(\"o-new\", 3 lines)";
    let ((), log) = shop.measure(call, |c| place_order(c, &new, &lines));
    let writes: Vec<&RequestRecord> = log.iter().filter(|r| is_write(r.operation)).collect();
    let tx = writes
        .iter()
        .filter(|r| r.operation == "TransactWriteItems")
        .count();
    if writes.len() != 1 || tx != 1 {
        fail(format!(
            "{call} sent {} write request{} ({}): an order, its reference and its lines must be \
             written together or not at all. Separate writes are each atomic on their own \
             items only, and can leave half an order behind when one of them fails; a \
             transaction writes several items all or nothing.",
            writes.len(),
            if writes.len() == 1 { "" } else { "s" },
            describe(&writes)
        ));
    }
    shop.world.settle();
    let got = must("order(\"o-new\")", order(&shop.client, "o-new"));
    check_eq(Some(new.clone()), got, "order(\"o-new\") after place_order");
    let got = must(
        "order_with_items(\"o-new\")",
        order_with_items(&shop.client, "o-new"),
    );
    check_eq(
        Some(OrderWithItems {
            order: new.clone(),
            items: lines.clone(),
        }),
        got,
        "order_with_items(\"o-new\") after place_order",
    );
    let page = must(
        &format!("customer_orders({buyer:?}, 1, None)"),
        customer_orders(&shop.client, &buyer, 1, None),
    );
    check_eq(
        vec![new.clone()],
        page.items,
        format!("customer_orders({buyer:?}, 1, None): o-new is {buyer}'s newest order"),
    );
    let placed = must(
        "orders_by_status(Placed, 1)",
        orders_by_status(&shop.client, OrderStatus::Placed, 1),
    );
    check_eq(
        vec![new],
        placed,
        "orders_by_status(Placed, 1) once the index settled: o-new is the newest placed order",
    );
}

/// A status change moves the order from one status list to the other once the index
/// settles; an unknown order is an error and writes nothing.
fn status_change_moves_the_order(seed: u64) {
    let shop = Shop::build(seed);
    let mut rng = Rng::new(seed ^ 8);
    let placed = shop.orders_in(OrderStatus::Placed);
    let moved = placed[rng.below(placed.len() as u64) as usize].clone();
    let call = format!("change_order_status({:?}, Shipped)", moved.id);
    must(
        &call,
        change_order_status(&shop.client, &moved.id, OrderStatus::Shipped),
    );
    shop.world.settle();
    let want = Order {
        status: OrderStatus::Shipped,
        ..moved.clone()
    };

    let got = must(
        &format!("order({:?})", moved.id),
        order(&shop.client, &moved.id),
    );
    check_eq(
        Some(want.clone()),
        got,
        format!("order({:?}) after {call}", moved.id),
    );
    let still = must(
        "orders_by_status(Placed, 1000)",
        orders_by_status(&shop.client, OrderStatus::Placed, 1_000),
    );
    if still.iter().any(|o| o.id == moved.id) {
        fail(format!(
            "after {call} and a settled index, orders_by_status(Placed, 1000) still lists {}: \
             an index entry moves only when its item's index key attributes change, so an \
             index keyed by the status keeps the order in its old list, and the warehouse \
             ships it twice",
            moved.id
        ));
    }
    let shipped = must(
        "orders_by_status(Shipped, 1000)",
        orders_by_status(&shop.client, OrderStatus::Shipped, 1_000),
    );
    let mut want_shipped = shop.orders_in(OrderStatus::Shipped);
    want_shipped.push(want.clone());
    want_shipped.sort_by(|a, b| b.placed_at.cmp(&a.placed_at));
    check_eq(
        &want_shipped,
        &shipped,
        format!(
            "orders_by_status(Shipped, 1000) after {call}: {} joins the shipped orders, in \
             placed_at order",
            moved.id
        ),
    );
    let mine = must(
        &format!("customer_orders({:?}, 1000, None)", moved.customer_id),
        customer_orders(&shop.client, &moved.customer_id, 1_000, None),
    );
    let listed = mine.items.iter().find(|o| o.id == moved.id).cloned();
    check_eq(
        Some(want),
        listed,
        format!(
            "{}'s order list after {call}: where the status is copied (an order reference in \
             the customer's collection), every copy must change with it",
            moved.customer_id
        ),
    );

    // An order that does not exist: an error, and nothing written.
    let before = shop.snapshot();
    let call = "change_order_status(\"o-nope\", Paid)";
    let result = change_order_status(&shop.client, "o-nope", OrderStatus::Paid);
    let changes = shop.changes_since(&before);
    if result.is_ok() {
        fail(format!(
            "{call} returned Ok, but there is no order o-nope{}. An UpdateItem on a key that does \
             not exist creates the item; a write can carry a condition on the item it writes, \
             and a refused condition is an error the call can return.",
            if changes.is_empty() {
                String::new()
            } else {
                format!(" — and it wrote:\n{changes}")
            }
        ));
    }
    if !changes.is_empty() {
        fail(format!(
            "{call} failed — good — but wrote to the table on the way:\n{changes}\nAn UpdateItem on \
             a missing key creates the item, unless a condition on that write refuses it."
        ));
    }
}

/// An order that fails — its id exists already, or a line is over DynamoDB's 400 KB item
/// limit — leaves every table exactly as it was.
fn a_failed_line_cancels_the_whole_order(seed: u64) {
    let shop = Shop::build(seed);

    // 1. The order id exists already (another customer's order).
    let (existing, existing_lines) = shop.orders[7].clone();
    let other = shop
        .customers
        .iter()
        .find(|c| c.id != existing.customer_id)
        .map(|c| c.id.clone())
        .unwrap_or_default();
    let lines = vec![
        line("KETTLE-STEEL", 1, 4_900),
        line("TEA-BLACK-250G", 2, 900),
    ];
    let clash = Order {
        id: existing.id.clone(),
        customer_id: other.clone(),
        placed_at: "2026-02-02T09:00:00Z".into(),
        status: OrderStatus::Placed,
        total_cents: total(&lines),
    };
    let before = shop.snapshot();
    let call = format!(
        "place_order({:?} for {other}) while {:?} already exists (placed by {})",
        existing.id, existing.id, existing.customer_id
    );
    let result = place_order(&shop.client, &clash, &lines);
    let changes = shop.changes_since(&before);
    if result.is_ok() {
        fail(format!(
            "{call} returned Ok: it overwrote an existing order. A Put replaces an item with \
             the same key unless a condition on that write refuses it; in a transaction, one \
             refused condition cancels every action (TransactionCanceledException, reason \
             ConditionalCheckFailed) and nothing is written.{}",
            if changes.is_empty() {
                String::new()
            } else {
                format!("\nWhat it changed:\n{changes}")
            }
        ));
    }
    if !changes.is_empty() {
        fail(format!(
            "{call} failed — good — but left changes behind:\n{changes}\nSeparate writes \
             succeed or fail each on its own; only a transaction is cancelled as a whole when \
             one of its actions fails, and then nothing is written."
        ));
    }
    shop.world.settle();
    let kept = must(
        &format!("order_with_items({:?})", existing.id),
        order_with_items(&shop.client, &existing.id),
    );
    check_eq(
        Some(OrderWithItems {
            order: existing.clone(),
            items: existing_lines,
        }),
        kept,
        format!("order {} after the refused duplicate", existing.id),
    );

    // 2. The third line is larger than DynamoDB's 400 KB item limit.
    let lines = vec![
        line("TEA-OOLONG-100G", 1, 1_200),
        line("MUG-GLASS", 2, 1_400),
        line(&"ENGRAVING-".repeat(41_000), 1, 2_500),
    ];
    let huge = Order {
        id: "o-huge".into(),
        customer_id: other.clone(),
        placed_at: "2026-02-03T10:00:00Z".into(),
        status: OrderStatus::Placed,
        total_cents: total(&lines),
    };
    let before = shop.snapshot();
    let call = "place_order(\"o-huge\") whose third line's sku is 410,000 bytes";
    let result = place_order(&shop.client, &huge, &lines);
    let changes = shop.changes_since(&before);
    if result.is_ok() {
        fail(format!(
            "{call} returned Ok, but DynamoDB refuses items over 400 KB \
             (ValidationException: Item size has exceeded the maximum allowed size) — was the \
             error dropped?"
        ));
    }
    if !changes.is_empty() {
        fail(format!(
            "{call} failed — good — but the lines before it were written anyway:\n{changes}\n\
             Separate writes succeed or fail each on its own; in a transaction, an item \
             DynamoDB refuses cancels every action, and the whole order with it."
        ));
    }
}

/// A status change reaches every copy of the status or none: the test stops the leader of
/// each partition holding a copy in turn (so a write there is refused), and the copies must
/// still agree; and the change is one write request.
fn status_change_is_all_or_nothing(seed: u64) {
    let shop = Shop::build(seed);

    // 1. A refused write partway: only visible when the copies live in two partitions.
    let spread = shop.orders.iter().map(|(o, _)| o).find_map(|o| {
        let copies = shop.status_copies(&o.id);
        let parts: BTreeSet<(String, u32)> = copies
            .iter()
            .map(|c| (c.table.clone(), c.partition))
            .collect();
        (parts.len() > 1).then(|| (o.clone(), parts))
    });
    if let Some((order, parts)) = spread {
        let mut status = order.status;
        for (table, partition) in parts {
            let target = next_status(status);
            let call = format!("change_order_status({:?}, {target:?})", order.id);
            shop.world
                .stop_leader(&table, partition)
                .unwrap_or_else(|e| fail(format!("the test could not stop a leader: {e}")));
            let first = shop.world.request_totals().requests;
            let result = change_order_status(&shop.client, &order.id, target);
            let log: Vec<RequestRecord> = shop
                .world
                .request_log()
                .into_iter()
                .filter(|r| r.seq >= first)
                .collect();
            shop.world.heal_all();
            shop.world.settle();
            let copies = shop.status_copies(&order.id);
            let shown: BTreeSet<OrderStatus> =
                copies.iter().flat_map(|c| c.statuses.clone()).collect();
            let situation = format!(
                "{call} while partition {partition} of `{table}` had no leader (the test stopped \
                 it, as when a storage node fails: a write there is refused with \
                 InternalServerError)"
            );
            if shown.len() > 1 {
                let listing: Vec<String> = copies
                    .iter()
                    .map(|c| {
                        let says: Vec<&str> = c.statuses.iter().map(|s| s.as_str()).collect();
                        format!(
                            "  {}: {} (partition {})",
                            c.key_text,
                            says.join(", "),
                            c.partition
                        )
                    })
                    .collect();
                fail(format!(
                    "{situation} {}, and left the order's status half changed — its copies \
                     now disagree:\n{}\nIts requests: {}.\nEach write is atomic on its own item; \
                     two writes are not atomic together, and the one that got through stays. \
                     Only a transaction writes several items all or nothing.",
                    match &result {
                        Ok(()) => "returned Ok".to_string(),
                        Err(e) => format!("failed ({})", e.code().unwrap_or("an unnamed error")),
                    },
                    listing.join("\n"),
                    describe(&log.iter().collect::<Vec<_>>())
                ));
            }
            let now = shown.into_iter().next().unwrap_or(status);
            if result.is_ok() && now != target {
                fail(format!(
                    "{situation} returned Ok, but the order still says {}: its requests were {} \
                     — was a failed write's error dropped?",
                    now.as_str(),
                    describe(&log.iter().collect::<Vec<_>>())
                ));
            }
            status = now;
        }
    }

    // 2. One write request, whatever the layout.
    let (order, _) = &shop.orders[3];
    let target = next_status(order.status);
    let call = format!("change_order_status({:?}, {target:?})", order.id);
    let ((), log) = shop.measure(&call, |c| change_order_status(c, &order.id, target));
    let writes: Vec<&RequestRecord> = log.iter().filter(|r| is_write(r.operation)).collect();
    let atomic = matches!(
        writes.as_slice(),
        [one] if matches!(one.operation, "TransactWriteItems" | "UpdateItem" | "PutItem")
    );
    if !atomic {
        shop.world.settle();
        let copies: Vec<String> = shop
            .status_copies(&order.id)
            .iter()
            .map(|c| format!("  {}", c.key_text))
            .collect();
        fail(format!(
            "{call} sent {} write request{} ({}); the order's status lives on {} item{}:\n{}\n\
             A status change must reach every copy or none, and separate requests are each \
             atomic on their own item only: a failure, a throttle or a crash between them \
             leaves the copies disagreeing for good. Several items change all or \
             nothing only in a transaction; one item changes atomically in one write.",
            writes.len(),
            if writes.len() == 1 { "" } else { "s" },
            describe(&writes),
            copies.len(),
            if copies.len() == 1 { "" } else { "s" },
            copies.join("\n")
        ));
    }
}

/// Each index holds only the items its access patterns return: no order line, each order
/// and each profile at most once.
fn indexes_are_sparse(seed: u64) {
    let shop = Shop::build(seed);
    for table in shop.tables() {
        let base = shop.scan(&table);
        let keys = shop.key_names(&table);
        let by_key: std::collections::BTreeMap<String, &Item> =
            base.iter().map(|b| (key_text(&keys, b), b)).collect();
        let kind_of = |entry: &Item| -> Kind {
            by_key
                .get(&key_text(&keys, entry))
                .map_or(Kind::Other, |b| shop.kind(b))
        };
        for index in shop.index_names(&table) {
            let entries = shop.scan_index(&table, &index);
            let mut lines = 0usize;
            let mut per_order: std::collections::BTreeMap<String, Vec<String>> = Default::default();
            let mut per_customer: std::collections::BTreeMap<String, usize> = Default::default();
            for entry in &entries {
                match kind_of(entry) {
                    Kind::Line => lines += 1,
                    Kind::Order(id) => per_order
                        .entry(id)
                        .or_default()
                        .push(key_text(&keys, entry)),
                    Kind::Profile(id) => *per_customer.entry(id).or_default() += 1,
                    Kind::Other => {}
                }
            }
            let twice: Vec<(&String, &Vec<String>)> =
                per_order.iter().filter(|(_, v)| v.len() > 1).collect();
            let profiles_twice = per_customer.values().filter(|n| **n > 1).count();
            if lines == 0 && twice.is_empty() && profiles_twice == 0 {
                continue;
            }
            let wcu: f64 = shop
                .world
                .partition_metrics(&table, Some(&index))
                .map(|m| m.iter().map(|s| s.consumed_write).sum())
                .unwrap_or(0.0);
            let extra = lines
                + twice.iter().map(|(_, v)| v.len() - 1).sum::<usize>()
                + per_customer
                    .values()
                    .map(|n| n.saturating_sub(1))
                    .sum::<usize>();
            let mut what = Vec::new();
            if lines > 0 {
                what.push(format!("{} order lines", thousands(lines as i64)));
            }
            if let Some((id, at)) = twice.first() {
                what.push(format!(
                    "{} orders more than once (order {id} as {})",
                    twice.len(),
                    at.join(" and ")
                ));
            }
            if profiles_twice > 0 {
                what.push(format!("{profiles_twice} profiles more than once"));
            }
            fail(format!(
                "index {index} holds {} entries, {} of which no access pattern reads through it: \
                 {}. An item is copied into a global secondary index whenever it carries the \
                 index's key attributes, and each of its writes is paid again there ({index} \
                 consumed {} write units while the shop was filled). An index holds only \
                 the items that carry its key attributes (a sparse index), so which items \
                 carry them decides what it holds and what it costs.",
                thousands(entries.len() as i64),
                thousands(extra as i64),
                what.join(", "),
                thousands(wcu.round() as i64)
            ));
        }
    }
}

/// No index projects ALL: each projects what its access pattern returns (INCLUDE), or only
/// the keys (KEYS_ONLY) when they hold it.
fn indexes_project_what_their_patterns_need(seed: u64) {
    let shop = Shop::build(seed);
    for table in shop.tables() {
        let description = shop.describe(&table);
        let mut key_attributes: BTreeSet<String> = description
            .key_schema()
            .iter()
            .map(|k| k.attribute_name.clone())
            .collect();
        let all = description
            .global_secondary_indexes()
            .iter()
            .map(|i| {
                (
                    i.index_name().unwrap_or_default(),
                    i.key_schema(),
                    i.projection(),
                    i.item_count().unwrap_or(0),
                    i.index_size_bytes().unwrap_or(0),
                )
            })
            .chain(description.local_secondary_indexes().iter().map(|i| {
                (
                    i.index_name().unwrap_or_default(),
                    i.key_schema(),
                    i.projection(),
                    i.item_count().unwrap_or(0),
                    i.index_size_bytes().unwrap_or(0),
                )
            }));
        for (name, schema, projection, count, bytes) in all {
            if projection.and_then(|p| p.projection_type()) != Some(&ProjectionType::All) {
                continue;
            }
            key_attributes.extend(schema.iter().map(|k| k.attribute_name.clone()));
            let copied: BTreeSet<String> = shop
                .scan_index(&table, name)
                .iter()
                .flat_map(|e| e.keys().cloned().collect::<Vec<_>>())
                .filter(|a| !key_attributes.contains(a))
                .collect();
            fail(format!(
                "index {name} projects ALL: each of its {} entries is a whole copy of its item \
                 ({} bytes in all, IndexSizeBytes), non-key attributes {} included. Every \
                 projected byte is stored again; and with ALL, a change to any attribute of an \
                 indexed item — even one no Query on {name} returns, or one the item only gets \
                 later — is a paid write to {name} (the lesson's pitfall 4). An index needs to \
                 hold only what the Query on it returns.",
                thousands(count),
                thousands(bytes),
                copied
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------
// The shop the tests fill
// ---------------------------------------------------------------------------------------

/// The order with twelve lines: its line numbers go past 9.
const BIG_ORDER: &str = "o-big";

struct Shop {
    world: World,
    client: Client,
    customers: Vec<Customer>,
    /// Every order as placed, with its lines.
    orders: Vec<(Order, Vec<OrderItem>)>,
}

const FIRST_NAMES: [&str; 12] = [
    "Ana", "Bo", "Chen", "Dara", "Emil", "Fatou", "Goran", "Hana", "Ines", "Jon", "Kemal", "Lea",
];
const SKUS: [(&str, u64); 8] = [
    ("TEA-GREEN-100G", 650),
    ("TEA-BLACK-250G", 900),
    ("MUG-STONE", 1_800),
    ("KETTLE-STEEL", 4_900),
    ("FILTER-PAPER", 250),
    ("HONEY-JAR", 1_100),
    ("TEAPOT-CAST", 6_500),
    ("SPOON-SET", 1_500),
];

impl Shop {
    /// A world with the learner's table and 24 customers (no order), settled: what the
    /// profile patterns need, so that they earn credit before `place_order` works.
    fn customers_only(seed: u64) -> Shop {
        let (world, client, customers) = Shop::open(seed);
        world.settle();
        Shop {
            world,
            client,
            customers,
            orders: Vec::new(),
        }
    }

    /// The world, the learner's table and the customers, written through `create_customer`.
    fn open(seed: u64) -> (World, Client, Vec<Customer>) {
        let world = World::new(seed);
        let client = world.client();
        must("create_table()", create_table(&client));

        let customers: Vec<Customer> = (1..=24)
            .map(|n| {
                let first = FIRST_NAMES[(n - 1) % FIRST_NAMES.len()];
                Customer {
                    id: format!("c-{n:03}"),
                    name: format!("{first} {}", ["Silva", "Berg", "Okafor", "Novak"][n % 4]),
                    email: format!("{}.{n}@example.com", first.to_lowercase()),
                }
            })
            .collect();
        for c in &customers {
            must(
                &format!("create_customer({:?})", c.id),
                create_customer(&client, c),
            );
        }
        (world, client, customers)
    }

    /// A world with the learner's table, 24 customers and about 110 orders, settled.
    fn build(seed: u64) -> Shop {
        let (world, client, customers) = Shop::open(seed);
        let mut rng = Rng::new(seed);

        // Unique timestamps a few minutes to a few hours apart, handed out in random order.
        let count = 110;
        let mut minutes = 8 * 60;
        let mut stamps: Vec<String> = (0..count)
            .map(|_| {
                minutes += 1 + rng.below(300);
                iso(minutes)
            })
            .collect();
        shuffle(&mut stamps, &mut rng);

        let mut orders = Vec::new();
        let mut ids = BTreeSet::new();
        for (i, placed_at) in stamps.into_iter().enumerate() {
            // c-001 is a regular with 10 orders; the last customer never orders; every status
            // is represented by at least two orders.
            let customer_id = if i < 10 {
                customers[0].id.clone()
            } else {
                customers[1 + rng.below(customers.len() as u64 - 2) as usize]
                    .id
                    .clone()
            };
            let status = if i < 10 {
                OrderStatus::ALL[i % 5]
            } else {
                OrderStatus::ALL[rng.below(5) as usize]
            };
            let id = if i == 12 {
                BIG_ORDER.to_string()
            } else {
                loop {
                    let id = format!("o-{:05}", rng.below(100_000));
                    if ids.insert(id.clone()) {
                        break id;
                    }
                }
            };
            let n_lines = if id == BIG_ORDER {
                12
            } else {
                1 + rng.below(4)
            };
            let lines: Vec<OrderItem> = (0..n_lines)
                .map(|_| {
                    let (sku, price) = SKUS[rng.below(SKUS.len() as u64) as usize];
                    line(sku, 1 + rng.below(3) as u32, price)
                })
                .collect();
            let order = Order {
                id,
                customer_id,
                placed_at,
                status,
                total_cents: total(&lines),
            };
            must(
                &format!("place_order({:?}, {} lines)", order.id, lines.len()),
                place_order(&client, &order, &lines),
            );
            orders.push((order, lines));
        }
        world.settle();
        Shop {
            world,
            client,
            customers,
            orders,
        }
    }

    /// A customer's orders, newest first.
    fn orders_of(&self, customer_id: &str) -> Vec<Order> {
        let mut v: Vec<Order> = self
            .orders
            .iter()
            .map(|(o, _)| o.clone())
            .filter(|o| o.customer_id == customer_id)
            .collect();
        v.sort_by(|a, b| b.placed_at.cmp(&a.placed_at));
        v
    }

    /// The orders in a status, newest first.
    fn orders_in(&self, status: OrderStatus) -> Vec<Order> {
        let mut v: Vec<Order> = self
            .orders
            .iter()
            .map(|(o, _)| o.clone())
            .filter(|o| o.status == status)
            .collect();
        v.sort_by(|a, b| b.placed_at.cmp(&a.placed_at));
        v
    }

    /// Runs one call of the learner's code; returns its value and the requests it sent.
    fn measure<T>(
        &self,
        call: &str,
        f: impl FnOnce(&Client) -> Result<T, Error>,
    ) -> (T, Vec<RequestRecord>) {
        let first = self.world.request_totals().requests;
        let value = must(call, f(&self.client));
        let log = self
            .world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= first)
            .collect();
        (value, log)
    }

    /// Fails unless `log` is exactly one GetItem or one Query.
    fn one_read(&self, call: &str, log: &[RequestRecord], returned: usize, advice: &str) {
        let scans: Vec<&RequestRecord> = log.iter().filter(|r| r.operation == "Scan").collect();
        if !scans.is_empty() {
            let tables: BTreeSet<String> = scans
                .iter()
                .flat_map(|r| r.tables.iter().map(|t| t.to_string()))
                .collect();
            let read: i64 = tables.iter().map(|t| self.item_count(t)).sum();
            let units: f64 = scans.iter().map(|r| r.read_units).sum();
            fail(format!(
                "{call} used a Scan that read {} items ({} RCU, {} page{}) to return {returned} \
                 — a Scan reads the whole table on every call, so it gets slower and dearer as \
                 the shop grows. {}.",
                thousands(read),
                units.ceil(),
                scans.len(),
                if scans.len() == 1 { "" } else { "s" },
                capitalised(advice)
            ));
        }
        match log {
            [] => fail(format!(
                "{call} sent no request to DynamoDB: read the answer from the table"
            )),
            [one] if one.operation == "GetItem" || one.operation == "Query" => {}
            [one] => fail(format!(
                "{call} used {}: each access pattern should be one GetItem or one Query — {advice}",
                describe(&[one])
            )),
            many => fail(format!(
                "{call} sent {} requests ({}): each access pattern must be served by exactly one \
                 GetItem or one Query. Joining in code costs a round trip per table and is not \
                 atomic — {advice}",
                many.len(),
                describe(&many.iter().collect::<Vec<_>>())
            )),
        }
        // One Query, but did its key condition select the answer? A FilterExpression (or code
        // that drops items) runs after the read: what was read is paid for. One item of slack
        // lets a Query peek one past the page to learn whether a next page exists.
        let query = &log[0];
        let read = usize::try_from(query.items_read).unwrap_or(usize::MAX);
        if query.operation == "Query" && read > returned + 1 {
            let on = query
                .index
                .as_ref()
                .map_or(String::new(), |i| format!(" on index {i}"));
            fail(format!(
                "{call} sent one Query{on} that read {} items ({} RCU) to return {returned}: the \
                 other {} were read, paid for and thrown away — by a FilterExpression, which runs \
                 after the read, or by your code. Let the key condition select exactly the items \
                 the pattern returns, and Limit stop the read: {advice}.",
                thousands(read as i64),
                query.read_units.ceil(),
                thousands((read - returned) as i64),
            ));
        }
    }

    fn tables(&self) -> Vec<String> {
        self.client
            .list_tables()
            .send()
            .map(|o| o.table_names().to_vec())
            .unwrap_or_else(|e| fail(format!("the test could not list the tables: {e}")))
    }

    fn item_count(&self, table: &str) -> i64 {
        self.client
            .describe_table()
            .table_name(table)
            .send()
            .ok()
            .and_then(|d| d.table().and_then(|t| t.item_count()))
            .unwrap_or(0)
    }

    /// Every item of a table (strongly consistent, every page).
    fn scan(&self, table: &str) -> Vec<Item> {
        let mut items = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(table)
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .unwrap_or_else(|e| fail(format!("the test could not scan `{table}`: {e}")));
            items.extend(page.items().iter().cloned());
            match page.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => return items,
            }
        }
    }

    /// Every item of every table, as text (one entry per item).
    fn snapshot(&self) -> BTreeSet<String> {
        self.tables()
            .iter()
            .flat_map(|t| {
                self.scan(t)
                    .iter()
                    .map(|i| format!("{t}: {}", item_text(i).replace('\n', " ")))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// What changed since `before`, as lines `+ item` / `- item` (empty if nothing did).
    fn changes_since(&self, before: &BTreeSet<String>) -> String {
        let after = self.snapshot();
        let clip = |s: &String| {
            if s.len() > 300 {
                format!("{}…", &s[..s.floor_char_boundary_compat(300)])
            } else {
                s.clone()
            }
        };
        let mut out: Vec<String> = Vec::new();
        for gone in before.difference(&after) {
            out.push(format!("  - {}", clip(gone)));
        }
        for new in after.difference(before) {
            out.push(format!("  + {}", clip(new)));
        }
        out.join("\n")
    }
}

/// `str::floor_char_boundary` is unstable; the snapshots are ASCII apart from the learner's
/// strings, so walk back to a boundary by hand.
trait FloorBoundary {
    fn floor_char_boundary_compat(&self, at: usize) -> usize;
}

impl FloorBoundary for String {
    fn floor_char_boundary_compat(&self, mut at: usize) -> usize {
        at = at.min(self.len());
        while !self.is_char_boundary(at) {
            at -= 1;
        }
        at
    }
}

// ---------------------------------------------------------------------------------------
// What the learner's items are, seen from outside
// ---------------------------------------------------------------------------------------

/// What an item is, told from what the test wrote (the key design is the learner's).
enum Kind {
    /// Holds a line's sku.
    Line,
    /// Names an order (a header, or a copy such as the customer's order reference).
    Order(String),
    /// Holds a customer's email.
    Profile(String),
    Other,
}

/// An item that holds an order's status.
struct StatusCopy {
    table: String,
    key_text: String,
    partition: u32,
    statuses: BTreeSet<OrderStatus>,
}

/// Whether a top-level string attribute of `item` contains `word` as a whole word (not
/// `o-1` inside `o-12`).
fn mentions(item: &Item, word: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    item.values().any(|v| match v {
        AttributeValue::S(s) => s.match_indices(word).any(|(at, _)| {
            !s[..at].chars().next_back().is_some_and(part)
                && !s[at + word.len()..].chars().next().is_some_and(part)
        }),
        _ => false,
    })
}

/// The statuses an item's string attributes spell (`PAID`, `STATUS#PAID`, …).
fn statuses_in(item: &Item) -> BTreeSet<OrderStatus> {
    item.values()
        .filter_map(|v| match v {
            AttributeValue::S(s) => Some(s),
            _ => None,
        })
        .flat_map(|s| s.split(|c: char| !c.is_ascii_alphanumeric()))
        .filter_map(OrderStatus::parse)
        .collect()
}

/// `PK = ORDER#o-1, SK = META`: an item's table key.
fn key_text(keys: &[String], item: &Item) -> String {
    keys.iter()
        .map(|k| {
            let v = match item.get(k) {
                Some(AttributeValue::S(s)) => s.clone(),
                Some(AttributeValue::N(n)) => n.clone(),
                Some(other) => format!("{other:?}"),
                None => "?".to_string(),
            };
            format!("{k} = {v}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn next_status(status: OrderStatus) -> OrderStatus {
    let at = OrderStatus::ALL
        .iter()
        .position(|s| *s == status)
        .unwrap_or(0);
    OrderStatus::ALL[(at + 1) % OrderStatus::ALL.len()]
}

impl Shop {
    fn describe(&self, table: &str) -> TableDescription {
        self.client
            .describe_table()
            .table_name(table)
            .send()
            .ok()
            .and_then(|d| d.table().cloned())
            .unwrap_or_else(|| fail(format!("the test could not describe `{table}`")))
    }

    /// The table's key attributes, partition key first.
    fn key_names(&self, table: &str) -> Vec<String> {
        let mut schema = self.describe(table).key_schema.unwrap_or_default();
        schema.sort_by_key(|k| k.key_type != KeyType::Hash);
        schema.into_iter().map(|k| k.attribute_name).collect()
    }

    /// The table's secondary indexes, global then local.
    fn index_names(&self, table: &str) -> Vec<String> {
        let d = self.describe(table);
        d.global_secondary_indexes()
            .iter()
            .filter_map(|i| i.index_name.clone())
            .chain(
                d.local_secondary_indexes()
                    .iter()
                    .filter_map(|i| i.index_name.clone()),
            )
            .collect()
    }

    /// Every entry of an index (eventually consistent: call after a settle).
    fn scan_index(&self, table: &str, index: &str) -> Vec<Item> {
        let mut items = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(table)
                .index_name(index)
                .set_exclusive_start_key(start.take())
                .send()
                .unwrap_or_else(|e| fail(format!("the test could not scan index {index}: {e}")));
            items.extend(page.items().iter().cloned());
            match page.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => return items,
            }
        }
    }

    /// What a stored item is (see [`Kind`]).
    fn kind(&self, item: &Item) -> Kind {
        let is_sku = |s: &str| {
            SKUS.iter().any(|(sku, _)| *sku == s)
                || self
                    .orders
                    .iter()
                    .any(|(_, lines)| lines.iter().any(|l| l.sku == s))
        };
        if item
            .values()
            .any(|v| matches!(v, AttributeValue::S(s) if is_sku(s)))
        {
            return Kind::Line;
        }
        if let Some((o, _)) = self.orders.iter().find(|(o, _)| mentions(item, &o.id)) {
            return Kind::Order(o.id.clone());
        }
        match self.customers.iter().find(|c| {
            item.values()
                .any(|v| matches!(v, AttributeValue::S(s) if *s == c.email))
        }) {
            Some(c) => Kind::Profile(c.id.clone()),
            None => Kind::Other,
        }
    }

    /// Every item that holds the status of order `id`, in every table.
    fn status_copies(&self, id: &str) -> Vec<StatusCopy> {
        let mut copies = Vec::new();
        for table in self.tables() {
            let keys = self.key_names(&table);
            for item in self.scan(&table) {
                let statuses = statuses_in(&item);
                if statuses.is_empty()
                    || !mentions(&item, id)
                    || matches!(self.kind(&item), Kind::Line)
                {
                    continue;
                }
                let partition = keys
                    .first()
                    .and_then(|pk| item.get(pk))
                    .and_then(|v| self.world.partition_of(&table, v).ok())
                    .unwrap_or_default();
                copies.push(StatusCopy {
                    table: table.clone(),
                    key_text: key_text(&keys, &item),
                    partition,
                    statuses,
                });
            }
        }
        copies
    }
}

// ---------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------

fn line(sku: &str, quantity: u32, unit_price_cents: u64) -> OrderItem {
    OrderItem {
        sku: sku.to_string(),
        quantity,
        unit_price_cents,
    }
}

fn total(lines: &[OrderItem]) -> u64 {
    lines
        .iter()
        .map(|l| u64::from(l.quantity) * l.unit_price_cents)
        .sum()
}

/// Minutes since 2026-01-01T00:00 as an ISO 8601 timestamp (within the first 60 days).
fn iso(minutes: u64) -> String {
    let (day, rest) = (minutes / 1440, minutes % 1440);
    let (month, dom) = if day < 31 {
        (1, day + 1)
    } else {
        (2, day - 30)
    };
    format!(
        "2026-{month:02}-{dom:02}T{:02}:{:02}:00Z",
        rest / 60,
        rest % 60
    )
}

fn shuffle<T>(v: &mut [T], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

fn is_write(operation: &str) -> bool {
    matches!(
        operation,
        "PutItem" | "UpdateItem" | "DeleteItem" | "BatchWriteItem" | "TransactWriteItems"
    )
}

/// `GetItem on shop, Query on shop (index GSI1)`.
fn describe(records: &[&RequestRecord]) -> String {
    if records.is_empty() {
        return "none".to_string();
    }
    records
        .iter()
        .map(|r| {
            let tables: Vec<&str> = r.tables.iter().map(|t| &**t).collect();
            // A request refused before it reached a table (a partition without a leader)
            // names none.
            let mut s = if tables.is_empty() {
                r.operation.to_string()
            } else {
                format!("{} on {}", r.operation, tables.join(" + "))
            };
            if let Some(i) = &r.index {
                s.push_str(&format!(" (index {i})"));
            }
            if let Some(e) = r.error {
                s.push_str(&format!(", failed with {e}"));
            }
            s
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The value of a call of the learner's code, or a failure that says which call failed.
fn must<T>(call: &str, result: Result<T, Error>) -> T {
    result.unwrap_or_else(|e| {
        let advice = match &e {
            Error::ResourceNotFoundException(_) => {
                "\nDoes create_table() create the table (and the index) this call reads?"
            }
            Error::TransactionCanceledException(_) => {
                "\nThe cancellation reasons (one per action, in order) say which action failed."
            }
            _ => "",
        };
        let cancelled = match &e {
            Error::TransactionCanceledException(e) => e.cancellation_reasons(),
            _ => &[],
        };
        let reasons: Vec<String> = cancelled
            .iter()
            .enumerate()
            .filter(|(_, r)| r.code() != Some("None"))
            .map(|(i, r)| {
                format!(
                    "action {i}: {} {}",
                    r.code().unwrap_or_default(),
                    r.message.clone().unwrap_or_default()
                )
            })
            .collect();
        let reasons = if reasons.is_empty() {
            String::new()
        } else {
            format!(" [{}]", reasons.join("; "))
        };
        fail(format!("{call} failed: {e}{reasons}{advice}"))
    })
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
