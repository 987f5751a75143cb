//! Regions: one DynamoDB per Region, and the world's handle on each.
//!
//! A Region is an independent deployment of DynamoDB: its own endpoint, its own tables, its
//! own partitions, capacity, streams and TTL sweeper. An SDK client talks to one Region (the
//! one in its configuration) and nothing in the data plane crosses Regions — except the
//! replication of global tables ([`super::replication`]).
//!
//! The engine keeps that shape: the operations do not know Regions exist. Each one works on
//! `State::tables`, and `State::tables` *is* the tables of one Region — the Region of the
//! handle that took the lock. `World::lock` moves the handle's Region in before the
//! request runs and moves the default Region back when the guard is dropped:
//!
//! ```text
//!   world.client_in("eu-west-1").put_item()…send()
//!     World::lock()  ── state.enter("eu-west-1"):  tables ⇄ parked["eu-west-1"]
//!     ops::put_item   (sees only eu-west-1's tables, as the Regional service would)
//!     drop(guard)    ── state.enter(default)
//! ```
//!
//! Design decision: swapping whole Regions in and out (two `BTreeMap` moves, no copy) rather
//! than passing a Region through every operation. The alternative touches the twenty
//! operations and their helpers, each of which would then have to be careful never to look
//! at another Region's tables; with the swap, a request *cannot* see another Region, which is
//! exactly DynamoDB's rule. The cost is one invariant: outside a lock guard the default
//! Region's tables are the ones in place, and background work that visits every Region
//! (`State::for_each_region`) puts back the Region it found.
//!
//! Every Region exists, as in AWS: a Region is materialised (empty) the first time a client,
//! a fault or a replica names it. [`World::regions`] lists those materialised so far.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::client::Client;
use crate::error::{Exception, Result};
use crate::table::Tables;
use crate::world::{State, World};

/// An AWS Region's name, as `aws_sdk_dynamodb::config::Region` (`Region::new("eu-west-1")`,
/// `Region::from_static(..)`); a `&str` or `String` converts into one.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Region(Arc<str>);

impl Region {
    /// A Region by name.
    pub fn new(name: impl Into<String>) -> Region {
        Region(Arc::from(name.into()))
    }
    /// A Region from a static name.
    pub fn from_static(name: &'static str) -> Region {
        Region(Arc::from(name))
    }
    /// The world's default Region: the one `world.client()` talks to and every ARN of a
    /// single-Region world names.
    pub fn default_region() -> Region {
        Region::from_static(crate::table::REGION)
    }
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Region {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Region({:?})", &*self.0)
    }
}

impl From<&str> for Region {
    fn from(name: &str) -> Region {
        Region::new(name)
    }
}

impl From<String> for Region {
    fn from(name: String) -> Region {
        Region::new(name)
    }
}

impl From<&Region> for Region {
    fn from(r: &Region) -> Region {
        r.clone()
    }
}

/// What one Region holds while another is in place.
#[derive(Debug, Default)]
pub(crate) struct RegionData {
    pub tables: Tables,
    pub transaction_tokens:
        BTreeMap<String, (crate::ops::transact_write_items::TokenedRequest, u64)>,
}

/// The world's Regions: which one is in place, the others parked, their faults, and the
/// replication between them.
#[derive(Debug)]
pub(crate) struct Regions {
    /// The Region whose tables are in `State::tables`.
    pub here: Region,
    /// Every other materialised Region.
    pub parked: BTreeMap<Region, RegionData>,
    /// Regions taken down by [`World::fail_region`].
    pub down: BTreeSet<Region>,
    /// Extra replication delay per (from, to) link, ms ([`World::lag_replication`]).
    pub link_lag_ms: BTreeMap<(Region, Region), u64>,
    /// Replication state of every global table, by table name.
    pub global: BTreeMap<String, super::replication::GlobalTable>,
    /// Writes on their way between Regions, in delivery order.
    pub in_flight: BTreeMap<(u64, u64), super::replication::Shipment>,
    /// Numbers shipments (ties of due time are delivered in the order they were written).
    pub next_shipment: u64,
    /// Set while a replicated write is applied, so that it is not replicated again.
    pub replaying: bool,
}

impl Regions {
    pub fn new() -> Regions {
        Regions {
            here: Region::default_region(),
            parked: BTreeMap::new(),
            down: BTreeSet::new(),
            link_lag_ms: BTreeMap::new(),
            global: BTreeMap::new(),
            in_flight: BTreeMap::new(),
            next_shipment: 0,
            replaying: false,
        }
    }

    /// Every materialised Region, in name order.
    pub fn names(&self) -> Vec<Region> {
        let mut all: BTreeSet<Region> = self.parked.keys().cloned().collect();
        all.insert(self.here.clone());
        all.into_iter().collect()
    }

    pub fn is_up(&self, region: &Region) -> bool {
        !self.down.contains(region)
    }
}

impl State {
    /// Puts `region`'s tables in place (materialising the Region if it is new) and parks the
    /// ones that were.
    pub(crate) fn enter(&mut self, region: &Region) {
        if self.regions.here == *region {
            return;
        }
        let incoming = self.regions.parked.remove(region).unwrap_or_default();
        let outgoing = RegionData {
            tables: std::mem::replace(&mut self.tables, incoming.tables),
            transaction_tokens: std::mem::replace(
                &mut self.transaction_tokens,
                incoming.transaction_tokens,
            ),
        };
        let previous = std::mem::replace(&mut self.regions.here, region.clone());
        self.regions.parked.insert(previous, outgoing);
    }

    /// Runs `f` once in every materialised Region (in name order), then puts back the Region
    /// that was in place.
    pub(crate) fn for_each_region(&mut self, mut f: impl FnMut(&mut State)) {
        let was = self.regions.here.clone();
        for region in self.regions.names() {
            self.enter(&region);
            f(self);
        }
        self.enter(&was);
    }

    /// The tables of `region`, wherever they are (in place or parked).
    pub(crate) fn tables_of(&self, region: &Region) -> Option<&Tables> {
        if self.regions.here == *region {
            Some(&self.tables)
        } else {
            self.regions.parked.get(region).map(|r| &r.tables)
        }
    }

    /// Every materialised Region's tables, in Region name order.
    pub(crate) fn all_tables(&self) -> Vec<(Region, &Tables)> {
        self.regions
            .names()
            .into_iter()
            .filter_map(|r| self.tables_of(&r).map(|t| (r, t)))
            .collect()
    }

    /// The error a request to a Region that is down gets.
    pub(crate) fn check_region_up(&self) -> Result<()> {
        if self.regions.is_up(&self.regions.here) {
            return Ok(());
        }
        Err(Exception::ServiceUnavailable {
            message: REGION_DOWN_MESSAGE.to_string(),
        })
    }
}

impl World {
    /// A client for one Region, as an SDK client configured with
    /// `.region(Region::new("eu-west-1"))`. Not the SDK (there a client comes from
    /// `aws_config`). `world.client()` is the client of the default Region.
    ///
    /// ```
    /// let world = engine::World::new(1);
    /// let eu = world.client_in("eu-west-1");
    /// assert_eq!(eu.world().region().as_str(), "eu-west-1");
    /// ```
    pub fn client_in(&self, region: impl Into<Region>) -> Client {
        self.in_region(region).client()
    }

    /// This world seen from one Region: its clients, inspection (`partitions`, …) and AZ
    /// faults act on that Region's tables. The clock, the seed and the Region faults are the
    /// world's.
    pub fn in_region(&self, region: impl Into<Region>) -> World {
        let region = region.into();
        self.lock().enter_and_back(&region);
        self.with_region(region)
    }

    /// The Region this handle acts in.
    pub fn region(&self) -> &Region {
        &self.region
    }

    /// Every Region materialised so far, in name order.
    pub fn regions(&self) -> Vec<Region> {
        self.lock().regions.names()
    }

    /// Takes a Region down, as an outage of its DynamoDB endpoint: every request its
    /// clients send fails with a retryable `ServiceUnavailable` (HTTP 503), and replication
    /// neither leaves it (its writes not yet shipped wait) nor reaches it (writes bound for it
    /// queue). Background work inside the Region goes on.
    pub fn fail_region(&self, region: impl Into<Region>) {
        let region = region.into();
        let mut state = self.lock();
        state.enter_and_back(&region);
        state.regions.down.insert(region);
    }

    /// Brings a Region back: the replication queued to and from it is delivered at once (what
    /// was due while it was down), the rest on its schedule.
    pub fn heal_region(&self, region: impl Into<Region>) {
        let mut state = self.lock();
        state.regions.down.remove(&region.into());
        state.run_due();
    }

    /// Makes replication from one Region to another take `lag` longer than usual, for writes
    /// made from now on (until [`World::heal_all`] or a lag of zero). Writes already on
    /// their way keep their schedule.
    pub fn lag_replication(&self, from: impl Into<Region>, to: impl Into<Region>, lag: Duration) {
        let key = (from.into(), to.into());
        let ms = u64::try_from(lag.as_millis()).unwrap_or(u64::MAX);
        let mut state = self.lock();
        if ms == 0 {
            state.regions.link_lag_ms.remove(&key);
        } else {
            state.regions.link_lag_ms.insert(key, ms);
        }
    }

    /// Brings every Region back and removes every injected replication lag (part of
    /// [`World::heal_all`]).
    pub(crate) fn heal_regions(&self) {
        let mut state = self.lock();
        state.regions.down.clear();
        state.regions.link_lag_ms.clear();
        state.run_due();
    }
}

impl State {
    /// Materialises `region` without leaving the Region in place.
    fn enter_and_back(&mut self, region: &Region) {
        let was = self.regions.here.clone();
        self.enter(region);
        self.enter(&was);
    }
}

/// The message of a request to a Region that is down: DynamoDB's `ServiceUnavailable`
/// (HTTP 503, "DynamoDB is currently unavailable. (This should be a temporary state.)",
/// Developer Guide, Programming.Errors).
pub const REGION_DOWN_MESSAGE: &str =
    "DynamoDB is currently unavailable. (This should be a temporary state.)";
