//! Known-wrong: writes no replication at all, and hands every decision to the engine's own
//! `QuorumReplication`. It agrees with DynamoDB on every fault schedule, so only the guard
//! catches it: the engine's piece refuses to answer while the learner's runs.

use engine::seams::QuorumReplication;
use given::{Az, Delivery, Draw, Group, Replication, Unavailable};

/// "My" replication.
pub fn replication() -> Box<dyn Replication> {
    Box::new(Quorum)
}

/// The engine's piece, under another name.
#[derive(Debug)]
pub struct Quorum;

impl Replication for Quorum {
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        QuorumReplication.accept_write(group)
    }

    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3] {
        QuorumReplication.replicate(group, draw)
    }

    fn serve_read(
        &self,
        group: &Group,
        consistent: bool,
        draw: &mut Draw<'_>,
    ) -> Result<Az, Unavailable> {
        QuorumReplication.serve_read(group, consistent, draw)
    }

    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        QuorumReplication.elect(group, draw)
    }
}
