//! UpdateTable: change a table's capacity, add or remove a global secondary index, or turn
//! its stream on or off.
//!
//! Semantics: one index creation or deletion per call. A new global secondary index starts
//! `CREATING` with `Backfilling = true` while the existing items are copied in (on the
//! simulated clock), and cannot be queried until it is `ACTIVE`; writes made meanwhile reach
//! it too. Deleting an index leaves the table's data and traffic alone. Enabling a stream
//! when one is enabled is a ValidationException (as the service answers; the reference's
//! `ResourceInUseException` is the older documentation's); a new stream gets a new ARN and
//! label; disabling one closes its shards, each then showing its `EndingSequenceNumber`.
//! Throughput must be at least 1, and must change: the same figures again are refused. The
//! answer describes the table as `UPDATING` (DescribeTable says `ACTIVE` at once).
//!
//! `replica_updates` (global tables version 2019.11.21) adds a replica of the table in
//! another Region — the table becomes a global table, replicated as [`crate::global`]
//! describes — or removes one. The first replica gets a `NEW_AND_OLD_IMAGES` stream if it has
//! none (DynamoDB replicates through it); a stream of another view type is refused, and so
//! is disabling the stream of a global table. `multi_region_consistency(Strong)` (MRSC) is
//! refused: the engine models MREC only.

use super::builder::{string_setter, value_setter};
use super::create_table::partitions_for_throughput;
use super::describe_table::describe;
use super::{require_table_name, validate_name};
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::table::key::KeySchema;
use crate::table::stream_arn;
use crate::table::{Index, IndexKind, Store};
use crate::types::{
    AttributeDefinition, BillingMode, IndexStatus, KeySchemaElement, KeyType,
    MultiRegionConsistency, Projection, ProvisionedThroughput, StreamSpecification, StreamViewType,
    TableDescription,
};
use crate::world::stream_label;
use crate::world::State;

/// One change to a table's global secondary indexes, as the SDK's: exactly one of `create`,
/// `update` and `delete` is set (DynamoDB refuses none or several with a ValidationException).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GlobalSecondaryIndexUpdate {
    pub update: Option<UpdateGlobalSecondaryIndexAction>,
    pub create: Option<CreateGlobalSecondaryIndexAction>,
    pub delete: Option<DeleteGlobalSecondaryIndexAction>,
}

impl GlobalSecondaryIndexUpdate {
    pub fn update(&self) -> Option<&UpdateGlobalSecondaryIndexAction> {
        self.update.as_ref()
    }
    pub fn create(&self) -> Option<&CreateGlobalSecondaryIndexAction> {
        self.create.as_ref()
    }
    pub fn delete(&self) -> Option<&DeleteGlobalSecondaryIndexAction> {
        self.delete.as_ref()
    }
}

/// A new global secondary index for an existing table (it is backfilled).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateGlobalSecondaryIndexAction {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElement>,
    /// Required by DynamoDB, optional in the SDK's shape.
    pub projection: Option<Projection>,
    pub provisioned_throughput: Option<ProvisionedThroughput>,
}

impl CreateGlobalSecondaryIndexAction {
    pub fn index_name(&self) -> &str {
        &self.index_name
    }
    pub fn key_schema(&self) -> &[KeySchemaElement] {
        &self.key_schema
    }
    pub fn projection(&self) -> Option<&Projection> {
        self.projection.as_ref()
    }
    pub fn provisioned_throughput(&self) -> Option<&ProvisionedThroughput> {
        self.provisioned_throughput.as_ref()
    }
}

/// The removal of a global secondary index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeleteGlobalSecondaryIndexAction {
    pub index_name: String,
}

impl DeleteGlobalSecondaryIndexAction {
    pub fn index_name(&self) -> &str {
        &self.index_name
    }
}

/// New provisioned throughput for a global secondary index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UpdateGlobalSecondaryIndexAction {
    pub index_name: String,
    pub provisioned_throughput: Option<ProvisionedThroughput>,
}

impl UpdateGlobalSecondaryIndexAction {
    pub fn index_name(&self) -> &str {
        &self.index_name
    }
    pub fn provisioned_throughput(&self) -> Option<&ProvisionedThroughput> {
        self.provisioned_throughput.as_ref()
    }
}

/// What one index update asks for, once checked to be exactly one action.
enum IndexChange<'a> {
    Create(&'a CreateGlobalSecondaryIndexAction),
    Delete(&'a str),
    Update(&'a str, Option<ProvisionedThroughput>),
}

fn index_change(update: &GlobalSecondaryIndexUpdate) -> Result<IndexChange<'_>> {
    match (&update.create, &update.update, &update.delete) {
        (Some(c), None, None) => Ok(IndexChange::Create(c)),
        (None, Some(u), None) => Ok(IndexChange::Update(&u.index_name, u.provisioned_throughput.clone())),
        (None, None, Some(d)) => Ok(IndexChange::Delete(&d.index_name)),
        // Wording unverified against the service.
        _ => Err(invalid(
            "One of GlobalSecondaryIndexUpdate's Create, Update and Delete must be set, and only one",
        )),
    }
}

/// One change to a table's replicas, as the SDK's: exactly one of `create` and `delete`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicationGroupUpdate {
    pub create: Option<CreateReplicationGroupMemberAction>,
    pub delete: Option<DeleteReplicationGroupMemberAction>,
}

impl ReplicationGroupUpdate {
    pub fn create(&self) -> Option<&CreateReplicationGroupMemberAction> {
        self.create.as_ref()
    }
    pub fn delete(&self) -> Option<&DeleteReplicationGroupMemberAction> {
        self.delete.as_ref()
    }
}

/// A new replica of the table, in `region_name`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateReplicationGroupMemberAction {
    pub region_name: String,
}

impl CreateReplicationGroupMemberAction {
    pub fn region_name(&self) -> &str {
        &self.region_name
    }
}

/// The removal of the replica in `region_name`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeleteReplicationGroupMemberAction {
    pub region_name: String,
}

impl DeleteReplicationGroupMemberAction {
    pub fn region_name(&self) -> &str {
        &self.region_name
    }
}

/// The parameters of an UpdateTable request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateTableInput {
    pub table_name: Option<String>,
    pub attribute_definitions: Vec<AttributeDefinition>,
    pub billing_mode: Option<BillingMode>,
    pub provisioned_throughput: Option<ProvisionedThroughput>,
    pub global_secondary_index_updates: Vec<GlobalSecondaryIndexUpdate>,
    pub stream_specification: Option<StreamSpecification>,
    pub replica_updates: Vec<ReplicationGroupUpdate>,
    pub multi_region_consistency: Option<MultiRegionConsistency>,
}

/// What UpdateTable returns.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateTableOutput {
    pub table_description: Option<TableDescription>,
}

impl UpdateTableOutput {
    pub fn table_description(&self) -> Option<&TableDescription> {
        self.table_description.as_ref()
    }
}

/// Builds and sends an UpdateTable request.
#[derive(Clone, Debug)]
pub struct UpdateTableFluentBuilder {
    client: Client,
    input: UpdateTableInput,
}

impl UpdateTableFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        UpdateTableFluentBuilder {
            client,
            input: UpdateTableInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);
    value_setter!(billing_mode, set_billing_mode, get_billing_mode: BillingMode);
    value_setter!(provisioned_throughput, set_provisioned_throughput, get_provisioned_throughput: ProvisionedThroughput);
    value_setter!(stream_specification, set_stream_specification, get_stream_specification: StreamSpecification);
    /// Appends an attribute definition (for a new index's key).
    pub fn attribute_definitions(mut self, definition: AttributeDefinition) -> Self {
        self.input.attribute_definitions.push(definition);
        self
    }
    /// Appends one index change.
    pub fn global_secondary_index_updates(mut self, update: GlobalSecondaryIndexUpdate) -> Self {
        self.input.global_secondary_index_updates.push(update);
        self
    }
    /// Appends one replica change (global tables version 2019.11.21).
    pub fn replica_updates(mut self, update: ReplicationGroupUpdate) -> Self {
        self.input.replica_updates.push(update);
        self
    }
    /// Replaces the replica changes.
    pub fn set_replica_updates(mut self, updates: Option<Vec<ReplicationGroupUpdate>>) -> Self {
        self.input.replica_updates = updates.unwrap_or_default();
        self
    }
    /// The replica changes so far.
    pub fn get_replica_updates(&self) -> &[ReplicationGroupUpdate] {
        &self.input.replica_updates
    }
    value_setter!(multi_region_consistency, set_multi_region_consistency, get_multi_region_consistency: MultiRegionConsistency);

    pub fn send(
        self,
    ) -> std::result::Result<
        UpdateTableOutput,
        crate::error::SdkError<crate::error::operations::UpdateTableError>,
    > {
        self.client
            .world()
            .send("UpdateTable", |state| execute(state, &self.input))
    }
}

/// An attribute definition that gives an existing attribute another type: DynamoDB's lengthy
/// message (as a peer suite quotes it from the service), the existing key schema that uses
/// the attribute against the new index's. How several elements are joined is unverified.
fn redefined(
    table: &crate::table::Table,
    existing: &AttributeDefinition,
    new: &AttributeDefinition,
    updates: &[GlobalSecondaryIndexUpdate],
) -> Exception {
    let element = |e: &KeySchemaElement, t: crate::types::ScalarAttributeType| {
        format!(
            "SchemaElement: key{{{}:{}:{}}}",
            e.attribute_name,
            t.as_str(),
            e.key_type.as_str()
        )
    };
    let type_in = |defs: &[AttributeDefinition], name: &str| {
        defs.iter()
            .find(|d| d.attribute_name == name)
            .map(|d| d.attribute_type.clone())
            .unwrap_or(crate::types::ScalarAttributeType::S)
    };
    let uses = |elements: &[KeySchemaElement]| {
        elements
            .iter()
            .any(|e| e.attribute_name == existing.attribute_name)
    };
    let old_schema = std::iter::once(table.key_elements.as_slice())
        .chain(table.indexes.iter().map(|i| i.key_elements.as_slice()))
        .find(|k| uses(k))
        .unwrap_or(&[]);
    let new_schema = updates
        .iter()
        .find_map(|u| u.create.as_ref())
        .map(|c| c.key_schema.as_slice())
        .unwrap_or(&[]);
    let render = |elements: &[KeySchemaElement],
                  defs: &dyn Fn(&str) -> crate::types::ScalarAttributeType| {
        elements
            .iter()
            .map(|e| element(e, defs(&e.attribute_name)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let old_type = |n: &str| type_in(&table.attribute_definitions, n);
    let new_type = |n: &str| {
        if n == new.attribute_name {
            new.attribute_type.clone()
        } else {
            type_in(&table.attribute_definitions, n)
        }
    };
    invalid(format!(
        "Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: Schema:[{}] New schema: Schema:[{}]",
        render(old_schema, &old_type),
        render(new_schema, &new_type)
    ))
}

fn invalid(reason: impl std::fmt::Display) -> Exception {
    Exception::validation(format!(
        "One or more parameter values were invalid: {reason}"
    ))
}

pub(crate) fn execute(state: &mut State, input: &UpdateTableInput) -> Result<UpdateTableOutput> {
    let name = require_table_name(&input.table_name)?.to_string();
    let now = state.now_ms;
    let ms_per_1000 = state.config.backfill_ms_per_1000_items;
    let epoch_ms = state.config.epoch_seconds * 1000 + now;
    let table = state.tables.get(&name).ok_or_else(|| {
        Exception::resource_not_found(format!(
            "Requested resource not found: Table: {name} not found"
        ))
    })?;
    if table.status == crate::types::TableStatus::Creating {
        // Wording unverified against the service.
        return Err(Exception::ResourceInUse {
            message: format!("Attempt to change a resource which is still in use: Table is being created: {name}"),
        });
    }
    if input.global_secondary_index_updates.len() > 1 {
        return Err(invalid(
            "Only one global secondary index update per UpdateTable call is allowed",
        ));
    }
    let billing = input
        .billing_mode
        .clone()
        .unwrap_or(table.billing_mode.clone());
    if billing == BillingMode::PayPerRequest && input.provisioned_throughput.is_some() {
        return Err(invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"));
    }
    if billing == BillingMode::Provisioned
        && table.throughput.is_none()
        && input.provisioned_throughput.is_none()
    {
        return Err(invalid(
            "ProvisionedThroughput must be specified when BillingMode is PROVISIONED",
        ));
    }
    if let Some(t) = &input.provisioned_throughput {
        super::create_table::check_throughput(t)?;
        if let Some(current) = table.throughput.clone().filter(|c| c == t) {
            // The emulator's wording (dynalite), which matches reports of the service's.
            return Err(invalid(format!(
                "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: {}. Requested ReadCapacityUnits: {}. Current WriteCapacityUnits provisioned for the table: {}. Requested WriteCapacityUnits: {}. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
                current.read_capacity_units,
                t.read_capacity_units,
                current.write_capacity_units,
                t.write_capacity_units
            )));
        }
    }
    // Validate the index change against the table as it is.
    let mut new_index = None;
    let mut defs = table.attribute_definitions.clone();
    for d in &input.attribute_definitions {
        match defs.iter().find(|x| x.attribute_name == d.attribute_name) {
            Some(existing) if existing.attribute_type != d.attribute_type => {
                return Err(redefined(
                    table,
                    existing,
                    d,
                    &input.global_secondary_index_updates,
                ))
            }
            Some(_) => {}
            None => defs.push(d.clone()),
        }
    }
    let change = input
        .global_secondary_index_updates
        .first()
        .map(index_change)
        .transpose()?;
    match &change {
        Some(IndexChange::Create(gsi)) => {
            validate_name(&gsi.index_name, "indexName")?;
            if table.index(&gsi.index_name).is_some() {
                return Err(invalid(format!("Index already exists: {}", gsi.index_name)));
            }
            let gsis = table
                .indexes
                .iter()
                .filter(|i| i.kind == IndexKind::Global)
                .count();
            if gsis >= super::create_table::MAX_GSIS {
                return Err(Exception::LimitExceeded {
                    message: format!("Subscriber limit exceeded: The table has {gsis} global secondary indexes, the maximum"),
                });
            }
            let type_of = |n: &str| {
                defs.iter()
                    .find(|d| d.attribute_name == n)
                    .map(|d| d.attribute_type.clone())
            };
            let pk = gsi
                .key_schema
                .iter()
                .find(|e| e.key_type == KeyType::Hash)
                .ok_or_else(|| invalid("Index KeySchema must have a HASH key"))?;
            let sk = gsi.key_schema.iter().find(|e| e.key_type == KeyType::Range);
            let missing =
                || invalid("Some index key attributes are not defined in AttributeDefinitions");
            let schema = KeySchema {
                pk: pk.attribute_name.clone(),
                pk_type: type_of(&pk.attribute_name).ok_or_else(missing)?,
                sk: match sk {
                    Some(e) => Some((
                        e.attribute_name.clone(),
                        type_of(&e.attribute_name).ok_or_else(missing)?,
                    )),
                    None => None,
                },
                router: state.pieces.router.clone(),
            };
            let throughput = match (billing.clone(), gsi.provisioned_throughput.clone()) {
                (BillingMode::Provisioned, None) => {
                    return Err(invalid(format!(
                        "ProvisionedThroughput is not specified for index: {}",
                        gsi.index_name
                    )))
                }
                (_, t) => t,
            };
            let projection = super::create_table::check_projection(
                &gsi.projection,
                &gsi.index_name,
                "globalSecondaryIndexUpdates.member.create",
                &mut 0,
            )?;
            new_index = Some(((*gsi).clone(), projection, schema, throughput));
        }
        Some(IndexChange::Delete(index_name)) | Some(IndexChange::Update(index_name, _)) => {
            match table.index(index_name) {
                Some(i) if i.kind == IndexKind::Global => {}
                _ => {
                    return Err(Exception::resource_not_found(format!(
                        "Requested resource not found: Index: {index_name} not found"
                    )))
                }
            }
        }
        None => {}
    }
    let replica_changes = crate::global::replicas::changes(
        state,
        &name,
        &input.replica_updates,
        input.multi_region_consistency.clone(),
    )?;
    let table = &state.tables[&name];
    if let Some(spec) = &input.stream_specification {
        if !spec.stream_enabled && state.regions.global.contains_key(&name) {
            // Wording unverified against the service.
            return Err(invalid(
                "The stream of a global table's replica cannot be disabled",
            ));
        }
        match (spec.stream_enabled, table.stream.is_some()) {
            (true, true) => {
                // A ValidationException, as the service answers (a peer suite run against it
                // checks the type and the word "already"); the rest of the wording is
                // unverified.
                return Err(invalid(format!(
                    "Table {name} already has an enabled stream"
                )));
            }
            (false, false) => return Err(invalid("Table already has no enabled stream")),
            (true, false) if spec.stream_view_type.is_none() => {
                return Err(invalid(
                    "StreamViewType is required when StreamEnabled is true",
                ))
            }
            _ => {}
        }
    }

    // Apply.
    let item_count = table.store.item_count() as u64;
    let replication = std::sync::Arc::clone(&state.pieces.replication);
    let stream_shards = std::sync::Arc::clone(&state.pieces.stream_shards);
    let State { tables, rng, .. } = state;
    let table = tables.get_mut(&name).expect("checked above");
    if billing == BillingMode::PayPerRequest && table.billing_mode != billing {
        table.settings.pay_per_request_since_ms = Some(now);
    }
    table.billing_mode = billing.clone();
    if billing == BillingMode::PayPerRequest {
        table.throughput = None;
    }
    if let Some(t) = input.provisioned_throughput.clone() {
        table.throughput = Some(t);
    }
    table.attribute_definitions = defs;
    match change {
        Some(IndexChange::Create(_)) => {
            let (gsi, projection, schema, throughput) = new_index.expect("validated");
            let count = throughput.as_ref().map_or(8, |t| {
                partitions_for_throughput(t.read_capacity_units, t.write_capacity_units)
            });
            let backfill_ms = (item_count * ms_per_1000 / 1000).max(1000);
            table.indexes.push(Index {
                name: gsi.index_name,
                kind: IndexKind::Global,
                key_elements: gsi.key_schema,
                projection,
                throughput,
                store: Store::new(schema, count, replication, rng),
                status: IndexStatus::Creating,
                backfill_due_ms: Some(now + backfill_ms),
            });
        }
        Some(IndexChange::Delete(index_name)) => {
            table.indexes.retain(|i| i.name != index_name);
            table.index_queue.retain(|p| p.index != index_name);
        }
        Some(IndexChange::Update(index_name, provisioned_throughput)) => {
            if let Some(i) = table.indexes.iter_mut().find(|i| i.name == index_name) {
                if provisioned_throughput.is_some() {
                    i.throughput = provisioned_throughput;
                }
            }
        }
        None => {}
    }
    if let Some(spec) = input.stream_specification.clone() {
        if spec.stream_enabled {
            let label = stream_label(epoch_ms);
            let view = spec.stream_view_type.clone().expect("validated");
            let partitions: Vec<u32> = table.store.partitions.iter().map(|p| p.id).collect();
            table.stream = Some(spec);
            table.stream_log = Some(crate::stream::Stream::new(
                stream_arn(&table.region, &name, &label),
                label.clone(),
                view,
                &partitions,
                now,
                stream_shards.clone(),
            ));
            table.stream_label = Some(label);
        } else {
            table.stream = None;
            if let Some(s) = &mut table.stream_log {
                s.disable();
            }
        }
    }
    if !replica_changes.is_empty() && table.stream.is_none() {
        // DynamoDB replicates a global table through its stream: the first replica gets one.
        let label = stream_label(epoch_ms);
        let partitions: Vec<u32> = table.store.partitions.iter().map(|p| p.id).collect();
        table.stream = Some(StreamSpecification {
            stream_enabled: true,
            stream_view_type: Some(StreamViewType::NewAndOldImages),
        });
        table.stream_log = Some(crate::stream::Stream::new(
            stream_arn(&table.region, &name, &label),
            label.clone(),
            StreamViewType::NewAndOldImages,
            &partitions,
            now,
            stream_shards.clone(),
        ));
        table.stream_label = Some(label);
    }
    for change in replica_changes {
        match change {
            crate::global::replicas::ReplicaChange::Create(region) => {
                crate::global::replicas::add(state, &name, &region)
            }
            crate::global::replicas::ReplicaChange::Delete(region) => {
                let here = state.regions.here.clone();
                state.enter(&region);
                state.tables.remove(&name);
                state.enter(&here);
                crate::global::replicas::remove(state, &name, &region);
            }
        }
    }
    let mut description = describe(&state.tables[&name], state.config.epoch_seconds);
    crate::global::replicas::describe(state, &name, &mut description);
    // Decision: the change takes effect at once in the model (a learner's next request sees
    // the new throughput, the new index backfilling), but the answer to the call itself says
    // UPDATING, as DynamoDB's does, so that code written to wait for ACTIVE (the waiter, a
    // DescribeTable loop) is the code the service needs; DescribeTable says ACTIVE at once,
    // as CreateTable's answer says CREATING.
    if description.table_status == Some(crate::types::TableStatus::Active) {
        description.table_status = Some(crate::types::TableStatus::Updating);
    }
    Ok(UpdateTableOutput {
        table_description: Some(description),
    })
}
