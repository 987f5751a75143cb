//! Hidden tests of the `quorum-replication` kata.
//!
//! Every test but the last is a mirror (`scene.rs`): two worlds from the same seed, one
//! replicating through DynamoDB's piece (the engine's `QuorumReplication`), one through the
//! learner's, each wrapped in a recorder, run the same workload on the table `accounts` (two
//! partitions; each write is `{PK, v: write number}`): writes, strong and eventual reads, AZ
//! failures and heals, stopped leaders, lagging replicas, the clock. The verdict compares the
//! decisions — the same input, two answers — and names the first that differs, in DynamoDB
//! terms (`explain.rs`); the promises are checked on the learner's world as it runs (no write
//! acknowledged without two live replicas holding it, none accepted without a leader and a
//! quorum, every strong read returning the last acknowledged write).
//!
//! - `a_write_is_acknowledged_by_the_leader_and_the_fastest_follower`: the lesson's writes,
//!   then one follower lagging, both lagging by different amounts, all tied, one AZ down.
//! - `the_third_replica_catches_up`: writes while a follower lags, eventual reads before and
//!   after it catches up, every replica in step after settling.
//! - `a_strong_read_sees_every_acknowledged_write`: strong and eventual reads while a follower
//!   lags a minute, then after a failover.
//! - `eventual_reads_are_served_by_any_live_replica`: eventual reads, all up and one AZ down
//!   (one that leads no partition: no election).
//! - `writes_wait_for_the_election_after_the_leader_fails`: a write, the leader's AZ fails,
//!   writes and reads during the election and after it; a stopped leader.
//! - `the_new_leader_holds_every_acknowledged_write`: the first follower in AZ order lags with
//!   writes in flight, the leader fails: the election.
//! - `writes_are_refused_without_a_quorum`: both followers down; then the leader and its quorum
//!   peer down, the lagging replica alone; then a heal.
//! - `seeded_fault_schedules_match_dynamodb`: seeded writes, reads and faults, two AZs down at
//!   times.
//! - `no_acknowledged_write_is_lost_over_a_thousand_fault_schedules`: the learner's world alone,
//!   350 seeded single-AZ fault schedules per seed (1,050 over the three default seeds).

mod explain;
mod scene;

use std::sync::Arc;

use given::{Az, Replication};
use katas_testkit::{fail, run, seeded, wrap, Rng};
use scene::{Answer, Call, Recorder, Scene, Step};

katas_testkit::learner! {
    /// The learner's replication piece.
    fn replication() -> Box<dyn Replication>;
}

/// Runs the hidden tests against the learner's piece (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded(
            "a_write_is_acknowledged_by_the_leader_and_the_fastest_follower",
            acknowledged_by_two,
        ),
        seeded("the_third_replica_catches_up", third_catches_up),
        seeded(
            "a_strong_read_sees_every_acknowledged_write",
            strong_reads_see_everything,
        ),
        seeded(
            "eventual_reads_are_served_by_any_live_replica",
            eventual_reads_anywhere,
        ),
        seeded(
            "writes_wait_for_the_election_after_the_leader_fails",
            writes_wait_for_the_election,
        ),
        seeded(
            "the_new_leader_holds_every_acknowledged_write",
            new_leader_is_up_to_date,
        ),
        seeded("writes_are_refused_without_a_quorum", no_quorum),
        seeded("seeded_fault_schedules_match_dynamodb", fault_schedules),
        seeded(
            "no_acknowledged_write_is_lost_over_a_thousand_fault_schedules",
            thousand_schedules,
        ),
    ]);
}

/// The tests' keys: `acct-0` … `acct-7`, over both partitions.
fn key(i: u64) -> String {
    format!("acct-{}", i % 8)
}

fn any_key(rng: &mut Rng) -> String {
    key(rng.below(8))
}

// ---------------------------------------------------------------------------------------
// The mirrors
// ---------------------------------------------------------------------------------------

fn acknowledged_by_two(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed);
    // The lesson: each write acknowledged by the leader and one follower.
    for _ in 0..4 {
        s.put(&any_key(&mut rng));
        s.advance(rng.below(30));
    }
    let k = any_key(&mut rng);
    let f = s.followers(&k);
    // One follower lags: the other one answers first.
    let slow = f[rng.below(2) as usize];
    s.lag(&k, slow, 2_000 + rng.below(6_000));
    for _ in 0..4 {
        s.put(&k);
        s.advance(rng.below(50));
    }
    // Both lag, one more than the other.
    let less = rng.below(2) as usize;
    s.lag(&k, f[less], 1_000 + rng.below(2_000));
    s.lag(&k, f[1 - less], 4_000 + rng.below(2_000));
    for _ in 0..3 {
        s.put(&k);
    }
    // All three lag alike: a tie, drawn.
    for az in Az::ALL {
        s.lag(&k, az, 3_000);
    }
    for _ in 0..4 {
        s.put(&k);
        s.advance(rng.below(20));
    }
    // One follower's AZ down: the other follower is the only one that can acknowledge.
    s.fail_az(f[rng.below(2) as usize]);
    s.advance(2_500);
    for _ in 0..3 {
        s.put(&k);
        s.put(&any_key(&mut rng));
    }
    s.heal_settle_and_read_back();
    s.verdict(
        "writes with all replicas alike, one follower lagging, both lagging by different \
         amounts, all three tied, one follower's AZ down",
    );
}

fn third_catches_up(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed);
    for i in 0..8 {
        s.put(&key(i));
    }
    let k = any_key(&mut rng);
    let f = s.followers(&k);
    s.lag(&k, f[rng.below(2) as usize], 1_000 + rng.below(1_000));
    for _ in 0..4 {
        s.put(&k);
        s.advance(rng.below(100));
    }
    for _ in 0..6 {
        s.get(&k, false);
    }
    s.advance(2_500);
    for _ in 0..6 {
        s.get(&k, false);
    }
    s.settle();
    for i in 0..8 {
        s.get(&key(i), false);
    }
    s.verdict(
        "writes while one follower lags a second or two, eventual reads before and after it \
         catches up, then every key read after settling",
    );
}

fn strong_reads_see_everything(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed);
    let k = any_key(&mut rng);
    s.put(&k);
    s.settle();
    let f = s.followers(&k);
    s.lag(&k, f[rng.below(2) as usize], 60_000);
    for _ in 0..6 {
        s.put(&k);
        s.get(&k, true);
        s.get(&k, false);
        s.get(&k, false);
        s.get(&any_key(&mut rng), true);
        s.advance(rng.below(200));
    }
    // A failover: the new leader serves the strong reads.
    if let Some(leader) = s.leader(&k) {
        s.fail_az(leader);
    }
    s.advance(2_500);
    for _ in 0..4 {
        s.get(&k, true);
        s.put(&k);
        s.get(&k, true);
        s.get(&k, false);
    }
    s.heal_settle_and_read_back();
    s.verdict(
        "writes each followed by strong and eventual reads while one follower lags a minute, \
         then the leader's AZ fails and the same after the election",
    );
}

fn eventual_reads_anywhere(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed);
    for i in 0..4 {
        s.put(&key(i));
    }
    s.settle();
    for _ in 0..12 {
        s.get(&key(rng.below(4)), false);
    }
    // An AZ that leads no partition: no election, only one replica fewer to read from.
    let leaders: Vec<Az> = s
        .engine
        .partitions(given::TABLE)
        .unwrap_or_else(|e| fail(format!("partitions failed: {e}")))
        .iter()
        .filter_map(|p| p.leader)
        .collect();
    let quiet: Vec<Az> = Az::ALL
        .into_iter()
        .filter(|az| !leaders.contains(az))
        .collect();
    s.fail_az(quiet[rng.below(quiet.len() as u64) as usize]);
    s.advance(2_500);
    for _ in 0..12 {
        s.get(&key(rng.below(4)), false);
    }
    s.heal_settle_and_read_back();
    for _ in 0..6 {
        s.get(&key(rng.below(4)), false);
    }
    s.verdict(
        "eventual reads with every AZ up, then with one AZ down (one that leads no partition), \
         then healed",
    );
}

fn writes_wait_for_the_election(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed);
    let k = any_key(&mut rng);
    s.put(&k);
    if let Some(leader) = s.leader(&k) {
        s.fail_az(leader);
    }
    s.put(&k);
    s.get(&k, true);
    s.get(&k, false);
    s.advance(1_000);
    s.put(&k);
    s.advance(1_000 + rng.below(1_000));
    s.put(&k);
    s.get(&k, true);
    s.heal_settle_and_read_back();
    // A stopped leader: the same, on one partition.
    let k2 = any_key(&mut rng);
    s.stop_leader(&k2);
    s.put(&k2);
    s.get(&k2, true);
    s.advance(2_000 + rng.below(500));
    s.put(&k2);
    s.get(&k2, true);
    s.heal_settle_and_read_back();
    s.verdict(
        "a write, its leader's AZ failed, writes and reads during the 2 s election and after; \
         then a stopped leader",
    );
}

fn new_leader_is_up_to_date(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed);
    for round in 0..3 {
        let k = key(rng.below(8));
        s.put(&k);
        s.settle();
        let f = s.followers(&k);
        let Some(leader) = s.leader(&k) else {
            continue;
        };
        // The first follower in AZ order lags: the writes are acknowledged by the other one,
        // and reach it only later (in flight at the election).
        s.lag(&k, f[0], 60_000);
        for _ in 0..2 + round {
            s.put(&k);
            s.advance(rng.below(40));
        }
        s.fail_az(leader);
        s.advance(2_000 + rng.below(1_000));
        s.get(&k, true);
        s.put(&k);
        s.get(&k, true);
        s.heal_settle_and_read_back();
    }
    s.verdict(
        "three failovers, each with the first follower in AZ order a minute behind (its writes \
         in flight) when the leader's AZ fails",
    );
}

fn no_quorum(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed);
    // The leader alone: both followers' AZs fail.
    let k = any_key(&mut rng);
    s.put(&k);
    s.settle();
    let f = s.followers(&k);
    s.fail_az(f[0]);
    s.fail_az(f[1]);
    s.put(&k);
    s.get(&k, true);
    s.get(&k, false);
    s.advance(2_500);
    s.put(&k);
    s.heal_az(f[rng.below(2) as usize]);
    s.put(&k);
    s.heal_settle_and_read_back();
    // The leader and its quorum peer lost: the lagging replica is alone.
    let k = any_key(&mut rng);
    s.put(&k);
    s.settle();
    let f = s.followers(&k);
    let Some(leader) = s.leader(&k) else {
        fail("a settled partition has a leader");
    };
    let stale = rng.below(2) as usize;
    s.lag(&k, f[stale], 60_000);
    s.put(&k);
    s.put(&k);
    s.fail_az(leader);
    s.fail_az(f[1 - stale]);
    s.advance(3_000);
    s.put(&k);
    s.get(&k, true);
    s.get(&k, false);
    s.get(&k, false);
    s.heal_az(f[1 - stale]);
    s.get(&k, true);
    s.put(&k);
    s.get(&k, true);
    s.heal_settle_and_read_back();
    s.verdict(
        "a leader whose two followers' AZs fail; then a leader and its quorum peer lost, the \
         follower that lagged a minute left alone, then the peer's AZ healed",
    );
}

fn fault_schedules(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new(seed);
    let mut down: Vec<Az> = Vec::new();
    for _ in 0..160 {
        match rng.below(20) {
            0 | 1 => {
                let az = Az::ALL[rng.below(3) as usize];
                if down.contains(&az) {
                    down.retain(|&d| d != az);
                    s.heal_az(az);
                } else if down.len() < 2 {
                    down.push(az);
                    s.fail_az(az);
                }
            }
            2 => {
                if let Some(az) = down.pop() {
                    s.heal_az(az);
                }
            }
            3 => {
                let k = any_key(&mut rng);
                if let Some(az) = s.leader(&k) {
                    if !down.contains(&az) {
                        down.push(az);
                    }
                    s.stop_leader(&k);
                }
            }
            4 => {
                let k = any_key(&mut rng);
                s.lag(&k, Az::ALL[rng.below(3) as usize], rng.below(4_000));
            }
            5 | 6 => s.advance(rng.below(3_000)),
            7..=11 => s.put(&any_key(&mut rng)),
            12..=14 => s.get(&any_key(&mut rng), true),
            _ => s.get(&any_key(&mut rng), false),
        }
    }
    s.heal_settle_and_read_back();
    s.verdict(
        "160 seeded steps: writes, strong and eventual reads, AZ failures (up to two at once) \
         and heals, stopped leaders, lagging replicas, the clock",
    );
}

// ---------------------------------------------------------------------------------------
// The promise, on the learner's world alone
// ---------------------------------------------------------------------------------------

/// Schedules per seed: 350 × the three default seeds = 1,050.
const SCHEDULES_PER_SEED: usize = 350;

fn thousand_schedules(seed: u64) {
    let mut rng = Rng::new(seed);
    for n in 0..SCHEDULES_PER_SEED {
        schedule(seed, n, rng.next_u64());
    }
}

/// One seeded single-AZ fault schedule in the learner's world: writes to four keys, one AZ (or
/// one stopped leader) down at a time, lagging replicas, the clock; then every AZ healed, the
/// world settled, and each key read back strongly.
fn schedule(seed: u64, n: usize, schedule_seed: u64) {
    let mut rng = Rng::new(schedule_seed);
    let rec = Recorder::new(Box::new(engine::seams::Learners::new(learner::replication)));
    let world = scene::world(schedule_seed, rec.clone() as Arc<dyn Replication>);
    let c = world.client();
    let mut steps: Vec<(u64, Step, String)> = Vec::new();
    let mut acked: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    let mut down: Option<Az> = None;
    let mut writes = 0;
    let now = |w: &engine::World| u64::try_from(w.now().as_millis()).unwrap_or_default();
    for _ in 0..16 {
        let k = key(rng.below(4));
        let step = match rng.below(20) {
            0..=2 => match down.take() {
                Some(az) => Step::HealAz(az),
                None => {
                    let az = Az::ALL[rng.below(3) as usize];
                    down = Some(az);
                    Step::FailAz(az)
                }
            },
            3..=6 => Step::Lag {
                key: k,
                az: Az::ALL[rng.below(3) as usize],
                ms: rng.below(8_000),
            },
            7..=9 => Step::Advance(rng.below(2_500)),
            10 if down.is_none() => {
                let leader = scene::partition_info(&world, &k).leader;
                down = leader;
                Step::StopLeader { key: k }
            }
            _ => {
                writes += 1;
                Step::Put {
                    key: k,
                    write: writes,
                }
            }
        };
        let at = now(&world);
        let outcome = match &step {
            Step::Put { key, write } => match scene::put(&c, key, *write) {
                Ok(()) => {
                    acked.insert(key.clone(), *write);
                    "200".to_string()
                }
                Err(_) => "500".to_string(),
            },
            other => {
                scene::apply_fault(&world, other);
                String::new()
            }
        };
        steps.push((at, step, outcome));
    }
    world.heal_all();
    world.settle();
    for (k, w) in &acked {
        let seen = scene::get(&c, k, true);
        if seen.as_ref().ok() != Some(&Some(*w)) {
            fail(lost(
                seed,
                n,
                schedule_seed,
                k,
                *w,
                &seen,
                &steps,
                &rec.calls(),
            ));
        }
    }
}

/// The message for an acknowledged write lost in schedule `n`: the schedule, and the decisions
/// of the learner's piece in it that can lose a write.
#[allow(clippy::too_many_arguments)]
fn lost(
    seed: u64,
    n: usize,
    schedule_seed: u64,
    key: &str,
    write: u64,
    seen: &Result<Option<u64>, String>,
    steps: &[(u64, Step, String)],
    calls: &[Call],
) -> String {
    let seen = match seen {
        Ok(v) => scene::show_write(*v),
        Err(e) => format!("an error ({e})"),
    };
    let mut lines = Vec::new();
    for (at, step, outcome) in steps {
        let what = match step {
            Step::Put { key, write } => format!("PutItem {key} v = {write}"),
            Step::FailAz(az) => format!("fail_az({})", az.name()),
            Step::HealAz(az) => format!("heal_az({})", az.name()),
            Step::StopLeader { key } => format!("stop_leader ({key}'s partition)"),
            Step::Lag { key, az, ms } => {
                format!("lag_replica({key}'s partition, {}, {ms} ms)", az.name())
            }
            Step::Advance(ms) => format!("advance {}", explain::secs(*ms)),
            Step::Get { .. } | Step::Settle => String::new(),
        };
        let arrow = if outcome.is_empty() {
            String::new()
        } else {
            format!(" → {outcome}")
        };
        lines.push(format!("  {:>9}  {what}{arrow}", explain::secs(*at)));
    }
    let mut risky = Vec::new();
    for c in calls {
        let g = &c.group;
        match c.effect() {
            Answer::Replicate(plan) if !plan.contains(&given::Delivery::Ack) => {
                risky.push(format!(
                    "at {}, partition {}: a write acknowledged while only the leader {} held it \
                 (your plan: no live follower Ack)",
                    explain::secs(g.now_ms),
                    g.partition,
                    g.leader.map_or("?", Az::name)
                ))
            }
            Answer::Elect(Some(az)) => {
                let best = g.replicas.iter().filter(|r| r.up).map(|r| r.applied).max();
                if Some(g.replica(az).applied) < best {
                    risky.push(format!(
                        "at {}, partition {}: {} elected having applied #{}, while a live \
                         replica had applied #{}",
                        explain::secs(g.now_ms),
                        g.partition,
                        az.name(),
                        g.replica(az).applied,
                        best.unwrap_or_default()
                    ));
                }
            }
            _ => {}
        }
    }
    let evidence = if risky.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nYour piece's decisions in this schedule that can lose a write:\n{}",
            risky
                .iter()
                .map(|r| wrap(&format!("- {r}")))
                .collect::<Vec<_>>()
                .join("\n")
        )
    };
    format!(
        "{}\n\nThe schedule (times are the simulated clock):\n{}{evidence}\n\n{}",
        wrap(&format!(
            "Schedule {} of {SCHEDULES_PER_SEED}: {key}'s last acknowledged write is #{write}, \
             but after every AZ healed and the world settled, a strongly consistent read of \
             {key} returns {seen}. An acknowledged write was lost to a single-AZ failure.",
            n + 1
        )),
        lines.join("\n"),
        wrap(&format!(
            "Your world alone, seed {schedule_seed} (schedule {} of the test's seed {seed}).",
            n + 1
        ))
    )
}
