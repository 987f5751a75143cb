//! Failure messages: the first decision that differed, in DynamoDB terms, and why — from the
//! run's evidence (the group both pieces saw, both answers, the draws), never a guess.

use given::{Az, Delivery, Group, Unavailable};
use katas_testkit::wrap;

use crate::scene::{names, show_write, Answer, Broken, Call, Logged, Outcome, Scene, Step};

/// Seconds with milliseconds: "2.013 s".
pub fn secs(ms: u64) -> String {
    format!("{}.{:03} s", ms / 1000, ms % 1000)
}

fn reason(u: Unavailable) -> &'static str {
    match u {
        Unavailable::Electing => "Electing",
        Unavailable::NoQuorum => "NoQuorum",
        Unavailable::NoLiveReplica => "NoLiveReplica",
    }
}

/// One replica's line: "az-b up, applied 4, 1 in flight, lag 5,000 ms".
fn replica_text(g: &Group, az: Az) -> String {
    let r = g.replica(az);
    let mut s = format!(
        "{}{} {}, applied #{}",
        az.name(),
        if Some(az) == g.leader {
            " (leader)"
        } else {
            ""
        },
        if r.up { "up" } else { "DOWN" },
        r.applied
    );
    if r.in_flight > 0 {
        s.push_str(&format!(", {} in flight", r.in_flight));
    }
    if r.lag_ms > 0 {
        s.push_str(&format!(
            ", lag {} ms",
            katas_testkit::thousands(i128::from(r.lag_ms))
        ));
    }
    s
}

fn group_text(g: &Group) -> String {
    let leader = match g.leader {
        Some(az) => format!("leader {}", az.name()),
        None => "no leader".to_string(),
    };
    let mut lines = vec![format!(
        "  partition {}, {leader}, last entry #{}:",
        g.partition, g.last_seq
    )];
    for az in Az::ALL {
        lines.push(format!("    {}", replica_text(g, az)));
    }
    lines.join("\n")
}

fn plan_text(g: &Group, plan: &[Delivery; 3]) -> String {
    Az::ALL
        .iter()
        .filter(|&&az| Some(az) != g.leader)
        .map(|&az| {
            let d = match plan[az.index()] {
                Delivery::Ack => "Ack",
                Delivery::Later => "Later",
                Delivery::Skip => "Skip",
            };
            format!("{} {d}", az.name())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn answer_text(call: &Call) -> String {
    match call.answer {
        Answer::Accept(Ok(())) => "accepts the write".into(),
        Answer::Accept(Err(u)) => format!("refuses it ({})", reason(u)),
        Answer::Replicate(plan) => plan_text(&call.group, &plan),
        Answer::Serve { answer: Ok(az), .. } => format!("served by {}", az.name()),
        Answer::Serve { answer: Err(u), .. } => format!("refused ({})", reason(u)),
        Answer::Elect(Some(az)) => format!("elects {}", az.name()),
        Answer::Elect(None) => "elects nobody".into(),
    }
}

/// What a decision was about, from the step that caused it.
fn subject(call: &Call, logged: Option<&Logged>) -> String {
    let step = logged.map(|l| &l.step);
    match (&call.answer, step) {
        (Answer::Accept(_), Some(Step::Put { key, write })) => {
            format!(
                "may partition {} take write #{write} (PutItem {key})?",
                call.group.partition
            )
        }
        (Answer::Replicate(_), Some(Step::Put { key, write })) => {
            format!("where does write #{write} (PutItem {key}) go?")
        }
        (Answer::Serve { consistent, .. }, Some(Step::Get { key, .. })) => format!(
            "who serves {} GetItem of {key}?",
            if *consistent {
                "a strongly consistent"
            } else {
                "an eventually consistent"
            }
        ),
        (Answer::Elect(_), _) => format!(
            "who leads partition {} after its election?",
            call.group.partition
        ),
        _ => format!("a decision for partition {}", call.group.partition),
    }
}

/// The steps up to `upto` (the last few), with what each world answered.
fn story(scene: &Scene, upto: usize) -> String {
    let from = upto.saturating_sub(7);
    let mut lines = Vec::new();
    if from > 0 {
        lines.push(format!("  … {from} earlier steps"));
    }
    for l in &scene.log[from..=upto.min(scene.log.len().saturating_sub(1))] {
        let what = match &l.step {
            Step::Put { key, write } => format!("PutItem {key} v = {write} (write #{write})"),
            Step::Get { key, strong: true } => format!("GetItem {key}, strongly consistent"),
            Step::Get { key, strong: false } => format!("GetItem {key}, eventually consistent"),
            Step::FailAz(az) => format!("fail_az({})", az.name()),
            Step::HealAz(az) => format!("heal_az({})", az.name()),
            Step::StopLeader { key } => format!(
                "stop_leader (partition {})",
                l.partition.map_or_else(|| key.clone(), |p| p.to_string())
            ),
            Step::Lag { az, ms, .. } => format!(
                "lag_replica(partition {}, {}, {} ms)",
                l.partition.unwrap_or_default(),
                az.name(),
                katas_testkit::thousands(i128::from(*ms))
            ),
            Step::Advance(ms) => format!("advance {}", secs(*ms)),
            Step::Settle => "settle".to_string(),
        };
        let out = |o: &Outcome| match o {
            Outcome::Ok(None) if matches!(l.step, Step::Put { .. }) => "200".to_string(),
            Outcome::Ok(v) => format!("200, {}", show_write(*v)),
            Outcome::Err(e) => short_error(e),
            Outcome::Done => String::new(),
        };
        let (o, y) = (out(&l.outcome_ours), out(&l.outcome_yours));
        let result = if o == y {
            if o.is_empty() {
                String::new()
            } else {
                format!(" → {o}")
            }
        } else {
            format!(" → DynamoDB: {o}; yours: {y}")
        };
        lines.push(format!("  {:>9}  {what}{result}", secs(l.at_ms)));
    }
    lines.join("\n")
}

fn short_error(e: &str) -> String {
    if e.contains("Internal server error") {
        "500".to_string()
    } else {
        e.to_string()
    }
}

/// The write that is log entry `seq` of `partition` (DynamoDB's world).
fn entry(scene: &Scene, partition: u32, seq: u64) -> Option<u64> {
    scene.entries.get(&(partition, seq)).copied()
}

/// The message for the first differing decision, at index `i` of the calls.
pub fn difference(
    scene: &Scene,
    ours: &[Call],
    yours: &[Call],
    i: usize,
    workload: &str,
) -> String {
    let step = scene
        .log
        .iter()
        .position(|l| l.ours.contains(&i) || l.yours.contains(&i));
    let logged = step.map(|s| &scene.log[s]);
    let (Some(o), Some(y)) = (ours.get(i), yours.get(i)) else {
        let (who, more) = if ours.len() > yours.len() {
            ("DynamoDB's engine asks", "yours was not asked it")
        } else {
            ("your world asked", "DynamoDB's was not")
        };
        return format!(
            "{}\n\nThe workload: {workload}.",
            wrap(&format!(
                "After {i} matching decisions, {who} one more decision and {more}. This happens \
                 when your piece keeps state between calls or reads something besides its \
                 arguments."
            ))
        );
    };
    let at = secs(o.group.now_ms);
    let mut text = String::new();
    if o.group != y.group {
        text.push_str(&wrap(&format!(
            "At {at}, the {n}th decision: the two worlds no longer agree on the partition's \
             state, though every earlier answer matched. Your piece must be a pure function of \
             its arguments (no state of its own, no clock but group.now_ms).",
            n = i + 1
        )));
        text.push_str(&format!(
            "\n\n  DynamoDB's world:\n{}\n  yours:\n{}",
            group_text(&o.group),
            group_text(&y.group)
        ));
    } else {
        let headline = if o.effect() == y.effect() {
            format!(
                "At {at}, {} Both say: {} — but yours drew {} number{} where DynamoDB draws {}.",
                subject(o, logged),
                answer_text(o),
                y.picks,
                if y.picks == 1 { "" } else { "s" },
                o.picks
            )
        } else {
            format!(
                "At {at}, {} DynamoDB: {}. Yours: {}.",
                subject(o, logged),
                answer_text(o),
                answer_text(y)
            )
        };
        text.push_str(&wrap(&headline));
        text.push_str(&format!("\n\n{}", group_text(&o.group)));
        text.push_str(&format!("\n\n{}", wrap(&cause(scene, o, y))));
    }
    if let Some(s) = step {
        text.push_str(&format!("\n\nThe steps so far:\n{}", story(scene, s)));
    }
    if let Some(b) = &scene.broken {
        text.push_str(&format!(
            "\n\n{}",
            wrap(&format!(
                "What it led to in your world: at {}, {}.",
                secs(scene.log[b.step].at_ms),
                b.what
            ))
        ));
    }
    text.push_str(&format!(
        "\n\n{}",
        wrap(&format!(
            "The workload: {workload}. Both worlds from seed {}; times are the simulated clock.",
            scene.seed
        ))
    ));
    text
}

/// Why DynamoDB's answer `o` and the learner's `y` differ, on the same group.
fn cause(scene: &Scene, o: &Call, y: &Call) -> String {
    let g = &o.group;
    if o.effect() == y.effect() {
        if let Answer::Serve {
            consistent: true, ..
        } = o.answer
        {
            return "A strongly consistent read is not a choice among replicas, yet yours drew \
                    a number for it: from here on every draw in your world differs from \
                    DynamoDB's."
                .to_string();
        }
        return format!(
            "Each pick draws one number from the world's generator, so from here on every draw \
             in your world differs from DynamoDB's (which follower acknowledges, which replica \
             serves a read, who wins a tie). Yours {}.",
            if y.picks < o.picks {
                "made a choice without drawing for it (a choice among candidates is one pick, \
                 even among one)"
            } else {
                "drew where there was nothing to choose, or drew twice for one choice"
            }
        );
    }
    match (o.answer, y.answer) {
        (Answer::Accept(ours), Answer::Accept(yours)) => accept_cause(g, ours, yours),
        (Answer::Replicate(ours), Answer::Replicate(_)) => {
            let Answer::Replicate(effective) = y.effect() else {
                unreachable!()
            };
            let Answer::Replicate(raw) = y.answer else {
                unreachable!()
            };
            replicate_cause(g, &ours, &effective, &raw, y.picks)
        }
        (
            Answer::Serve {
                consistent,
                answer: ours,
            },
            Answer::Serve { answer: yours, .. },
        ) => serve_cause(g, consistent, ours, yours, y.picks),
        (Answer::Elect(ours), Answer::Elect(yours)) => elect_cause(scene, g, ours, yours, y.picks),
        _ => "Your piece was asked something else at this point: the worlds had diverged."
            .to_string(),
    }
}

/// What the draw tells of a pick that differs from DynamoDB's over the same candidates.
fn pick_evidence(picks: u32, candidates: &[Az]) -> String {
    if picks == 0 {
        "; yours drew no number for it".to_string()
    } else {
        format!(
            "; yours drew too, so its pick was not among {} in AZ order",
            names(candidates)
        )
    }
}

fn down_list(g: &Group) -> Vec<Az> {
    Az::ALL
        .into_iter()
        .filter(|&az| !g.replica(az).up)
        .collect()
}

fn accept_cause(
    g: &Group,
    ours: Result<(), Unavailable>,
    yours: Result<(), Unavailable>,
) -> String {
    let down = down_list(g);
    match (ours, yours) {
        (Err(Unavailable::Electing), Ok(())) => format!(
            "The partition has no leader: its leader's replica is down ({}) and the election is \
             still to come. Only a leader takes writes — during the election nobody orders them, \
             so the partition is unavailable for writes.",
            names(&down)
        ),
        (Err(Unavailable::NoQuorum), Ok(())) if g.leader.is_some() => format!(
            "Only the leader is up ({} down): no follower can hold the write, so it could never \
             be on two replicas. DynamoDB refuses a write it cannot acknowledge with a quorum.",
            names(&down)
        ),
        (Err(Unavailable::NoQuorum), Ok(())) => format!(
            "The partition has no leader and only {} of 3 replicas is up ({} down): no election \
             can end without a majority, so nobody can take the write.",
            g.live(),
            names(&down)
        ),
        (Ok(()), Err(u)) => format!(
            "The leader {} is up with {} of its followers: a quorum of two can hold the write. \
             Yours refused it as {}.",
            g.leader.map_or("?", Az::name),
            g.live().saturating_sub(1),
            reason(u)
        ),
        (Err(o), Err(y)) => format!(
            "Both refuse it, for different reasons: DynamoDB's {} means {}; yours said {}.",
            reason(o),
            match o {
                Unavailable::Electing =>
                    "no leader, and an election is coming (at least two replicas are up)",
                Unavailable::NoQuorum => "fewer than two replicas can take part",
                Unavailable::NoLiveReplica => "no replica is up",
            },
            reason(y)
        ),
        (Err(Unavailable::NoLiveReplica), Ok(())) => {
            "No replica of the partition is up: nobody can take the write.".to_string()
        }
        (Ok(()), Ok(())) => String::new(),
    }
}

fn acks(plan: &[Delivery; 3]) -> Vec<Az> {
    Az::ALL
        .into_iter()
        .filter(|az| plan[az.index()] == Delivery::Ack)
        .collect()
}

fn replicate_cause(
    g: &Group,
    ours: &[Delivery; 3],
    effective: &[Delivery; 3],
    raw: &[Delivery; 3],
    picks: u32,
) -> String {
    let leader = g.leader.unwrap_or(Az::A);
    let peer = acks(ours).first().copied();
    let your_acks = acks(effective);
    if your_acks.is_empty() {
        let lost: Vec<Az> = acks(raw)
            .into_iter()
            .filter(|&az| az != leader && !g.replica(az).up)
            .collect();
        let own = raw[leader.index()] == Delivery::Ack;
        let why = if !lost.is_empty() {
            format!(
                "Your Ack went to {}, whose AZ is down: it reaches nobody.",
                names(&lost)
            )
        } else if own {
            "You marked the leader's own slot Ack: the leader holds its write anyway (its \
             slot is not read); the quorum is the leader and one follower more."
                .to_string()
        } else {
            "No live follower is given Ack.".to_string()
        };
        return format!(
            "{why} So in your world the write was acknowledged (HTTP 200) while only the leader \
             {} held it: if {} fails before the followers catch up, an acknowledged write is \
             gone.",
            leader.name(),
            leader.name()
        );
    }
    if your_acks.len() > 1 {
        return format!(
            "Both followers acknowledge: the write waits for {}. A quorum is two of three — the \
             leader and the first follower to answer; the other one gets it later.",
            names(&your_acks)
        );
    }
    let yours = your_acks[0];
    if let Some(peer) = peer {
        if yours != peer {
            let (lp, ly) = (g.replica(peer).lag_ms, g.replica(yours).lag_ms);
            if ly > lp {
                return format!(
                    "{} lags by {} ms (lag_replica) and {} by {} ms: {} answers the leader \
                     first, so it is the one that acknowledges.",
                    yours.name(),
                    katas_testkit::thousands(i128::from(ly)),
                    peer.name(),
                    katas_testkit::thousands(i128::from(lp)),
                    peer.name()
                );
            }
            if ly == lp {
                let tied: Vec<Az> = Az::ALL
                    .into_iter()
                    .filter(|&az| az != leader && g.replica(az).up && g.replica(az).lag_ms == lp)
                    .collect();
                return format!(
                    "{} and {} answer at the same moment (the same lag): the draw decides, one \
                     pick among the followers with the least lag, listed in AZ order. Over the \
                     same draw DynamoDB's pick is {}{}.",
                    peer.name(),
                    yours.name(),
                    peer.name(),
                    pick_evidence(picks, &tied)
                );
            }
            return format!(
                "{} has the least lag; yours chose {}, which answers later.",
                peer.name(),
                yours.name()
            );
        }
    }
    let skipped: Vec<Az> = Az::ALL
        .into_iter()
        .filter(|&az| {
            ours[az.index()] == Delivery::Later && effective[az.index()] == Delivery::Skip
        })
        .collect();
    if !skipped.is_empty() {
        return format!(
            "{} is up, but your plan never sends it the write. The third replica is not part of \
             the quorum, but it must still get every write, asynchronously, or it falls behind \
             for good.",
            names(&skipped)
        );
    }
    "Your plan differs from DynamoDB's for this write.".to_string()
}

fn serve_cause(
    g: &Group,
    consistent: bool,
    ours: Result<Az, Unavailable>,
    yours: Result<Az, Unavailable>,
    picks: u32,
) -> String {
    let live: Vec<Az> = Az::ALL.into_iter().filter(|&az| g.replica(az).up).collect();
    match (consistent, ours, yours) {
        (_, _, Ok(az)) if !g.replica(az).up => format!(
            "{}'s AZ is down: a read sent there gets no answer, and the client a 500.",
            az.name()
        ),
        (true, Ok(leader), Ok(az)) => {
            let r = g.replica(az);
            let behind = g.last_seq.saturating_sub(r.applied);
            format!(
                "A strongly consistent read must reflect every acknowledged write: only the \
                 leader {} is sure to hold them all.{}",
                leader.name(),
                if behind > 0 {
                    format!(
                        " {} has applied #{} of #{}: it would return an older write.",
                        az.name(),
                        r.applied,
                        g.last_seq
                    )
                } else {
                    String::new()
                }
            )
        }
        (true, Err(u), Ok(az)) => format!(
            "The partition has no leader ({}): nobody can vouch for the latest acknowledged \
             write, so a strong read fails until the election ({}, not served by {}).",
            names(&down_list(g)).replace("none", "no AZ down"),
            reason(u),
            az.name()
        ),
        (false, Ok(o), Ok(y)) => format!(
            "An eventually consistent read may be served by any live replica, the leader \
             included: one drawn among {} (listed in AZ order). Over the same draw DynamoDB's \
             pick is {}, yours {}{}.",
            names(&live),
            o.name(),
            y.name(),
            pick_evidence(picks, &live)
        ),
        (_, Ok(o), Err(u)) => format!(
            "{} is up and can serve it; yours refused the read as {}.",
            o.name(),
            reason(u)
        ),
        (_, Err(o), Err(y)) => format!(
            "Both refuse it: DynamoDB as {}, yours as {}.",
            reason(o),
            reason(y)
        ),
        (false, Err(u), Ok(az)) => format!(
            "DynamoDB refuses it ({}); yours sent it to {}.",
            reason(u),
            az.name()
        ),
    }
}

fn elect_cause(
    scene: &Scene,
    g: &Group,
    ours: Option<Az>,
    yours: Option<Az>,
    picks: u32,
) -> String {
    let live: Vec<Az> = Az::ALL.into_iter().filter(|&az| g.replica(az).up).collect();
    match (ours, yours) {
        (_, Some(y)) if !g.replica(y).up => format!(
            "{}'s AZ is down: a replica there cannot lead, so your world's partition stays \
             without a leader.",
            y.name()
        ),
        (Some(o), Some(y)) => {
            let (ro, ry) = (g.replica(o), g.replica(y));
            if ry.applied < ro.applied {
                let missing: Vec<String> = (ry.applied + 1..=ro.applied)
                    .filter_map(|seq| entry(scene, g.partition, seq))
                    .map(|w| format!("#{w}"))
                    .collect();
                format!(
                    "{} has applied the log up to entry #{}, {} up to #{}{}. The new leader \
                     leads with what it has applied, so electing {} loses {} — acknowledged \
                     write{} the client was told had succeeded.{}",
                    o.name(),
                    ro.applied,
                    y.name(),
                    ry.applied,
                    if ry.in_flight > 0 {
                        format!(" ({} more in flight to it)", ry.in_flight)
                    } else {
                        String::new()
                    },
                    y.name(),
                    if missing.is_empty() {
                        format!("entries #{}–#{}", ry.applied + 1, ro.applied)
                    } else {
                        format!(
                            "write{} {}",
                            if missing.len() == 1 { "" } else { "s" },
                            missing.join(", ")
                        )
                    },
                    if missing.len() == 1 { "" } else { "s" },
                    if ry.in_flight > 0 {
                        " Entries in flight are not held: the new leader drops them."
                    } else {
                        ""
                    }
                )
            } else if ry.applied == ro.applied {
                let tied: Vec<Az> = live
                    .iter()
                    .copied()
                    .filter(|&az| g.replica(az).applied == ro.applied)
                    .collect();
                format!(
                    "{} have all applied #{}, the most of the live replicas: each holds every \
                     acknowledged write, and the draw decides, one pick among them in AZ order. \
                     Over the same draw DynamoDB's pick is {}{}.",
                    names(&tied),
                    ro.applied,
                    o.name(),
                    pick_evidence(picks, &tied)
                )
            } else {
                format!(
                    "{} has applied #{}, more than {}: DynamoDB elects the most advanced live \
                     replica.",
                    y.name(),
                    ry.applied,
                    o.name()
                )
            }
        }
        (None, Some(y)) => format!(
            "Only {} of 3 replicas is up ({}): an election needs a majority of two. {} alone may \
             be the replica that never received the latest writes (it has applied #{} of #{}); \
             leading with it could lose acknowledged writes and serve stale strong reads.",
            live.len(),
            names(&live),
            y.name(),
            g.replica(y).applied,
            g.last_seq
        ),
        (Some(o), None) => format!(
            "{} are up — a majority — and {} has applied the most (#{}): it can lead without \
             losing an acknowledged write. Yours left the partition without a leader.",
            names(&live),
            o.name(),
            g.replica(o).applied
        ),
        (None, None) => String::new(),
    }
}

/// The message for a promise the learner's world broke, when no decision differed from
/// DynamoDB's (the property tests, which run the learner's world alone).
pub fn broken(scene: &Scene, b: &Broken, workload: &str) -> String {
    format!(
        "{}\n\nThe steps so far:\n{}\n\n{}",
        wrap(&format!(
            "At {}, {}.",
            secs(scene.log[b.step].at_ms),
            b.what
        )),
        story(scene, b.step),
        wrap(&format!("The workload: {workload}; seed {}.", scene.seed))
    )
}
