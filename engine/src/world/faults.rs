//! Faults, as named operations.
//!
//! DynamoDB promises that an acknowledged write survives the loss of an availability zone.
//! To watch that promise hold — and to see what it costs — a test or a kata breaks things on
//! purpose:
//!
//! | fault | effect |
//! |---|---|
//! | [`World::fail_az`] | every replica in that AZ stops: leaders there are lost (an election follows after `election_timeout_ms`), followers there stop receiving writes |
//! | [`World::heal_az`] | those replicas come back and catch up from the log |
//! | [`World::stop_leader`] | one partition's leader stops (its AZ stays up) |
//! | [`World::stop_replica`] | one replica of one partition stops, whichever role it has (a storage node lost): a follower's loss leaves the leader in place |
//! | [`World::lag_replica`] | one replica receives replication later than usual, so eventually consistent reads served by it are stale for longer |
//! | [`World::heal_all`] | every replica up, no extra lag; every Region up, every link at its usual speed |
//! | [`World::fail_region`], [`World::heal_region`], [`World::lag_replication`] | a whole Region down, or replication between two Regions slower ([`crate::global`]) |
//!
//! The AZ faults act in the handle's Region (`world.in_region("eu-west-1").fail_az(..)`).
//!
//! While a partition has no leader, writes and strongly consistent reads fail with a
//! retryable `InternalServerError`; eventually consistent reads are still served by the
//! remaining replicas. With two of three replicas down no quorum can form: writes fail, and a
//! partition whose leader is among them elects nobody (an election needs a majority), so its
//! strong reads fail too until an AZ heals. What each decision is — and who makes it — is in
//! [`crate::table::replication`].

use std::time::Duration;

use super::World;
use crate::error::{Exception, Result};
use crate::table::partition::Partition;
use crate::table::Store;

/// One of the three availability zones (defined with the replicas that live in them).
pub use crate::table::replication::Az;

fn stop_replica(p: &mut Partition, i: usize, now_ms: u64, timeout_ms: u64) {
    p.replicas[i].up = false;
    if p.leader == Some(i) {
        p.leader = None;
        p.election_due_ms = Some(now_ms + timeout_ms);
    }
}

fn stores_mut(tables: &mut crate::table::Tables) -> impl Iterator<Item = &mut Store> {
    tables.values_mut().flat_map(|t| {
        std::iter::once(&mut t.store).chain(t.indexes.iter_mut().map(|i| &mut i.store))
    })
}

impl World {
    /// Takes an availability zone down: every replica there stops.
    pub fn fail_az(&self, az: Az) {
        let mut state = self.lock();
        let (now, timeout) = (state.now_ms, state.config.election_timeout_ms);
        for store in stores_mut(&mut state.tables) {
            for p in &mut store.partitions {
                stop_replica(p, az.index(), now, timeout);
            }
        }
    }

    /// Brings an availability zone back: its replicas catch up from the log. Partitions left
    /// without a leader (all replicas were down) hold an election at once.
    pub fn heal_az(&self, az: Az) {
        let mut state = self.lock();
        let now = state.now_ms;
        for store in stores_mut(&mut state.tables) {
            for p in &mut store.partitions {
                p.replicas[az.index()].up = true;
                if p.leader.is_none() && p.election_due_ms.is_none() {
                    p.election_due_ms = Some(now);
                }
            }
        }
        state.run_due();
    }

    /// Brings every replica back and removes every injected lag — and every Region back,
    /// every replication link at its usual speed.
    pub fn heal_all(&self) {
        self.heal_regions();
        {
            let mut state = self.lock();
            for store in stores_mut(&mut state.tables) {
                for p in &mut store.partitions {
                    for r in &mut p.replicas {
                        r.extra_lag_ms = 0;
                    }
                }
            }
        }
        for az in Az::ALL {
            self.heal_az(az);
        }
    }

    /// Stops the leader of one partition of a table; a new leader is elected after the
    /// election timeout. The stopped replica stays down until its AZ is healed.
    pub fn stop_leader(&self, table: &str, partition: u32) -> Result<()> {
        let mut state = self.lock();
        let (now, timeout) = (state.now_ms, state.config.election_timeout_ms);
        let p = partition_mut(&mut state.tables, table, partition)?;
        if let Some(leader) = p.leader {
            stop_replica(p, leader, now, timeout);
        }
        Ok(())
    }

    /// Stops one replica of one partition — the one in `az` — as the loss of a single storage
    /// node would: its AZ stays up for every other partition. A stopped leader is lost (an
    /// election follows, as with [`World::stop_leader`]); a stopped follower leaves the leader
    /// in place. With both followers stopped the leader still serves strongly consistent reads
    /// but no write reaches a quorum of two. The replica stays down until its AZ is healed
    /// ([`World::heal_az`], [`World::heal_all`]).
    pub fn stop_replica(&self, table: &str, partition: u32, az: Az) -> Result<()> {
        let mut state = self.lock();
        let (now, timeout) = (state.now_ms, state.config.election_timeout_ms);
        let p = partition_mut(&mut state.tables, table, partition)?;
        stop_replica(p, az.index(), now, timeout);
        Ok(())
    }

    /// Makes one replica of a partition receive replication `lag` later than usual (until
    /// [`World::heal_all`]). Writes it already has pending are not re-timed.
    pub fn lag_replica(&self, table: &str, partition: u32, az: Az, lag: Duration) -> Result<()> {
        let mut state = self.lock();
        let p = partition_mut(&mut state.tables, table, partition)?;
        p.replicas[az.index()].extra_lag_ms = u64::try_from(lag.as_millis()).unwrap_or(u64::MAX);
        Ok(())
    }

    /// The AZ of a partition's leader (None during an election).
    pub fn leader_az(&self, table: &str, partition: u32) -> Result<Option<Az>> {
        let mut state = self.lock();
        let p = partition_mut(&mut state.tables, table, partition)?;
        Ok(p.leader.map(|i| Az::ALL[i]))
    }
}

fn partition_mut<'a>(
    tables: &'a mut crate::table::Tables,
    table: &str,
    partition: u32,
) -> Result<&'a mut Partition> {
    let t = tables.get_mut(table).ok_or_else(|| {
        Exception::resource_not_found(format!(
            "Requested resource not found: Table: {table} not found"
        ))
    })?;
    t.store
        .partitions
        .iter_mut()
        .find(|p| p.id == partition)
        .ok_or_else(|| Exception::validation(format!("Table {table} has no partition {partition}")))
}
