//! Hidden tests of the `global-tables` kata.
//!
//! Each test builds a fresh world holding the kata's global table (`site`, created in
//! us-east-1 and replicated to eu-west-1 and ap-southeast-2; replication takes 100 ms–1 s per
//! write, drawn from the seed) and judges the learner's four functions from the outside:
//! what they return, what every replica holds once replication has settled, which Region a
//! write was made in (the engine's `pending_replication`: a write is on its way *from* the
//! Region it was made in), the conflicts last writer wins settled
//! (`replication_conflicts`, the record DynamoDB does not keep) and the request log.
//!
//! - `counts_and_loads_profiles`: one Region after another, a second apart (no conflict is
//!   possible): the total of visits is the same read in every Region; a change sets only the
//!   fields it holds; a user who never saved has no profile; the items have the README's
//!   layout.
//! - `no_visit_lost_across_regions`: the three Regions count visits to one page at once, on
//!   the engine's seeded schedule (`World::concurrently`), a few ms apart — well inside the
//!   replication delay. No write may lose a conflict; once settled, every Region reads the
//!   whole total, and each Region's item holds that Region's visits.
//! - `reads_your_profile_write_in_any_region`: changes made through any Region, each read
//!   back at once through every Region; the replicas of the home Region's partition that are
//!   not its leader lag 10 s, so an eventually consistent read there is stale as well.
//! - `profile_changes_are_written_in_the_home_region`: a user changes their name in one Region
//!   and their email in another 0–200 ms later; both writes must be made in the home Region,
//!   and both changes survive.
//! - `home_region_down_fails_the_write`: the home Region is down (`fail_region`): a change and
//!   a read of the profile return its error (`ServiceUnavailable`), nothing is written
//!   anywhere else, and once the Region is back every replica holds the profile as it was.

use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::global::{ConflictingWrite, ReplicationConflict};
use engine::world::faults::Az;
use engine::{AttributeValue, Error, Item, World, WorldConfig};
use given::{create_global_table, Profile, Replicas, User, REGIONS, TABLE};
use katas_testkit::items::item_text;
use katas_testkit::{check_eq_text, fail, run, seeded, Rng};
use learner::{count_visit, load_profile, update_profile, visits};

katas_testkit::learner! {
    /// Counts one visit to `page`, made by the application servers in Region `here`.
    fn count_visit(replicas: &Replicas, here: &str, page: &str) -> Result<(), Error>;
    /// The visits to `page` from every Region, as the replica in `here` has them.
    fn visits(replicas: &Replicas, here: &str, page: &str) -> Result<u64, Error>;
    /// Applies `change` to `user`'s profile, for a request served in Region `here`.
    fn update_profile(replicas: &Replicas, here: &str, user: &User, change: &Profile) -> Result<(), Error>;
    /// `user`'s own profile, for a request served in Region `here`.
    fn load_profile(replicas: &Replicas, here: &str, user: &User) -> Result<Option<Profile>, Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("counts_and_loads_profiles", counts_and_loads_profiles),
        seeded("no_visit_lost_across_regions", no_visit_lost_across_regions),
        seeded(
            "reads_your_profile_write_in_any_region",
            reads_your_profile_write_in_any_region,
        ),
        seeded(
            "profile_changes_are_written_in_the_home_region",
            profile_changes_are_written_in_the_home_region,
        ),
        seeded(
            "home_region_down_fails_the_write",
            home_region_down_fails_the_write,
        ),
    ]);
}

/// Visits per Region in the concurrent test.
const VISITS_PER_REGION: u64 = 12;
/// How far the home Region's follower replicas lag in the read-your-write test.
const FOLLOWER_LAG: Duration = Duration::from_secs(10);

/// A world with the kata's global table, and a client per Region.
fn world(seed: u64) -> (World, Replicas) {
    let world = World::with_config(WorldConfig {
        seed,
        ..WorldConfig::default()
    });
    create_global_table(&world).expect("the tests' global table");
    let replicas = Replicas::new(&world);
    (world, replicas)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// `PK = "PAGE#home", SK = "VISITS"`: a key for a message.
fn key_line(key: &Item) -> String {
    engine::value::sorted(key)
        .into_iter()
        .map(|(k, v)| match v.as_s() {
            Ok(text) => format!("{k} = {text:?}"),
            Err(_) => format!("{k} = {v:?}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// An item for a message, on one line (attributes sorted).
fn item_line(item: &Option<Item>) -> String {
    match item {
        None => "(deleted)".to_string(),
        Some(item) => {
            let parts: Vec<String> = engine::value::sorted(item)
                .into_iter()
                .map(|(k, v)| match (v.as_s(), v.as_n()) {
                    (Ok(text), _) => format!("{k}: {text:?}"),
                    (_, Ok(n)) => format!("{k}: {n}"),
                    _ => format!(
                        "{k}: {}",
                        engine::value::item_to_json(&Item::from([(k.clone(), v.clone())]))
                    ),
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

fn write_line(w: &ConflictingWrite) -> String {
    format!("{} at {}: {}", w.region, secs(w.at), item_line(&w.item))
}

/// The engine's record of one lost write, as a message paragraph.
fn conflict_text(c: &ReplicationConflict) -> String {
    format!(
        "item {} was written in two Regions before either write had reached the other:\n  \
         kept: {}\n  lost: {}\n(detected in {} at {}; replication takes up to 1 s)",
        key_line(&c.key),
        write_line(&c.winner),
        write_line(&c.loser),
        c.detected_in,
        secs(c.detected_at),
    )
}

/// Every replica's items under partition key `pk` (strongly consistent Query in each Region).
fn items_in(replicas: &Replicas, region: &str, pk: &str) -> Vec<Item> {
    let out = replicas
        .client(region)
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s(pk))
        .consistent_read(true)
        .send()
        .expect("the tests' Query");
    out.items().to_vec()
}

/// The items under `pk` in `region`'s replica, one indented line each, for a message.
fn parts_text(replicas: &Replicas, region: &str, pk: &str) -> String {
    let items = items_in(replicas, region, pk);
    if items.is_empty() {
        return "  (no item)".to_string();
    }
    items
        .iter()
        .map(|i| format!("  {}", item_line(&Some(i.clone()))))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The writes to the table logged from request `from` on, as `PutItem (request #12)`.
fn writes_since(world: &World, from: u64) -> String {
    let writes: Vec<String> = world
        .request_log()
        .into_iter()
        .filter(|r| r.seq >= from && r.consistent_read.is_none() && r.touches(TABLE))
        .map(|r| format!("{} (request #{})", r.operation, r.seq))
        .collect();
    if writes.is_empty() {
        "no write".to_string()
    } else {
        writes.join(", ")
    }
}

fn next_seq(world: &World) -> u64 {
    world.request_log().last().map(|r| r.seq + 1).unwrap_or(0)
}

fn profile_text(p: &Option<Profile>) -> String {
    match p {
        None => "None".to_string(),
        Some(p) => format!("display_name: {:?}, email: {:?}", p.display_name, p.email),
    }
}

fn user(id: &str, home: &str) -> User {
    User {
        id: id.to_string(),
        home_region: home.to_string(),
    }
}

fn name(v: &str) -> Profile {
    Profile {
        display_name: Some(v.to_string()),
        email: None,
    }
}

fn email(v: &str) -> Profile {
    Profile {
        display_name: None,
        email: Some(v.to_string()),
    }
}

fn or_fail<T>(what: &str, result: Result<T, Error>) -> T {
    result.unwrap_or_else(|e| {
        fail(format!(
            "{what} failed: {} ({})",
            e.message().unwrap_or("no message"),
            e.code().unwrap_or("no code")
        ))
    })
}

/// The Regions a write made just now to partition key `pk` is on its way from.
fn written_in(world: &World, pk: &str) -> Vec<String> {
    let now = Duration::from_millis(world.now().as_millis() as u64);
    let mut from: Vec<String> = world
        .pending_replication(TABLE)
        .iter()
        .filter(|p| p.written_at == now)
        .filter(|p| {
            p.key
                .get("PK")
                .and_then(|v| v.as_s().ok())
                .map(|v| v.as_str())
                == Some(pk)
        })
        .map(|p| p.from.to_string())
        .collect();
    from.sort();
    from.dedup();
    from
}

fn counts_and_loads_profiles(seed: u64) {
    let (world, replicas) = world(seed);
    let mut rng = Rng::new(seed);
    let page = format!("page-{}", rng.below(100));
    let mut total = 0;
    for region in REGIONS {
        let n = rng.below(4);
        for _ in 0..n {
            or_fail(
                &format!("count_visit(here = {region:?}, page = {page:?})"),
                count_visit(&replicas, region, &page),
            );
        }
        total += n;
        world.advance(Duration::from_secs(1));
    }
    world.settle();
    for region in REGIONS {
        let seen = or_fail(
            &format!("visits(here = {region:?}, page = {page:?})"),
            visits(&replicas, region, &page),
        );
        if seen != total {
            fail(format!(
                "{total} visits to {page:?} were counted across the three Regions, one Region after \
                 another with a second between them, and replication has settled — but visits(here = \
                 {region:?}) returned {seen}. The replica in {region} holds every Region's part:\n{}\n\
                 The total is the sum of all of them, whichever Region reads it.",
                parts_text(&replicas, region, &format!("PAGE#{page}"))
            ));
        }
    }
    let never = or_fail(
        &format!("visits(here = {:?}, page = \"never-visited\")", REGIONS[0]),
        visits(&replicas, REGIONS[0], "never-visited"),
    );
    if never != 0 {
        fail(format!(
            "visits of a page nobody visited returned {never}, not 0."
        ));
    }

    let home = REGIONS[rng.below(3) as usize];
    let here = REGIONS[rng.below(3) as usize];
    let ana = user(&format!("ana-{}", rng.below(1000)), home);
    let nobody = user("nobody", home);
    let got = or_fail(
        "load_profile of a user who never saved one",
        load_profile(&replicas, here, &nobody),
    );
    if got.is_some() {
        fail(format!(
            "load_profile of a user who never saved a profile returned {}, not None.",
            profile_text(&got)
        ));
    }
    let first = Profile {
        display_name: Some("Ana".into()),
        email: Some("ana@example.com".into()),
    };
    or_fail(
        "update_profile",
        update_profile(&replicas, here, &ana, &first),
    );
    world.settle();
    let change_from = next_seq(&world);
    or_fail(
        "update_profile",
        update_profile(&replicas, here, &ana, &email("ana@example.org")),
    );
    let change_writes = writes_since(&world, change_from);
    world.settle();
    let expected = Profile {
        display_name: Some("Ana".into()),
        email: Some("ana@example.org".into()),
    };
    for region in REGIONS {
        let got = or_fail("load_profile", load_profile(&replicas, region, &ana));
        if got.as_ref() != Some(&expected) {
            Failure::compare(
                format!(
                    "{} (home Region {home}) saved display_name and email, then changed only the \
                     email (both in {here}, replication settled); load_profile(here = {region:?}) \
                     returned another profile. The change of the email sent: {change_writes}. A \
                     change must leave the fields it does not hold as they are, and a PutItem \
                     replaces the whole item: every attribute it does not carry is gone.",
                    ana.id
                ),
                profile_text(&Some(expected.clone())),
                profile_text(&got),
            )
            .raise();
        }
    }
    let stored = items_in(&replicas, home, &format!("USER#{}", ana.id));
    let layout = stored.len() == 1
        && stored[0]
            .get("SK")
            .and_then(|v| v.as_s().ok())
            .map(|v| v.as_str())
            == Some("PROFILE")
        && stored[0].get("display_name") == Some(&s("Ana"))
        && stored[0].get("email") == Some(&s("ana@example.org"));
    if !layout {
        check_eq_text(
            &item_text(&engine::item! {
                "PK" => format!("USER#{}", ana.id), "SK" => "PROFILE",
                "display_name" => "Ana", "email" => "ana@example.org"
            }),
            &stored.iter().map(item_text).collect::<Vec<_>>().join("\n"),
            format!(
                "The items under PK = \"USER#{}\" in {home} are not the README's layout: one item, \
                 SK = \"PROFILE\", with display_name and email.",
                ana.id
            ),
        );
    }
}

use katas_testkit::Failure;

fn no_visit_lost_across_regions(seed: u64) {
    let (world, replicas) = world(seed);
    let page = "home";
    let replicas_ref = &replicas;
    // Errors are reported after the run, from this thread: a failure raised inside a
    // scheduled client would print that thread's panic.
    let errors = world.concurrently(seed).run(REGIONS.len(), |i, client| {
        let region = REGIONS[i];
        let mut rng = Rng::new(seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9));
        for _ in 0..VISITS_PER_REGION {
            if let Err(e) = count_visit(replicas_ref, region, page) {
                return Some((region, e));
            }
            client
                .world()
                .advance(Duration::from_millis(1 + rng.below(30)));
        }
        None
    });
    if let Some((region, e)) = errors.into_iter().flatten().next() {
        or_fail(
            &format!("count_visit(here = {region:?}, page = \"home\")"),
            Err::<(), Error>(e),
        );
    }
    world.settle();
    let total = VISITS_PER_REGION * REGIONS.len() as u64;
    let conflicts = world.replication_conflicts(TABLE);
    if let Some(first) = conflicts.first() {
        let one_item = first.winner.item.as_ref().map(|i| i.len()).unwrap_or(0) > 0
            && first
                .winner
                .item
                .as_ref()
                .zip(first.loser.item.as_ref())
                .map(|(w, l)| {
                    w.keys().any(|k| !l.contains_key(k)) || l.keys().any(|k| !w.contains_key(k))
                })
                .unwrap_or(false);
        let why = if one_item {
            "The two writes set different attributes, but they are one item, and global tables \
             settle a conflict per item: the later write replaces the whole item in every \
             replica, so the other Region's attribute went back to what the later writer had \
             seen."
        } else {
            "Each Region added one to what its own replica held; last writer wins kept one \
             write, and the other Region's increment is gone in every replica."
        };
        fail(format!(
            "The three Regions counted {VISITS_PER_REGION} visits each to page \"home\" at the \
             same time, a few ms apart. The engine recorded {} replication conflict(s); the \
             first:\n{}\n{why} In a global table, writes to one item from two Regions within \
             the replication delay conflict, and last writer wins keeps one of them, silently: \
             no item may be written by two Regions.",
            conflicts.len(),
            conflict_text(first),
        ));
    }
    for region in REGIONS {
        let seen = or_fail(
            &format!("visits(here = {region:?}, page = \"home\")"),
            visits(&replicas, region, page),
        );
        if seen != total {
            fail(format!(
                "The three Regions counted {VISITS_PER_REGION} visits each to page \"home\" \
                 ({total} in all) and replication has settled with no conflict, but visits(here = \
                 {region:?}) returned {seen}. The replica in {region} holds:\n{}\nThe total is \
                 the sum of every Region's part.",
                parts_text(&replicas, region, "PAGE#home")
            ));
        }
    }
    for region in REGIONS {
        let items = items_in(&replicas, region, "PAGE#home");
        let mut expected: Vec<String> = REGIONS
            .iter()
            .map(|r| {
                item_text(&engine::item! {
                    "PK" => "PAGE#home", "SK" => format!("VISITS#{r}"),
                    "visits" => VISITS_PER_REGION
                })
            })
            .collect();
        expected.sort();
        let mut actual: Vec<String> = items.iter().map(item_text).collect();
        actual.sort();
        check_eq_text(
            &expected.join("\n"),
            &actual.join("\n"),
            format!(
                "The items under PK = \"PAGE#home\" in {region} are not the README's layout: one \
                 item per Region, SK = \"VISITS#<region>\", its number `visits` counting that \
                 Region's visits."
            ),
        );
    }
}

fn reads_your_profile_write_in_any_region(seed: u64) {
    let (world, replicas) = world(seed);
    let mut rng = Rng::new(seed);
    let home = REGIONS[rng.below(3) as usize];
    let bo = user(&format!("bo-{}", rng.below(1000)), home);
    // The home Region's followers fall 10 s behind: only its leader has the latest write.
    let home_world = world.in_region(home);
    let leader = home_world
        .leader_az(TABLE, 0)
        .expect("partition 0 of the table");
    for az in Az::ALL {
        if Some(az) != leader {
            home_world
                .lag_replica(TABLE, 0, az, FOLLOWER_LAG)
                .expect("partition 0 of the table");
        }
    }
    for round in 1..=6 {
        let wrote_in = REGIONS[rng.below(3) as usize];
        let new_name = format!("Bo v{round}");
        or_fail(
            &format!("update_profile(here = {wrote_in:?})"),
            update_profile(&replicas, wrote_in, &bo, &name(&new_name)),
        );
        for region in REGIONS {
            let got = or_fail(
                &format!("load_profile(here = {region:?})"),
                load_profile(&replicas, region, &bo),
            );
            let seen = got.as_ref().and_then(|p| p.display_name.clone());
            if seen.as_deref() == Some(new_name.as_str()) {
                continue;
            }
            let last_read = world
                .request_log()
                .into_iter()
                .rev()
                .find(|r| r.consistent_read.is_some() && r.touches(TABLE));
            let pending: Vec<String> = world
                .pending_replication(TABLE)
                .iter()
                .filter(|p| p.to.as_str() == region)
                .map(|p| format!("{} → {} due at {}", p.from, p.to, secs(p.due_at)))
                .collect();
            let cause = match (&last_read, region == home) {
                (Some(r), true) if r.consistent_read == Some(false) => format!(
                    "That read was eventually consistent ({} with ConsistentRead false): in {home} \
                     it may be answered by any replica of the item's partition, and two of the \
                     three are {} s behind here (request #{}). An eventually consistent read may \
                     be served by a replica that has not received the write yet, in the home Region \
                     too.",
                    r.operation,
                    FOLLOWER_LAG.as_secs(),
                    r.seq
                ),
                _ if !pending.is_empty() => format!(
                    "The change has not reached {region} yet (on its way: {}). A replica in one \
                     Region sees a write made in another only once it is replicated, up to a second \
                     later; a strongly consistent read is strong only in the Region it is sent to.",
                    pending.join("; ")
                ),
                (Some(r), _) => format!(
                    "The last read of the table was {} (request #{}, ConsistentRead {}), and it \
                     did not see the change just made.",
                    r.operation,
                    r.seq,
                    r.consistent_read == Some(true)
                ),
                (None, _) => "The request log holds no read of the table.".to_string(),
            };
            fail(format!(
                "{} (home Region {home}) set display_name = {new_name:?} through {wrote_in} at {}; \
                 load_profile(here = {region:?}) right after returned display_name = {seen:?}, \
                 the old profile. {cause}",
                bo.id,
                secs(world.now())
            ));
        }
        world.advance(Duration::from_millis(rng.below(300)));
    }
}

fn profile_changes_are_written_in_the_home_region(seed: u64) {
    let (world, replicas) = world(seed);
    let mut rng = Rng::new(seed);
    let h = rng.below(3) as usize;
    let home = REGIONS[h];
    let (a, b) = (REGIONS[(h + 1) % 3], REGIONS[(h + 2) % 3]);
    let cy = user(&format!("cy-{}", rng.below(1000)), home);
    let pk = format!("USER#{}", cy.id);
    let mut origins = Vec::new();
    or_fail(
        &format!("update_profile(here = {a:?})"),
        update_profile(&replicas, a, &cy, &name("Cy")),
    );
    origins.push((a, "display_name = \"Cy\"", written_in(&world, &pk)));
    world.advance(Duration::from_millis(rng.below(200)));
    or_fail(
        &format!("update_profile(here = {b:?})"),
        update_profile(&replicas, b, &cy, &email("cy@example.com")),
    );
    origins.push((b, "email = \"cy@example.com\"", written_in(&world, &pk)));
    world.settle();

    let conflicts: Vec<ReplicationConflict> = world
        .replication_conflicts(TABLE)
        .into_iter()
        .filter(|c| c.key.get("PK") == Some(&s(&pk)))
        .collect();
    let stray: Vec<String> = origins
        .iter()
        .filter(|(_, _, from)| from.iter().any(|r| r != home))
        .map(|(here, change, from)| {
            format!(
                "the change {change}, requested in {here}, was written in {}",
                from.join(", ")
            )
        })
        .collect();
    if !conflicts.is_empty() || !stray.is_empty() {
        let conflict = conflicts
            .first()
            .map(|c| {
                format!(
                    " Last writer wins settled the conflict and a change is gone: {}",
                    conflict_text(c)
                )
            })
            .unwrap_or_default();
        fail(format!(
            "{} is homed in {home}; {} (the engine's pending replication shows where each write \
             left from).{conflict}\nWrites to one item from two Regions within the replication \
             delay conflict, and last writer wins keeps only one of them, in every replica: an \
             item that several Regions change needs one Region that makes all its writes.",
            cy.id,
            stray.join("; ")
        ));
    }
    let expected = Profile {
        display_name: Some("Cy".into()),
        email: Some("cy@example.com".into()),
    };
    for region in REGIONS {
        let got = or_fail("load_profile", load_profile(&replicas, region, &cy));
        if got.as_ref() != Some(&expected) {
            Failure::compare(
                format!(
                    "{} changed their display_name in {a} and their email in {b}, and replication \
                     has settled; load_profile(here = {region:?}) does not return both changes.",
                    cy.id
                ),
                profile_text(&Some(expected.clone())),
                profile_text(&got),
            )
            .raise();
        }
    }
}

fn home_region_down_fails_the_write(seed: u64) {
    let (world, replicas) = world(seed);
    let mut rng = Rng::new(seed);
    let h = rng.below(3) as usize;
    let home = REGIONS[h];
    let here = REGIONS[(h + 1 + rng.below(2) as usize) % 3];
    let di = user(&format!("di-{}", rng.below(1000)), home);
    let pk = format!("USER#{}", di.id);
    let before = Profile {
        display_name: Some("Di".into()),
        email: Some("di@example.com".into()),
    };
    or_fail(
        "update_profile",
        update_profile(&replicas, home, &di, &before),
    );
    world.settle();

    world.fail_region(home);
    match update_profile(&replicas, here, &di, &name("Di (new)")) {
        Err(e) if e.code() == Some("ServiceUnavailable") => {}
        Err(e) => fail(format!(
            "With {home} down, update_profile for {} (homed there) returned {} ({}), not the \
             ServiceUnavailable its home Region answered.",
            di.id,
            e.code().unwrap_or("no code"),
            e.message().unwrap_or("no message")
        )),
        Ok(()) => {
            let from = written_in(&world, &pk);
            let wrote = if from.is_empty() {
                "and nothing was written".to_string()
            } else {
                format!(
                    "and the change was written in {} instead (it is on its way from there to the \
                     other replicas); when {home} is back, its own writes to the item and this \
                     one conflict, and last writer wins drops one",
                    from.join(", ")
                )
            };
            fail(format!(
                "{home} is down (every request to it gets ServiceUnavailable), yet update_profile \
                 for {} (homed in {home}) requested in {here} returned Ok, {wrote}. A write made \
                 outside the item's home Region conflicts with the home Region's own writes; the \
                 README asks for the home Region's error while it is down.",
                di.id
            ));
        }
    }
    let from = written_in(&world, &pk);
    if !from.is_empty() {
        fail(format!(
            "With {home} down, update_profile for {} returned the error but also wrote the change \
             in {}: once {home} is back, that write and the home Region's own writes to the item \
             conflict, and last writer wins drops one.",
            di.id,
            from.join(", ")
        ));
    }
    match load_profile(&replicas, here, &di) {
        Err(e) if e.code() == Some("ServiceUnavailable") => {}
        other => fail(format!(
            "With {home} down, load_profile for {} (homed there) requested in {here} returned {}, \
             not the ServiceUnavailable its home Region answered: a read anywhere else may miss \
             the user's latest change, and the README asks for the home Region's error while it \
             is down.",
            di.id,
            match other {
                Ok(p) => format!("Ok({})", profile_text(&p)),
                Err(e) => e.code().unwrap_or("no code").to_string(),
            }
        )),
    }
    world.heal_region(home);
    world.settle();
    for region in REGIONS {
        let got = or_fail("load_profile", load_profile(&replicas, region, &di));
        if got.as_ref() != Some(&before) {
            Failure::compare(
                format!(
                    "{home} was down and is back, replication has settled; load_profile(here = \
                     {region:?}) returns another profile than the one saved before the outage."
                ),
                profile_text(&Some(before.clone())),
                profile_text(&got),
            )
            .raise();
        }
    }
}
