//! The read plan's tests: product pages in table `catalog`, each an item collection
//! (`PK = PRODUCT#<n>`: DETAILS, a few large IMAGE# items, many small REVIEW# items, STOCK),
//! read by the learner's `read_page`, judged from the request log: the read units its
//! requests consumed, their consistency, and the items returned.

use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::value::item_to_json;
use engine::world::log::RequestRecord;
use engine::{Client, Item, World};
use given::{Page, Request, Table, TABLE};
use katas_testkit::{check_eq_text, fail, Rng};

use crate::learner;
use crate::model::{self, bytes, units, RIGHT};
use crate::requests::s;

/// Pages per seed.
const PAGES: usize = 8;

pub fn read_page_fits_the_budget(seed: u64) {
    let shop = Shop::build(seed);
    for page in &shop.pages {
        shop.read_and_check(page);
    }
}

pub fn read_page_reads_strongly_when_asked(seed: u64) {
    let mut shop = Shop::build(seed);
    for page in &mut shop.pages {
        page.strong = true;
        page.budget_rcu = plans(page).cheaper();
    }
    for page in &shop.pages {
        let sent = shop.read_and_check(page);
        if let Some(r) = sent.iter().find(|r| r.consistent_read != Some(true)) {
            fail(format!(
                "{}: its {} #{} was eventually consistent, but this page shows stock levels \
                 right after checkout (page.strong = true): every read must be strongly \
                 consistent (1 RCU per 4 KB instead of 0.5). An \
                 eventually consistent read may be served by a replica that has not yet \
                 seen the last write.",
                call(page),
                r.operation,
                r.seq
            ));
        }
    }
}

pub fn read_page_over_budget_reads_nothing(seed: u64) {
    let mut shop = Shop::build(seed);
    // A page that fits first: refusing everything is not a plan.
    let fits = shop.pages[0].clone();
    shop.read_and_check(&fits);
    for page in shop.pages.iter_mut().skip(1) {
        let best = optimum(page);
        page.budget_rcu = best - 0.5;
    }
    for page in shop.pages.iter().skip(1).filter(|p| p.budget_rcu >= 0.5) {
        let before = shop.world.request_totals().requests;
        let got = learner::read_page(&shop.client, page);
        let sent = shop.sent_since(before);
        let spent: f64 = sent.iter().map(|r| r.read_units).sum();
        let p = plans(page);
        let best = optimum(page);
        match got {
            Err(e) if sent.is_empty() && e.to_string().contains("over budget") => {}
            Err(e) if sent.is_empty() => fail(format!(
                "{} returned Err({e}) without a request, which is right, but not the kata's \
                 over-budget error (the one given::over_budget makes, naming what the page \
                 needs and the budget).",
                call(page)
            )),
            result => fail(format!(
                "{} {}, after sending {} ({} RCU). No plan reads this page within {} RCU: the \
                 cheapest possible costs {} RCU ({}). A plan's price is known before it is \
                 sent, and DynamoDB charges for a read whether or not its page is then \
                 refused: capacity spent on a page that does not fit is wasted.",
                call(page),
                match result {
                    Ok(items) => format!("returned Ok with {} items", items.len()),
                    Err(e) => format!("returned Err({e})"),
                },
                show_requests(&sent),
                units(spent),
                units(page.budget_rcu),
                units(best),
                p.text()
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The shop
// ---------------------------------------------------------------------------------------

struct Shop {
    world: World,
    client: Client,
    pages: Vec<Page>,
}

impl Shop {
    fn build(seed: u64) -> Shop {
        let world = World::new(seed);
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
        let mut rng = Rng::new(seed ^ 21);
        let pages: Vec<Page> = (0..PAGES).map(|n| random_page(&mut rng, n)).collect();
        for page in &pages {
            for item in &page.collection {
                client
                    .put_item()
                    .table_name(TABLE)
                    .set_item(Some(item.clone()))
                    .send()
                    .expect("the shop's items");
            }
        }
        world.settle();
        Shop {
            world,
            client,
            pages,
        }
    }

    fn sent_since(&self, before: u64) -> Vec<RequestRecord> {
        self.world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= before)
            .collect()
    }

    /// Reads `page`, checks the items and the budget; returns the requests it sent.
    fn read_and_check(&self, page: &Page) -> Vec<RequestRecord> {
        let before = self.world.request_totals().requests;
        let got = learner::read_page(&self.client, page);
        let sent = self.sent_since(before);
        let spent: f64 = sent.iter().map(|r| r.read_units).sum();
        let p = plans(page);
        let got = match got {
            Ok(items) => items,
            Err(e) => fail(format!(
                "{} failed: {e}. It fits: {}; the budget is {} RCU.{}",
                call(page),
                p.text(),
                units(page.budget_rcu),
                refused_note(page, &e.to_string())
            )),
        };
        let want = needed_items(page);
        let text = |items: &[Item]| {
            items
                .iter()
                .map(|i| item_to_json(i).to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        if got != want {
            check_eq_text(
                &text(&want),
                &text(&got),
                format!(
                    "{} returned {} items; the page needs these {}, whole (every attribute) and \
                     in sort-key order.",
                    call(page),
                    got.len(),
                    want.len()
                ),
            );
        }
        if spent > page.budget_rcu {
            fail(format!(
                "{} sent {}: {} RCU in all, over its budget of {} RCU. {}{}",
                call(page),
                show_requests(&sent),
                units(spent),
                units(page.budget_rcu),
                p.text(),
                overspend(page, &sent)
            ));
        }
        sent
    }
}

fn random_page(rng: &mut Rng, n: usize) -> Page {
    let pk = format!("PRODUCT#{}", 100 + n);
    let r = |rng: &mut Rng, lo: u64, hi: u64| (lo + rng.below(hi - lo + 1)) as usize;
    let mut collection = vec![item(&pk, "DETAILS", r(rng, 900, 3_000))];
    for i in 1..=r(rng, 2, 4) {
        collection.push(item(&pk, &format!("IMAGE#{i:02}"), r(rng, 3_000, 9_000)));
    }
    for i in 1..=r(rng, 6, 24) {
        collection.push(item(&pk, &format!("REVIEW#{i:03}"), r(rng, 150, 1_300)));
    }
    collection.push(item(&pk, "STOCK", r(rng, 80, 300)));
    let sks: Vec<String> = collection.iter().map(sk).collect();
    let reviews: Vec<usize> = (0..sks.len())
        .filter(|i| sks[*i].starts_with("REVIEW#"))
        .collect();
    let needed: Vec<String> = match n % 4 {
        // A run of reviews: one Query of the run is cheaper than one unit per review.
        0 => {
            let from = reviews[rng.below(reviews.len() as u64 / 2) as usize];
            let to = (from + 3 + rng.below(6) as usize).min(*reviews.last().expect("reviews"));
            sks[from..=to].to_vec()
        }
        // The details and the stock: the range between them is the whole collection.
        1 => vec!["DETAILS".to_string(), "STOCK".to_string()],
        // One image and the stock.
        2 => vec!["IMAGE#01".to_string(), "STOCK".to_string()],
        // A random handful.
        _ => sks.iter().filter(|_| rng.below(3) == 0).cloned().collect(),
    };
    let needed = if needed.is_empty() {
        vec!["STOCK".to_string()]
    } else {
        needed
    };
    let mut page = Page {
        pk,
        collection,
        needed,
        strong: rng.below(3) == 0,
        budget_rcu: 0.0,
    };
    page.budget_rcu = plans(&page).cheaper();
    page
}

fn item(pk: &str, sk: &str, target: usize) -> Item {
    let mut item = Item::from([("PK".to_string(), s(pk)), ("SK".to_string(), s(sk))]);
    item.insert("title".to_string(), s(&format!("{sk} of {pk}")));
    let now = engine::item_size(&item) + "body".len();
    if target > now {
        item.insert("body".to_string(), s(&"y".repeat(target - now)));
    }
    item
}

fn sk(item: &Item) -> String {
    item.get("SK")
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default()
}

fn needed_items(page: &Page) -> Vec<Item> {
    page.collection
        .iter()
        .filter(|i| page.needed.contains(&sk(i)))
        .cloned()
        .collect()
}

fn call(page: &Page) -> String {
    let needed = if page.needed.len() <= 4 {
        page.needed.join(", ")
    } else {
        format!(
            "{} sort keys {} … {}",
            page.needed.len(),
            page.needed[0],
            page.needed[page.needed.len() - 1]
        )
    };
    format!(
        "read_page({}: needs {needed}; {}; budget {} RCU)",
        page.pk,
        if page.strong {
            "strong reads"
        } else {
            "eventual reads are fine"
        },
        units(page.budget_rcu)
    )
}

/// The two plans the README names, priced.
struct Plans {
    query: f64,
    query_items: usize,
    query_bytes: usize,
    batch: f64,
    keys: usize,
    strong: bool,
}

impl Plans {
    fn cheaper(&self) -> f64 {
        self.query.min(self.batch)
    }

    fn text(&self) -> String {
        let c = if self.strong {
            "strongly consistent"
        } else {
            "eventually consistent"
        };
        format!(
            "One Query of the range from the first to the last needed sort key reads {} items, \
             {} summed and rounded once: {} RCU; one BatchGetItem of the {} needed keys, each \
             item rounded on its own: {} RCU ({c})",
            self.query_items,
            bytes(self.query_bytes),
            units(self.query),
            self.keys,
            units(self.batch)
        )
    }
}

fn range_items(page: &Page, from: &str, to: &str) -> Vec<Item> {
    page.collection
        .iter()
        .filter(|i| {
            let k = sk(i);
            k.as_str() >= from && k.as_str() <= to
        })
        .cloned()
        .collect()
}

fn plans(page: &Page) -> Plans {
    let (first, last) = (&page.needed[0], &page.needed[page.needed.len() - 1]);
    let range = range_items(page, first, last);
    let consistent_read = Some(page.strong);
    let table = Table::default();
    let query_bytes = range.iter().map(engine::item_size).sum();
    let query_items = range.len();
    let query = model::consumed(
        &table,
        &Request::Query {
            read: range,
            consistent_read,
            filter: None,
        },
        RIGHT,
    )
    .total();
    let needed: Vec<Option<Item>> = needed_items(page).into_iter().map(Some).collect();
    let keys = needed.len();
    let batch = model::consumed(
        &table,
        &Request::BatchGetItem {
            items: needed,
            consistent_read,
        },
        RIGHT,
    )
    .total();
    Plans {
        query,
        query_items,
        query_bytes,
        batch,
        keys,
        strong: page.strong,
    }
}

/// The cheapest plan of all: Query runs and single gets, mixed (dynamic programming over the
/// collection in sort-key order).
fn optimum(page: &Page) -> f64 {
    let items = &page.collection;
    let needed: Vec<bool> = items.iter().map(|i| page.needed.contains(&sk(i))).collect();
    let table = Table::default();
    let c = Some(page.strong);
    let get = |i: usize| {
        model::consumed(
            &table,
            &Request::GetItem {
                item: Some(items[i].clone()),
                consistent_read: c,
            },
            RIGHT,
        )
        .total()
    };
    let query = |a: usize, b: usize| {
        model::consumed(
            &table,
            &Request::Query {
                read: items[a..=b].to_vec(),
                consistent_read: c,
                filter: None,
            },
            RIGHT,
        )
        .total()
    };
    let mut best = vec![f64::INFINITY; items.len() + 1];
    best[0] = 0.0;
    for i in 0..items.len() {
        if !needed[i] {
            best[i + 1] = best[i + 1].min(best[i]);
            continue;
        }
        best[i + 1] = best[i + 1].min(best[i] + get(i));
        for j in 0..i {
            if needed[j] {
                best[i + 1] = best[i + 1].min(best[j] + query(j, i));
            }
        }
    }
    best[items.len()]
}

fn show_requests(sent: &[RequestRecord]) -> String {
    if sent.is_empty() {
        return "no request".to_string();
    }
    let shown: Vec<String> = sent
        .iter()
        .take(6)
        .map(|r| {
            let c = match r.consistent_read {
                Some(true) => "strongly consistent, ",
                Some(false) => "eventually consistent, ",
                None => "",
            };
            let read = if matches!(r.operation, "Query" | "Scan") {
                format!("read {} items, ", r.items_read)
            } else {
                String::new()
            };
            format!(
                "{} #{} ({c}{read}{} RCU)",
                r.operation,
                r.seq,
                units(r.read_units)
            )
        })
        .collect();
    let more = if sent.len() > 6 {
        format!(" and {} more", sent.len() - 6)
    } else {
        String::new()
    };
    format!(
        "{} request{}: {}{more}",
        sent.len(),
        if sent.len() == 1 { "" } else { "s" },
        shown.join(", ")
    )
}

/// Why the requests cost more than the plan, from what the request log shows.
fn overspend(page: &Page, sent: &[RequestRecord]) -> String {
    let range = range_items(page, &page.needed[0], &page.needed[page.needed.len() - 1]);
    if !page.strong && sent.iter().any(|r| r.consistent_read == Some(true)) {
        return "\nSome of its reads were strongly consistent (ConsistentRead = true), at twice \
                the price; this page is fine with eventually consistent reads, DynamoDB's \
                default."
            .to_string();
    }
    if let Some(q) = sent
        .iter()
        .find(|r| r.operation == "Query" && r.items_read as usize > range.len())
    {
        return format!(
            "\nIts Query #{} read {} items, more than the {} between the first and the last \
             needed sort key: a Query pays for every item its key condition matches — \
             filtering afterwards, in code or with a FilterExpression, saves nothing.",
            q.seq,
            q.items_read,
            range.len()
        );
    }
    let gets = sent
        .iter()
        .filter(|r| matches!(r.operation, "GetItem" | "BatchGetItem"))
        .count();
    let p = plans(page);
    if gets > 0 && p.query < p.batch {
        return "\nIt read the items by key: each item rounded up to 4 KB on its own. These \
                items are small and next to each other in the collection, and a Query adds up \
                the sizes of what it reads and rounds once."
            .to_string();
    }
    if sent.iter().any(|r| r.operation == "Query") && p.batch < p.query {
        return "\nIts Query read the large items between the needed ones too: here one \
                BatchGetItem of exactly the needed keys costs less."
            .to_string();
    }
    String::new()
}

/// When `read_page` refused a page that fits: which plan its figure is the price of.
fn refused_note(page: &Page, error: &str) -> String {
    if !error.contains("over budget") {
        return String::new();
    }
    let p = plans(page);
    let strong = Page {
        strong: true,
        ..page.clone()
    };
    let s = plans(&strong);
    let whole = model::consumed(
        &Table::default(),
        &Request::Query {
            read: page.collection.clone(),
            consistent_read: Some(page.strong),
            filter: None,
        },
        RIGHT,
    )
    .total();
    let says = |x: f64| error.contains(&format!("needs {} RCU", units(x)));
    let cheaper = if p.query <= p.batch {
        "Query of the range"
    } else {
        "BatchGetItem of the keys"
    };
    if says(whole) && whole != p.query {
        format!(
            "\nYour figure, {} RCU, is the price of a Query of the whole collection; a Query \
             pays for every item its key condition matches, needed or not.",
            units(whole)
        )
    } else if p.batch > p.query && says(p.batch) {
        format!(
            "\nYour figure, {} RCU, is the price of the BatchGetItem; the {cheaper} costs less, \
             within the budget.",
            units(p.batch)
        )
    } else if p.query > p.batch && says(p.query) {
        format!(
            "\nYour figure, {} RCU, is the price of the Query of the range; the {cheaper} costs \
             less, within the budget.",
            units(p.query)
        )
    } else if !page.strong && says(s.cheaper()) {
        format!(
            "\nYour figure, {} RCU, is the price with strongly consistent reads; this page is \
             fine with eventually consistent ones, DynamoDB's default, at half the price.",
            units(s.cheaper())
        )
    } else {
        String::new()
    }
}
