//! # The given part of the kata: Global tables: counters and profiles across Regions
//!
//! What the tests and your code share: the table's name, the Regions it is replicated to,
//! one client per Region, and the types your functions take and return. It is not yours to
//! change — the checker and grading always build your `src/lib.rs` against this copy
//! (`checker/katas/global-tables/given/`). Your crate reaches it as `given`.

use engine::types::{
    AttributeDefinition, BillingMode, CreateReplicationGroupMemberAction, KeySchemaElement,
    KeyType, ReplicationGroupUpdate, ScalarAttributeType,
};
use engine::{Client, Error, World};

/// The global table: partition key `PK` (string), sort key `SK` (string), on-demand, with a
/// replica in each of [`REGIONS`].
pub const TABLE: &str = "site";

/// The Regions holding a replica of [`TABLE`]; the table was created in the first.
pub const REGIONS: [&str; 3] = ["us-east-1", "eu-west-1", "ap-southeast-2"];

/// The application's DynamoDB clients: one per Region, each configured for its Region as an
/// SDK client is (`aws_config` with `.region(Region::new("eu-west-1"))`). A request sent
/// with `replicas.client(r)` goes to Region `r`'s endpoint and sees Region `r`'s replica.
#[derive(Clone, Debug)]
pub struct Replicas {
    clients: Vec<(&'static str, Client)>,
}

impl Replicas {
    /// The clients of every Region in [`REGIONS`] (for the tests: your code is given one).
    pub fn new(world: &World) -> Replicas {
        Replicas {
            clients: REGIONS.iter().map(|r| (*r, world.client_in(*r))).collect(),
        }
    }

    /// The client of `region`, which must be one of [`REGIONS`].
    pub fn client(&self, region: &str) -> &Client {
        match self.clients.iter().find(|(r, _)| *r == region) {
            Some((_, client)) => client,
            None => panic!("{region:?} holds no replica of {TABLE:?}; the Regions are {REGIONS:?}"),
        }
    }

    /// The Regions, in the order of [`REGIONS`].
    pub fn regions(&self) -> impl Iterator<Item = &str> + '_ {
        self.clients.iter().map(|(r, _)| *r)
    }
}

/// A signed-in user: who they are and the Region their profile is homed in (chosen when
/// they signed up, from where they live; it never changes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub home_region: String,
}

/// A user's profile, or a change to one: `None` is "not set" in a profile and "leave as it
/// is" in a change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    pub display_name: Option<String>,
    pub email: Option<String>,
}

/// Creates [`TABLE`] in the first of [`REGIONS`] and adds a replica in each of the others
/// (for the tests).
pub fn create_global_table(world: &World) -> Result<(), Error> {
    let first = world.client_in(REGIONS[0]);
    first
        .create_table()
        .table_name(TABLE)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("PK")
                .attribute_type(ScalarAttributeType::S)
                .build()?,
        )
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("SK")
                .attribute_type(ScalarAttributeType::S)
                .build()?,
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("PK")
                .key_type(KeyType::Hash)
                .build()?,
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("SK")
                .key_type(KeyType::Range)
                .build()?,
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()?;
    for region in &REGIONS[1..] {
        first
            .update_table()
            .table_name(TABLE)
            .replica_updates(
                ReplicationGroupUpdate::builder()
                    .create(
                        CreateReplicationGroupMemberAction::builder()
                            .region_name(*region)
                            .build()?,
                    )
                    .build(),
            )
            .send()?;
    }
    Ok(())
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/global-tables/README.md)"
    ))
}

/// The error to return when an item the table holds is not shaped as the README's layout says
/// (a count that is not a whole number, say). The tests never store such an item. Not part of
/// the SDK, whose `Error` has no public constructor: a `ValidationException` built by the
/// engine; in a service you would return your own error.
pub fn bad_item(what: impl Into<String>) -> Error {
    Error::validation(format!("malformed item: {}", what.into()))
}
