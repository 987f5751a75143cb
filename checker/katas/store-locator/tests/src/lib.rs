//! Hidden tests of the `store-locator` kata.
//!
//! Each test builds a fresh world with the kata's table (`stores`, `PK` + `SK`, on-demand; a
//! country is `PK = COUNTRY#<CC>`, a store `SK = CITY#<city, lower case>#STORE#<id, 4 digits>`),
//! adds the stores through the learner's `add_store`, and judges the learner's functions from
//! the outside: what they return, the items the table holds (read by the test with its own
//! Scan), and the requests the request log saw (operation, items read, partition, outcome).
//!
//! - `adds_stores_as_laid_out`: one PutItem per store, and exactly the README's items
//!   (upper-case country, Unicode lower-case city, padded id).
//! - `one_store_by_its_key`: `store` is one GetItem, typed as visitors type; `None` for a store
//!   in another city, a city or country without stores.
//! - `a_citys_stores_newest_first`: near-collisions (Hamm / Hammelburg, Essen / Essenbach,
//!   Berlin / Berlingerode, and Switzerland's Berlingen): exactly the city's stores, newest
//!   first, one Query reading only them.
//! - `a_country_page_by_page`: pages of 25, 7 and 60 through 60 German stores, with the tests'
//!   `COUNTRY` item in the collection: one Query per page reading only the stores returned,
//!   every store once, in key order, ending with `next = None`.
//! - `refuses_a_city_with_the_separator`: `Berlin#Mitte` is refused and nothing written.
//! - `errors_are_not_empty_answers`: every replica down: each function returns the error.
//! - `saturday_peak_spreads_over_countries`: 960 first pages in one second, 6 countries on 6
//!   partitions: nothing throttled (one partition key for all stores passes 3,000 RCU).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::world::faults::Az;
use engine::world::log::RequestRecord;
use engine::{item, AttributeValue, Client, Error, Item, World};
use given::{Cursor, Page, Store, TABLE};
use katas_testkit::items::items_text;
use katas_testkit::{check_eq_text, fail, run, seeded, thousands, Rng};

katas_testkit::learner! {
    /// Stores one store under its key.
    fn add_store(client: &Client, store: &Store) -> Result<(), Error>;
    /// One store, or None.
    fn store(client: &Client, country: &str, city: &str, id: u32) -> Result<Option<Store>, Error>;
    /// A city's stores, newest first.
    fn stores_in_city(client: &Client, country: &str, city: &str) -> Result<Vec<Store>, Error>;
    /// One page of a country's stores.
    fn stores_in_country(client: &Client, country: &str, limit: i32, start: Option<Cursor>) -> Result<Page, Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("adds_stores_as_laid_out", adds_stores_as_laid_out),
        seeded("one_store_by_its_key", one_store_by_its_key),
        seeded("a_citys_stores_newest_first", a_citys_stores_newest_first),
        seeded("a_country_page_by_page", a_country_page_by_page),
        seeded(
            "refuses_a_city_with_the_separator",
            refuses_a_city_with_the_separator,
        ),
        seeded("errors_are_not_empty_answers", errors_are_not_empty_answers),
        seeded(
            "saturday_peak_spreads_over_countries",
            saturday_peak_spreads_over_countries,
        ),
    ]);
}

/// Germany's cities and how many stores each has (60 in all): near-collisions side by side.
const GERMANY: [(&str, usize); 14] = [
    ("Aachen", 3),
    ("Berlin", 9),
    ("Berlingerode", 1),
    ("Bremen", 4),
    ("Essen", 5),
    ("Essenbach", 2),
    ("Hamm", 3),
    ("Hammelburg", 2),
    ("Köln", 6),
    ("Leipzig", 4),
    ("München", 8),
    ("Nürnberg", 5),
    ("Überlingen", 2),
    ("Ulm", 6),
];
const SWITZERLAND: [(&str, usize); 3] = [("Berlingen", 2), ("Bern", 3), ("Zürich", 4)];
const AUSTRIA: [(&str, usize); 2] = [("Graz", 2), ("Wien", 5)];
/// Countries the peak test may use, in the order it tries them.
const PEAK_CANDIDATES: [&str; 24] = [
    "DE", "FR", "IT", "ES", "NL", "AT", "CH", "BE", "PL", "SE", "DK", "PT", "GB", "IE", "FI", "NO",
    "CZ", "HU", "GR", "RO", "LU", "SK", "SI", "HR",
];
/// Countries, first pages per country, page size and stores per country of the peak.
const PEAK_COUNTRIES: usize = 6;
const PEAK_PAGES: usize = 32;
const PEAK_LIMIT: i32 = 25;
const PEAK_STORES: usize = 30;
/// Length of a store's `about` text: a page of 25 stores is about 40 KB.
const ABOUT_LEN: usize = 1_500;
/// Length of the `about` of the peak's stores (with photos' captions and the week's menu): a
/// page of 25 of them is about 200 KB, 25 RCU eventually consistent.
const PEAK_ABOUT_LEN: usize = 8_000;
/// Stores the tests add in one simulated second (8 WCU each at most: 400 WCU).
const ADD_PER_SECOND: usize = 50;
/// One partition's read ceiling (RCU a second).
const READ_CEILING: f64 = 3_000.0;

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

fn adds_stores_as_laid_out(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let mut ids = Ids::new();
    let mut stores = Vec::new();
    for (country, city, digits) in [
        ("DE", "Berlin", 1),
        ("DE", "Berlin", 2),
        ("DE", "Berlin", 3),
        ("DE", "Berlin", 4),
        ("DE", "München", 2),
        ("DE", "Überlingen", 3),
        ("CH", "Zürich", 2),
        ("AT", "Wien", 4),
    ] {
        let id = ids.with_digits(&mut rng, digits);
        stores.push(sized_store(country, city, id, &mut rng, 0));
    }
    for st in &stores {
        let from = s.next_seq();
        let result = learner::add_store(&s.client, st);
        let sent = s.requests_since(from);
        let call = format!("add_store({})", show_store(st));
        if let Err(e) = result {
            fail(format!(
                "{call} failed: {e}\nIts requests: {}",
                show_requests(&sent)
            ));
        }
        if sent.len() != 1 || sent[0].operation != "PutItem" {
            fail(format!(
                "{call} sent {}: a store is one item, written with one PutItem.",
                show_requests(&sent)
            ));
        }
    }
    let want: Vec<Item> = sorted_items(stores.iter().map(layout_item).collect());
    let got = s.all_items();
    if got != want {
        let why = layout_diagnosis(&stores, &got);
        check_eq_text(
            &items_text(&want),
            &items_text(&got),
            format!(
                "after adding {} stores, the table (the test's own Scan, in key order) should \
                 hold exactly the items the README lays out. {why}",
                stores.len()
            ),
        );
    }
}

fn one_store_by_its_key(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let mut ids = Ids::new();
    let de = s.add_country("DE", &GERMANY, &mut rng, &mut ids);
    let ch = s.add_country("CH", &SWITZERLAND, &mut rng, &mut ids);
    s.world.settle();
    let pick = |stores: &[Store], city: &str, rng: &mut Rng| -> Store {
        let of_city: Vec<&Store> = stores.iter().filter(|st| st.city == city).collect();
        of_city[rng.below(of_city.len() as u64) as usize].clone()
    };
    let berlin = pick(&de, "Berlin", &mut rng);
    let muenchen = pick(&de, "München", &mut rng);
    let ueberlingen = pick(&de, "Überlingen", &mut rng);
    let hamm = pick(&de, "Hamm", &mut rng);
    let zurich = pick(&ch, "Zürich", &mut rng);
    let cases: Vec<(&str, &str, u32, Option<&Store>, &str)> = vec![
        ("de", "berlin", berlin.id, Some(&berlin), ""),
        ("DE", "BERLIN", berlin.id, Some(&berlin), ""),
        ("DE", "MÜNCHEN", muenchen.id, Some(&muenchen), ""),
        ("de", "überlingen", ueberlingen.id, Some(&ueberlingen), ""),
        ("DE", "Hamm", hamm.id, Some(&hamm), ""),
        ("ch", "zürich", zurich.id, Some(&zurich), ""),
        (
            "DE",
            "Hammelburg",
            hamm.id,
            None,
            " (that id is a store in Hamm, not in Hammelburg)",
        ),
        (
            "DE",
            "Zürich",
            zurich.id,
            None,
            " (Zürich's stores are in CH, not DE)",
        ),
        ("DE", "Hamburg", berlin.id, None, " (Hamburg has no store)"),
        ("FR", "Berlin", berlin.id, None, " (France has no store)"),
    ];
    for (country, city, id, want, note) in cases {
        let call = format!("store(\"{country}\", \"{city}\", {id})");
        let from = s.next_seq();
        let got = learner::store(&s.client, country, city, id)
            .unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
        let sent = s.requests_since(from);
        if sent.len() != 1 || sent[0].operation != "GetItem" {
            let read: u64 = sent.iter().map(|r| r.items_read).sum();
            fail(format!(
                "{call} sent {}, reading {read} item(s). The whole key of one store is known \
                 from what the visitor asked — PK = COUNTRY#{}, SK = CITY#{}#STORE#{id:04} — \
                 so one store is one GetItem, which reads that item and nothing else.",
                show_requests(&sent),
                country.to_uppercase(),
                city.to_lowercase()
            ));
        }
        if got.as_ref() != want {
            let hint = if want.is_some() && got.is_none() {
                not_found_hint(&s, country, city, Some(id))
            } else {
                String::new()
            };
            check_eq_text(
                &show_store_opt(want),
                &show_store_opt(got.as_ref()),
                format!("{call}{note} returned the wrong answer.{hint}"),
            );
        }
    }
}

fn a_citys_stores_newest_first(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let mut ids = Ids::new();
    let mut all = s.add_country("DE", &GERMANY, &mut rng, &mut ids);
    all.extend(s.add_country("CH", &SWITZERLAND, &mut rng, &mut ids));
    all.extend(s.add_country("AT", &AUSTRIA, &mut rng, &mut ids));
    s.put_country_items(&["DE", "CH", "AT"]);
    s.world.settle();
    let cases: [(&str, &str, &str, &str); 12] = [
        ("DE", "Hamm", "DE", "Hamm"),
        ("de", "hamm", "DE", "Hamm"),
        ("DE", "Essen", "DE", "Essen"),
        ("de", "BERLIN", "DE", "Berlin"),
        ("DE", "Berlin", "DE", "Berlin"),
        ("DE", "berlingerode", "DE", "Berlingerode"),
        ("de", "überlingen", "DE", "Überlingen"),
        ("DE", "MÜNCHEN", "DE", "München"),
        ("CH", "Berlingen", "CH", "Berlingen"),
        ("ch", "ZÜRICH", "CH", "Zürich"),
        ("DE", "Hamburg", "DE", "Hamburg"),
        ("FR", "Berlin", "FR", "Berlin"),
    ];
    for (country, city, cc, real) in cases {
        let mut want: Vec<Store> = all
            .iter()
            .filter(|st| st.country == cc && st.city == real)
            .cloned()
            .collect();
        want.sort_by_key(|st| std::cmp::Reverse(st.id));
        let call = format!("stores_in_city(\"{country}\", \"{city}\")");
        let from = s.next_seq();
        let got = learner::stores_in_city(&s.client, country, city)
            .unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
        let sent = s.requests_since(from);
        let context = format!(
            "{call} returned {} store(s) ({} has {}); its requests: {}",
            got.len(),
            real,
            want.len(),
            show_requests(&sent)
        );
        check_one_query(&s, &context, &sent, country);
        if got != want {
            let why = city_diagnosis(&s, &want, &got, country, city);
            check_eq_text(
                &show_stores(&want),
                &show_stores(&got),
                format!("{context}.\n{why}"),
            );
        }
        let query = &sent[0];
        if query.items_read != got.len() as u64 {
            fail(format!(
                "{context}.\nIts {} read {} items to return {} stores: the rest were read and \
                 dropped — by a FilterExpression, which is applied after the read, or by your \
                 code — and every one of them was paid for. The key condition alone can select \
                 the city: its stores are one contiguous range of the sort key, PK = COUNTRY#{} \
                 AND begins_with(SK, \"CITY#{}#\").",
                show_bare(query),
                query.items_read,
                got.len(),
                cc,
                real.to_lowercase()
            ));
        }
    }
}

fn a_country_page_by_page(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let mut ids = Ids::new();
    let mut de = s.add_country("DE", &GERMANY, &mut rng, &mut ids);
    s.add_country("CH", &SWITZERLAND, &mut rng, &mut ids);
    s.add_country("AT", &AUSTRIA, &mut rng, &mut ids);
    s.put_country_items(&["DE", "CH", "AT"]);
    s.world.settle();
    de.sort_by_key(sort_key);
    for (country, limit) in [("DE", 25), ("de", 7), ("DE", 60)] {
        let mut listed: Vec<Store> = Vec::new();
        let mut start: Option<Cursor> = None;
        let most = de.len() / limit as usize + 2;
        for page_no in 1.. {
            if page_no > most {
                fail(format!(
                    "stores_in_country(\"{country}\", {limit}, ..) went on past page {most}: \
                     Germany has {} stores, {} pages of {limit} at most. Pass the page's start \
                     to the Query as ExclusiveStartKey, return its LastEvaluatedKey as next, \
                     and next = None once there is no LastEvaluatedKey.",
                    de.len(),
                    de.len().div_ceil(limit as usize)
                ));
            }
            let call = format!(
                "stores_in_country(\"{country}\", {limit}, {}) — page {page_no}, after {} \
                 store(s) listed",
                if start.is_some() {
                    "Some(the last page's next)"
                } else {
                    "None"
                },
                listed.len()
            );
            let from = s.next_seq();
            let result = learner::stores_in_country(&s.client, country, limit, start.clone());
            let sent = s.requests_since(from);
            let page = result.unwrap_or_else(|e| {
                let country_item = if e.to_string().contains("malformed") {
                    " The collection COUNTRY#DE also holds the tests' own item SK = COUNTRY (the \
                     country's name and currency), which sorts after every CITY# key: a Query of \
                     PK alone reads it on the last page. Select only the stores with the key \
                     condition: begins_with(SK, \"CITY#\")."
                } else {
                    ""
                };
                fail(format!(
                    "{call} failed: {e}\nIts requests: {}.{country_item}",
                    show_requests(&sent)
                ))
            });
            let context = format!(
                "{call} returned {} store(s), next = {}; its requests: {}",
                page.stores.len(),
                if page.next.is_some() { "Some" } else { "None" },
                show_requests(&sent)
            );
            check_one_query(&s, &context, &sent, country);
            let query = &sent[0];
            if page.stores.len() > limit as usize {
                fail(format!(
                    "{context}.\nA page holds at most limit = {limit} stores."
                ));
            }
            if query.items_read != page.stores.len() as u64 {
                let why = if query.items_read > page.stores.len() as u64
                    && page.next.is_none()
                    && listed.len() + page.stores.len() == de.len()
                {
                    "The item it read and did not return is the tests' COUNTRY item (the \
                     country's name and currency), which sorts after every CITY# key: a Query \
                     of PK alone reaches it on the last page. Select the stores with the key \
                     condition: begins_with(SK, \"CITY#\")."
                        .to_string()
                } else if query.items_read == page.stores.len() as u64 + 1 {
                    "One item more than the page: reading limit + 1 to see whether another \
                     page follows pays for a store that is then read again on the next page. \
                     Ask for Limit = limit and return the LastEvaluatedKey as next: DynamoDB \
                     says where the page stopped, and only its absence means the end."
                        .to_string()
                } else {
                    "A Query pays for every item it reads, returned or not: let the key \
                     condition (begins_with(SK, \"CITY#\")) and Limit select the page."
                        .to_string()
                };
                fail(format!(
                    "{context}.\nIts {} read {} item(s) for {} store(s) returned. {why}",
                    show_bare(query),
                    query.items_read,
                    page.stores.len()
                ));
            }
            listed.extend(page.stores.iter().cloned());
            if let Some(again) = page
                .stores
                .iter()
                .find(|st| listed.iter().filter(|l| l == st).count() > 1)
            {
                fail(format!(
                    "{context}.\nStore {} of {} came on an earlier page already: the page did \
                     not start where the last one stopped (pass start as ExclusiveStartKey).",
                    again.id, again.city
                ));
            }
            match page.next {
                Some(next) => start = Some(next),
                None => break,
            }
        }
        if listed != de {
            let why = if listed.len() < de.len() {
                format!(
                    "The listing ended (next = None) after {} of Germany's {} stores: next is \
                     None only when DynamoDB returned no LastEvaluatedKey.",
                    listed.len(),
                    de.len()
                )
            } else {
                "A country's listing is its stores in sort-key order: city by city (the \
                 lower-case name, byte by byte), and in each city by id — zero-padded, so that \
                 string order is number order."
                    .to_string()
            };
            check_eq_text(
                &show_stores(&de),
                &show_stores(&listed),
                format!(
                    "stores_in_country(\"{country}\", {limit}, ..), page after page until next = \
                     None, should list every German store once, in sort-key order. {why}"
                ),
            );
        }
    }
}

fn refuses_a_city_with_the_separator(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let mut ids = Ids::new();
    let mut berlin = s.add_country("DE", &[("Berlin", 3)], &mut rng, &mut ids);
    berlin.sort_by_key(|st| std::cmp::Reverse(st.id));
    s.world.settle();
    let before = s.all_items();
    let bad = sized_store(
        "DE",
        "Berlin#Mitte",
        ids.with_digits(&mut rng, 2),
        &mut rng,
        0,
    );
    let call = format!("add_store({})", show_store(&bad));
    let result = learner::add_store(&s.client, &bad);
    s.world.settle();
    let after = s.all_items();
    let written: Vec<Item> = after
        .iter()
        .filter(|i| !before.contains(i))
        .cloned()
        .collect();
    if result.is_ok() || !written.is_empty() {
        let listed = learner::stores_in_city(&s.client, "DE", "Berlin").unwrap_or_default();
        let shown = if listed.len() > berlin.len() {
            format!(
                " stores_in_city(\"DE\", \"Berlin\") now returns {} stores where Berlin has {}: \
                 the new item's sort key begins with CITY#berlin#, inside Berlin's range.",
                listed.len(),
                berlin.len()
            )
        } else {
            String::new()
        };
        fail(format!(
            "{call} returned {} and wrote:\n{}\nA city's name goes into the sort key between \
             separators, so a # inside it reads as another level: CITY#berlin#mitte#STORE#… is \
             not the city \"Berlin#Mitte\" but a store range inside Berlin.{shown} Refuse such a \
             store with given::invalid_store(..) before writing anything.",
            match &result {
                Ok(()) => "Ok(())".to_string(),
                Err(e) => format!("Err({e})"),
            },
            if written.is_empty() {
                "(nothing)".to_string()
            } else {
                items_text(&written)
            }
        ));
    }
}

fn errors_are_not_empty_answers(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let mut ids = Ids::new();
    let berlin = s.add_country("DE", &[("Berlin", 4)], &mut rng, &mut ids);
    s.world.settle();
    for az in Az::ALL {
        s.world.fail_az(az);
    }
    let down = "every replica of the table is down (all three availability zones failed)";
    let one = &berlin[0];
    let from = s.next_seq();
    let got = learner::store(&s.client, "DE", "Berlin", one.id);
    judge_error(
        &s,
        from,
        &format!("store(\"DE\", \"Berlin\", {})", one.id),
        down,
        got.map(|o| format!("Ok({})", show_store_opt(o.as_ref()))),
    );
    let from = s.next_seq();
    let got = learner::stores_in_city(&s.client, "DE", "Berlin");
    judge_error(
        &s,
        from,
        "stores_in_city(\"DE\", \"Berlin\")",
        down,
        got.map(|v| format!("Ok({} stores)", v.len())),
    );
    let from = s.next_seq();
    let got = learner::stores_in_country(&s.client, "DE", 10, None);
    judge_error(
        &s,
        from,
        "stores_in_country(\"DE\", 10, None)",
        down,
        got.map(|p| {
            format!(
                "Ok(a page of {} stores, next = {})",
                p.stores.len(),
                if p.next.is_some() { "Some" } else { "None" }
            )
        }),
    );
    let new = make_store("DE", "Berlin", ids.with_digits(&mut rng, 3), &mut rng);
    let from = s.next_seq();
    let got = learner::add_store(&s.client, &new);
    judge_error(
        &s,
        from,
        &format!("add_store({})", show_store(&new)),
        down,
        got.map(|()| "Ok(())".to_string()),
    );
}

/// Fails unless `result` is an error while the table is down.
fn judge_error(s: &Scene, from: u64, call: &str, down: &str, result: Result<String, Error>) {
    let sent = s.requests_since(from);
    match result {
        Err(_) => {}
        Ok(shown) => {
            let failed: Vec<&RequestRecord> = sent.iter().filter(|r| !r.succeeded()).collect();
            let what = if failed.is_empty() {
                format!("its requests: {}", show_requests(&sent))
            } else {
                format!(
                    "DynamoDB failed its {} — yet it answered as if there were nothing to find",
                    failed
                        .iter()
                        .map(|r| show_bare(r))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            fail(format!(
                "While {down}, {call} returned {shown}: {what}. A visitor shown \"no stores\" \
                 (or a store manager told the store was saved) while the table is unreachable is \
                 misled; return the engine's error (`?` on send()) and let the caller decide \
                 whether to retry or show an error page."
            ));
        }
    }
}

fn saturday_peak_spreads_over_countries(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let mut ids = Ids::new();
    // Six countries whose own partition keys land on six partitions.
    let mut countries: Vec<&str> = Vec::new();
    let mut taken = BTreeSet::new();
    for cc in PEAK_CANDIDATES {
        let p = s.partition_of(&format!("COUNTRY#{cc}"));
        if taken.insert(p) {
            countries.push(cc);
        }
        if countries.len() == PEAK_COUNTRIES {
            break;
        }
    }
    if countries.len() < PEAK_COUNTRIES {
        let seen: Vec<String> = PEAK_CANDIDATES
            .iter()
            .map(|cc| format!("{cc}={}", s.partition_of(&format!("COUNTRY#{cc}"))))
            .collect();
        fail(format!(
            "the test could not find six countries on six partitions (a test defect): {} of {}",
            seen.join(" "),
            s.world.partitions(TABLE).map(|p| p.len()).unwrap_or(0)
        ));
    }
    let cities = ["Nord", "Mitte", "Süd", "Ost", "West"];
    for cc in &countries {
        let spec: Vec<(String, usize)> = cities
            .iter()
            .map(|c| (format!("{c}stadt-{cc}"), PEAK_STORES / cities.len()))
            .collect();
        let spec: Vec<(&str, usize)> = spec.iter().map(|(c, n)| (c.as_str(), *n)).collect();
        s.add_country_sized(cc, &spec, &mut rng, &mut ids, PEAK_ABOUT_LEN);
    }
    s.world.settle();
    s.world.advance(Duration::from_secs(10));
    let second = s.world.now().as_secs();
    let from = s.next_seq();
    let mut failed: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..PEAK_PAGES {
        for cc in &countries {
            if let Err(e) = learner::stores_in_country(&s.client, cc, PEAK_LIMIT, None) {
                *failed
                    .entry(e.code().unwrap_or("an error").to_string())
                    .or_default() += 1;
            }
        }
    }
    let sent = s.requests_since(from);
    // The test's own reads below, in the next second: not throttled by the peak.
    s.world.advance(Duration::from_secs(1));
    let throttled: Vec<&RequestRecord> = sent.iter().filter(|r| r.throttled()).collect();
    if throttled.is_empty() && failed.is_empty() {
        return;
    }
    // Per partition: requests, read units consumed, throttled.
    let mut by_partition: BTreeMap<u32, (usize, f64, usize)> = BTreeMap::new();
    for r in &sent {
        for (_, p) in &r.partitions {
            let e = by_partition.entry(*p).or_default();
            e.0 += 1;
            e.1 += r.read_units;
            if r.throttled() {
                e.2 += 1;
            }
        }
    }
    let metrics = s
        .world
        .partition_metrics(TABLE, None)
        .unwrap_or_else(|e| fail(format!("the test could not read the metrics: {e}")));
    let lines: Vec<String> = by_partition
        .iter()
        .map(|(p, (n, units, thr))| {
            let consumed = metrics
                .iter()
                .find(|m| m.partition == *p && m.second == second)
                .map_or(*units, |m| m.consumed_read);
            format!(
                "  partition {p}: {} requests, {} RCU consumed in second {second}, {} throttled",
                thousands(*n as i128),
                thousands(consumed.round() as i128),
                thousands(*thr as i128)
            )
        })
        .collect();
    let pks: BTreeSet<String> = s
        .all_items()
        .iter()
        .filter_map(|i| i.get("PK").and_then(|v| v.as_s().ok()).cloned())
        .collect();
    let pks: Vec<String> = pks.into_iter().collect();
    let cause = if pks.len() == 1 {
        format!(
            "Every store of the {} countries is under one partition key, PK = {}: one item \
             collection, so one partition serves every country's pages, and one partition serves \
             at most {} RCU a second. Give each country its own partition key (PK = \
             COUNTRY#<CC>, the city and store in the sort key): the {} countries' pages then go \
             to {} partitions.",
            countries.len(),
            pks[0],
            thousands(READ_CEILING as i128),
            countries.len(),
            countries.len()
        )
    } else {
        format!(
            "The table's partition keys: {}. A partition serves at most {} RCU a second: spread \
             the countries over partition keys of their own (PK = COUNTRY#<CC>), and read \
             eventually consistent pages of Limit stores (each a few KB).",
            pks.join(", "),
            thousands(READ_CEILING as i128)
        )
    };
    let failures: Vec<String> = failed
        .iter()
        .map(|(code, n)| format!("{} with {code}", thousands(*n as i128)))
        .collect();
    let admitted: Vec<&RequestRecord> = sent.iter().filter(|r| r.succeeded()).collect();
    let per_page =
        admitted.iter().map(|r| r.read_units).sum::<f64>() / admitted.len().max(1) as f64;
    fail(format!(
        "Saturday peak: in second {second}, {} first pages (stores_in_country(CC, {PEAK_LIMIT}, \
         None)) of {} countries ({}), {PEAK_PAGES} each, {per_page} RCU per page read. {} of them \
         failed ({}); {} requests were throttled. Where the requests went:\n{}\n{cause}",
        thousands((PEAK_PAGES * countries.len()) as i128),
        countries.len(),
        countries.join(", "),
        thousands(failed.values().sum::<usize>() as i128),
        if failures.is_empty() {
            "none returned an error".to_string()
        } else {
            failures.join(", ")
        },
        thousands(throttled.len() as i128),
        lines.join("\n")
    ));
}

// ---------------------------------------------------------------------------------------
// Diagnoses
// ---------------------------------------------------------------------------------------

/// Fails unless `sent` is exactly one Query, with what the learner did instead.
fn check_one_query(s: &Scene, context: &str, sent: &[RequestRecord], country: &str) {
    if let Some(scan) = sent.iter().find(|r| r.operation == "Scan") {
        let total = s.all_items().len();
        fail(format!(
            "{context}.\nIts {} read {} items — a Scan reads every item of the table, every \
             country's stores ({total} items here), to return a few. The stores asked for share \
             one partition key (PK = COUNTRY#{}) and one range of the sort key: one Query.",
            show_bare(scan),
            scan.items_read,
            country.to_uppercase()
        ));
    }
    if sent.len() != 1 || sent[0].operation != "Query" {
        let read: u64 = sent.iter().map(|r| r.items_read).sum();
        fail(format!(
            "{context}.\nThey read {read} item(s) in {} request(s). The stores asked for are one \
             range of one item collection: one Query, whose key condition selects exactly them.",
            sent.len()
        ));
    }
}

/// Why a city's listing is not the city's stores, newest first.
fn city_diagnosis(s: &Scene, want: &[Store], got: &[Store], country: &str, city: &str) -> String {
    let folded = city.to_lowercase();
    let strangers: Vec<&Store> = got
        .iter()
        .filter(|g| g.city.to_lowercase() != folded)
        .collect();
    if !strangers.is_empty() {
        let shown: Vec<String> = strangers
            .iter()
            .take(3)
            .map(|st| {
                format!(
                    "{}'s store {} (SK = {})",
                    st.city,
                    st.id,
                    s.sk_of(st).unwrap_or_else(|| "?".into())
                )
            })
            .collect();
        return format!(
            "It returned stores of another city: {}. Their sort keys begin with CITY#{folded} \
             too: a prefix without its trailing separator matches every city whose name starts \
             with this one's. End the prefix with the separator: begins_with(SK, \
             \"CITY#{folded}#\").",
            shown.join(", ")
        );
    }
    if got.is_empty() && !want.is_empty() {
        return format!(
            "It found nothing.{}",
            not_found_hint(s, country, city, None)
        );
    }
    let mut same = got.to_vec();
    same.sort_by_key(|st| std::cmp::Reverse(st.id));
    if same == want {
        let mut oldest_first = want.to_vec();
        oldest_first.reverse();
        if got == oldest_first.as_slice() {
            return "These are oldest first: a Query returns items in ascending sort-key order \
                    unless ScanIndexForward = false."
                .to_string();
        }
        let sks: Vec<String> = got
            .iter()
            .map(|st| s.sk_of(st).unwrap_or_else(|| "?".into()))
            .collect();
        return format!(
            "The right stores, in the wrong order. Their sort keys, in the order returned: {}. \
             Sort keys compare as strings, byte by byte: STORE#105 sorts before STORE#12, and \
             STORE#7 after both. Write the id in 4 digits (STORE#0007 < STORE#0012 < \
             STORE#0105), so that string order is number order.",
            sks.join(", ")
        );
    }
    "A city's listing is exactly that city's stores, newest (highest id) first.".to_string()
}

/// Why a lookup found nothing: the keys the table holds for that city, against the README's.
fn not_found_hint(s: &Scene, country: &str, city: &str, id: Option<u32>) -> String {
    let folded = city.to_lowercase();
    let items = s.all_items();
    let of_city = |i: &&Item| text(i, "city").map(|c| c.to_lowercase()) == Some(folded.clone());
    let Some(first) = items
        .iter()
        .filter(of_city)
        .find(|i| id.is_none() || number(i, "id") == id)
    else {
        return String::new();
    };
    let (pk, sk) = (
        text(first, "PK").unwrap_or_default(),
        text(first, "SK").unwrap_or_default(),
    );
    let laid_out = format!(
        "CITY#{folded}#STORE#{:04}",
        number(first, "id").unwrap_or_default()
    );
    if pk == format!("COUNTRY#{}", country.to_uppercase()) && sk == laid_out {
        let ascii = city.to_ascii_lowercase();
        let ascii_note = if ascii != folded {
            format!(
                " (to_ascii_lowercase gives \"{ascii}\": it folds only A–Z, and leaves Ü as it is)"
            )
        } else {
            String::new()
        };
        return format!(
            " The store is there, under the README's key: PK = {pk}, SK = {sk}. So the read \
             asked for another key: fold what the visitor typed as add_store folds the name — \
             \"{city}\".to_lowercase() is \"{folded}\"{ascii_note} — and the country code with \
             to_uppercase."
        );
    }
    format!(
        " The item add_store wrote for a store of this city has PK = {pk}, SK = {sk}; the \
         README's layout gives PK = COUNTRY#{}, SK = {laid_out}. Sort keys compare byte by byte \
         and are case-sensitive: fold the city with str::to_lowercase (to_ascii_lowercase leaves \
         Ü as it is) both when writing and when reading, and the country code with to_uppercase.",
        country.to_uppercase()
    )
}

/// What is wrong with the items add_store wrote, for the layout test.
fn layout_diagnosis(stores: &[Store], got: &[Item]) -> String {
    for st in stores {
        let want = layout_item(st);
        let found = got.iter().find(|i| {
            text(i, "city").as_deref() == Some(st.city.as_str()) && number(i, "id") == Some(st.id)
        });
        let Some(found) = found else {
            return format!(
                "There is no item with the city and id of store {} of {}.",
                st.id, st.city
            );
        };
        let (pk, sk) = (
            text(found, "PK").unwrap_or_default(),
            text(found, "SK").unwrap_or_default(),
        );
        let (want_pk, want_sk) = (
            text(&want, "PK").unwrap_or_default(),
            text(&want, "SK").unwrap_or_default(),
        );
        if pk != want_pk {
            return format!(
                "Store {} of {} is under PK = {pk}; the layout's is {want_pk}. One partition key \
                 per country spreads the countries over partitions; a partition key shared by \
                 every store is one partition for all of them (see \
                 saturday_peak_spreads_over_countries).",
                st.id, st.city
            );
        }
        if sk != want_sk {
            let why = if sk.contains(&st.city) && st.city != st.city.to_lowercase() {
                if sk.to_lowercase() == want_sk.to_lowercase() && !st.city.is_ascii() {
                    " to_ascii_lowercase folds only A–Z: the key holds the city folded with \
                     str::to_lowercase, so Überlingen is überlingen."
                } else {
                    " The key holds the city in lower case (str::to_lowercase): sort keys are \
                     case-sensitive, and a visitor types berlin as often as Berlin."
                }
            } else if !sk.ends_with(&format!("{:04}", st.id)) {
                " The id goes in 4 digits (STORE#0012): as strings, STORE#105 sorts before \
                 STORE#12."
            } else {
                ""
            };
            return format!(
                "Store {} of {} is under SK = {sk}; the layout's is {want_sk}.{why}",
                st.id, st.city
            );
        }
    }
    "Compare the attributes, item by item.".to_string()
}

// ---------------------------------------------------------------------------------------
// The scene, the data, and helpers
// ---------------------------------------------------------------------------------------

struct Scene {
    world: World,
    client: Client,
}

impl Scene {
    fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        client
            .create_table()
            .table_name(TABLE)
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .key_schema(KeySchemaElement::new("SK", KeyType::Range))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not create its table: {e}")));
        Scene { world, client }
    }

    /// Adds a country's stores through the learner's add_store, in a seeded order; returns them.
    fn add_country(
        &self,
        country: &str,
        cities: &[(&str, usize)],
        rng: &mut Rng,
        ids: &mut Ids,
    ) -> Vec<Store> {
        self.add_country_sized(country, cities, rng, ids, ABOUT_LEN)
    }

    /// [`Scene::add_country`] with stores whose `about` is `about_len` bytes.
    fn add_country_sized(
        &self,
        country: &str,
        cities: &[(&str, usize)],
        rng: &mut Rng,
        ids: &mut Ids,
        about_len: usize,
    ) -> Vec<Store> {
        let mut stores = Vec::new();
        for (city, n) in cities {
            for k in 0..*n {
                let id = ids.with_digits(rng, [2, 3, 1, 4, 3, 2, 4, 3, 2][k % 9]);
                stores.push(sized_store(country, city, id, rng, about_len));
            }
        }
        let mut order = stores.clone();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for (k, st) in order.iter().enumerate() {
            // The loading is spread over seconds, under one partition's 1,000 WCU a second
            // whatever the learner's partition keys.
            if k % ADD_PER_SECOND == 0 {
                self.world.advance(Duration::from_secs(1));
            }
            learner::add_store(&self.client, st).unwrap_or_else(|e| {
                fail(format!(
                    "the test could not add its stores: add_store({}) failed: {e}",
                    show_store(st)
                ))
            });
        }
        stores
    }

    /// The tests' own item in each country's collection: SK = COUNTRY.
    fn put_country_items(&self, countries: &[&str]) {
        for cc in countries {
            let (name, currency) = match *cc {
                "DE" => ("Deutschland", "EUR"),
                "AT" => ("Österreich", "EUR"),
                "CH" => ("Schweiz", "CHF"),
                _ => ("?", "?"),
            };
            self.client
                .put_item()
                .table_name(TABLE)
                .set_item(Some(item! {
                    "PK" => format!("COUNTRY#{cc}"),
                    "SK" => "COUNTRY",
                    "name" => name,
                    "currency" => currency,
                }))
                .send()
                .unwrap_or_else(|e| fail(format!("the test could not store {cc}: {e}")));
        }
    }

    /// Every item of the table, as the leaders have them, sorted by PK then SK.
    fn all_items(&self) -> Vec<Item> {
        let items = self
            .client
            .scan()
            .table_name(TABLE)
            .consistent_read(true)
            .into_paginator()
            .items()
            .send()
            .collect::<Result<Vec<Item>, _>>()
            .map_err(Error::from)
            .unwrap_or_else(|e| fail(format!("the test could not read the table: {e}")));
        // The test's own reads are not the learner's: keep them out of the log's judgement by
        // reading before or after the learner's requests only.
        sorted_items(items)
    }

    /// The SK of the item holding this store, as the learner wrote it.
    fn sk_of(&self, st: &Store) -> Option<String> {
        self.all_items()
            .iter()
            .find(|i| {
                text(i, "city").as_deref() == Some(st.city.as_str())
                    && number(i, "id") == Some(st.id)
            })
            .and_then(|i| text(i, "SK"))
    }

    fn partition_of(&self, pk: &str) -> u32 {
        self.world
            .partition_of(TABLE, &AttributeValue::S(pk.to_string()))
            .unwrap_or_else(|e| fail(format!("the test could not find a partition: {e}")))
    }

    /// The position in the request log of the next request.
    fn next_seq(&self) -> u64 {
        self.world.request_totals().requests
    }

    /// The requests sent since `from`.
    fn requests_since(&self, from: u64) -> Vec<RequestRecord> {
        self.world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= from)
            .collect()
    }
}

/// Store ids handed out once each, with a chosen number of digits.
struct Ids {
    used: BTreeSet<u32>,
}

impl Ids {
    fn new() -> Ids {
        Ids {
            used: BTreeSet::new(),
        }
    }

    fn with_digits(&mut self, rng: &mut Rng, digits: u32) -> u32 {
        for d in digits..=4 {
            let (lo, hi) = (10u32.pow(d - 1), 10u32.pow(d) - 1);
            for _ in 0..50 {
                let id = lo + rng.below(u64::from(hi - lo + 1)) as u32;
                if self.used.insert(id) {
                    return id;
                }
            }
        }
        fail("the test ran out of store ids (a test defect)")
    }
}

const STREETS: [&str; 6] = [
    "Hauptstraße",
    "Bahnhofstraße",
    "Marktplatz",
    "Lindenallee",
    "Am Ring",
    "Kirchgasse",
];

/// A store with a full `about` page (about 1.5 KB), as the finder's reads return them.
fn make_store(country: &str, city: &str, id: u32, rng: &mut Rng) -> Store {
    sized_store(country, city, id, rng, ABOUT_LEN)
}

/// A store whose `about` is at least `about_len` bytes (0: one line).
fn sized_store(country: &str, city: &str, id: u32, rng: &mut Rng, about_len: usize) -> Store {
    let street = STREETS[rng.below(STREETS.len() as u64) as usize];
    let mut about = format!(
        "{street} {}, {city}. Open Mon–Sat 7:00–19:00, Sun 9:00–17:00.",
        1 + rng.below(120)
    );
    while about.len() < about_len {
        about.push_str(" Espresso bar, oat milk, seating inside and out, step-free entrance.");
    }
    Store {
        country: country.to_string(),
        city: city.to_string(),
        id,
        name: format!("Kiez Kaffee {city} {street}"),
        about,
    }
}

/// The item the README lays out for a store.
fn layout_item(st: &Store) -> Item {
    item! {
        "PK" => format!("COUNTRY#{}", st.country.to_uppercase()),
        "SK" => sort_key(st),
        "country" => st.country.to_uppercase(),
        "city" => st.city.clone(),
        "id" => u64::from(st.id),
        "name" => st.name.clone(),
        "about" => st.about.clone(),
    }
}

fn sort_key(st: &Store) -> String {
    format!("CITY#{}#STORE#{:04}", st.city.to_lowercase(), st.id)
}

fn sorted_items(mut items: Vec<Item>) -> Vec<Item> {
    items.sort_by_key(|i| (text(i, "PK"), text(i, "SK")));
    items
}

fn number(item: &Item, name: &str) -> Option<u32> {
    item.get(name)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok())
}

fn text(item: &Item, name: &str) -> Option<String> {
    item.get(name).and_then(|v| v.as_s().ok()).cloned()
}

/// `Query #12 (eventually consistent, ThrottlingException)`.
fn show_bare(r: &RequestRecord) -> String {
    let mut notes = Vec::new();
    match r.consistent_read {
        Some(true) => notes.push("strongly consistent".to_string()),
        Some(false) => notes.push("eventually consistent".to_string()),
        None => {}
    }
    if matches!(r.operation, "Query" | "Scan") {
        notes.push(format!("{} items read", r.items_read));
    }
    if let Some(error) = r.error {
        notes.push(error.to_string());
    }
    format!("{} #{} ({})", r.operation, r.seq, notes.join(", "))
}

fn show_requests(requests: &[RequestRecord]) -> String {
    if requests.is_empty() {
        return "no request".to_string();
    }
    requests
        .iter()
        .map(show_bare)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `DE / Berlin / store 12 "Kiez Kaffee Berlin Hauptstraße"`.
fn show_store(st: &Store) -> String {
    format!(
        "{} / {} / store {} \"{}\"",
        st.country, st.city, st.id, st.name
    )
}

/// [`show_store`] and the length of its `about`, for comparisons of whole stores.
fn show_whole(st: &Store) -> String {
    format!(
        "{}, about: {} bytes",
        show_store(st),
        thousands(st.about.len() as i128)
    )
}

fn show_store_opt(st: Option<&Store>) -> String {
    st.map_or("None".to_string(), |st| format!("Some({})", show_whole(st)))
}

fn show_stores(stores: &[Store]) -> String {
    if stores.is_empty() {
        return "(no store)".to_string();
    }
    stores.iter().map(show_whole).collect::<Vec<_>>().join("\n")
}
