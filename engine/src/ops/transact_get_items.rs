//! TransactGetItems: read up to 100 items as one serializable snapshot.
//!
//! Semantics (reference §4.12): each `Get` names a table and a full key, with an optional
//! projection. `Responses[i]` answers `TransactItems[i]`; a missing item leaves an empty
//! response. Reads are strongly consistent (served by each partition's leader) and cost
//! twice a strongly consistent read: 2 RCU per started 4 KB per item.

use std::collections::{BTreeMap, HashMap};

use super::builder::{struct_setters, value_setter};
use super::transact_write_items::{report, MAX_ACTIONS};
use super::{parse_expressions, require_data_table_name, table};
use crate::capacity::{read_units, Consumption, ReadKind};
use crate::client::Client;
use crate::error::{CancellationReason, Exception, Result};
use crate::expr::ExpressionInput;
use crate::types::{ConsumedCapacity, ReturnConsumedCapacity};
use crate::value::{item_size, Item};
use crate::world::State;

/// One read of a read transaction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Get {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
}
struct_setters!(Get => GetBuilder, fallible {
    req map key / set_key / get_key;
    req string table_name / set_table_name / get_table_name;
    opt string projection_expression / set_projection_expression / get_projection_expression;
});

impl GetBuilder {
    /// Adds one `#name` placeholder.
    pub fn expression_attribute_names(
        mut self,
        key: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        self.inner
            .expression_attribute_names
            .get_or_insert_with(Default::default)
            .insert(key.into(), value.into());
        self
    }
    /// Replaces all `#name` placeholders (a `HashMap` or a `BTreeMap`).
    pub fn set_expression_attribute_names(
        mut self,
        names: Option<impl crate::value::MapInput<String>>,
    ) -> Self {
        self.inner.expression_attribute_names = names.map(crate::value::MapInput::into_map);
        self
    }
}

impl Get {
    pub fn expression_attribute_names(&self) -> Option<&HashMap<String, String>> {
        self.expression_attribute_names.as_ref()
    }
}

/// One entry of TransactItems.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransactGetItem {
    pub get: Option<Get>,
}
struct_setters!(TransactGetItem => TransactGetItemBuilder, infallible {
    opt value get / set_get / get_get: Get;
});

/// One entry of Responses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ItemResponse {
    pub item: Option<Item>,
}

impl ItemResponse {
    pub fn item(&self) -> Option<&Item> {
        self.item.as_ref()
    }
}

/// The parameters of a TransactGetItems request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransactGetItemsInput {
    pub transact_items: Vec<TransactGetItem>,
    pub return_consumed_capacity: Option<ReturnConsumedCapacity>,
}

/// What TransactGetItems returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransactGetItemsOutput {
    pub responses: Vec<ItemResponse>,
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}

impl TransactGetItemsOutput {
    pub fn responses(&self) -> &[ItemResponse] {
        &self.responses
    }
    /// One entry per table, when the request asked for it.
    pub fn consumed_capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }
}

/// Builds and sends a TransactGetItems request.
#[derive(Clone, Debug)]
pub struct TransactGetItemsFluentBuilder {
    client: Client,
    input: TransactGetItemsInput,
}

impl TransactGetItemsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        TransactGetItemsFluentBuilder {
            client,
            input: TransactGetItemsInput::default(),
        }
    }
    /// Appends one read.
    pub fn transact_items(mut self, item: TransactGetItem) -> Self {
        self.input.transact_items.push(item);
        self
    }
    value_setter!(return_consumed_capacity, set_return_consumed_capacity, get_return_consumed_capacity: ReturnConsumedCapacity);

    pub fn send(
        self,
    ) -> std::result::Result<
        TransactGetItemsOutput,
        crate::error::SdkError<crate::error::operations::TransactGetItemsError>,
    > {
        self.client
            .world()
            .send("TransactGetItems", |state| execute(state, &self.input))
    }
}

pub(crate) fn execute(
    state: &mut State,
    input: &TransactGetItemsInput,
) -> Result<TransactGetItemsOutput> {
    let n = input.transact_items.len();
    if n == 0 || n > MAX_ACTIONS {
        return Err(Exception::validation(format!(
            "1 validation error detected: Value '{}' at 'transactItems' failed to satisfy constraint: Member must have length {}",
            super::echo::transact_get_items(&input.transact_items),
            if n == 0 { "greater than or equal to 1" } else { "less than or equal to 100" }
        )));
    }
    if input.return_consumed_capacity == Some(ReturnConsumedCapacity::Indexes) {
        return Err(Exception::validation(
            "1 validation error detected: Value 'INDEXES' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [TOTAL, NONE]",
        ));
    }
    run(
        state,
        input.transact_items.iter().map(prepare),
        input.return_consumed_capacity.clone(),
    )
}

/// One read with its projection parsed. The request's `Get`s become these, and so do the
/// `SELECT`s of a PartiQL transaction (`ops::partiql`).
#[derive(Clone, Debug)]
pub(crate) struct PreparedGet {
    pub table_name: String,
    pub key: Item,
    pub projection: Option<crate::expr::Projection>,
}

fn prepare(entry: &TransactGetItem) -> Result<PreparedGet> {
    let get = entry.get.as_ref().ok_or_else(|| {
        Exception::validation("The parameter 'Get' is required but was not present in the request")
    })?;
    let table_name = require_data_table_name(&get.table_name)?.to_string();
    let parsed = parse_expressions(&ExpressionInput {
        projection: get.projection_expression.as_deref(),
        names: get.expression_attribute_names.as_ref(),
        ..ExpressionInput::default()
    })?;
    let key = get.key.clone().ok_or_else(|| {
        Exception::validation("The parameter 'Key' is required but was not present in the request")
    })?;
    Ok(PreparedGet {
        table_name,
        key,
        projection: parsed.projection,
    })
}

/// Reads prepared items as one snapshot. Each is prepared as the loop reaches it, so the
/// first bad read is the one refused.
pub(crate) fn run(
    state: &mut State,
    prepared: impl Iterator<Item = Result<PreparedGet>>,
    return_consumed_capacity: Option<ReturnConsumedCapacity>,
) -> Result<TransactGetItemsOutput> {
    let mut reads = Vec::new();
    let mut mismatched = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for read in prepared {
        let PreparedGet {
            table_name: name,
            key,
            projection,
        } = read?;
        // A key that does not match the table's schema cancels the transaction, with the
        // reason on that action (as the service answers; a peer conformance suite checks it),
        // rather than failing the request; other key problems (an empty string) fail it.
        let key = match table(state, &name)?.schema().key_of_key(&key) {
            Ok(key) => key,
            Err(e) if crate::table::key::is_schema_mismatch(&e) => {
                mismatched.push(reads.len());
                reads.push(None);
                continue;
            }
            Err(e) => return Err(e),
        };
        if !seen.insert((name.clone(), key.clone())) {
            return Err(Exception::validation(
                "Transaction request cannot include multiple operations on one item",
            ));
        }
        reads.push(Some((name, key, projection)));
    }
    let n = reads.len();
    if !mismatched.is_empty() {
        let reasons: Vec<CancellationReason> = (0..n)
            .map(|i| {
                if mismatched.contains(&i) {
                    CancellationReason {
                        code: Some("ValidationError".into()),
                        message: Some(crate::table::key::SCHEMA_MISMATCH.into()),
                        item: None,
                    }
                } else {
                    CancellationReason {
                        code: Some("None".into()),
                        message: None,
                        item: None,
                    }
                }
            })
            .collect();
        return Err(cancelled(reasons));
    }
    let reads = reads.into_iter().flatten();
    state.log.read_consistency(true);
    // The reads are one request to an on-demand table's allowance (capacity::admission).
    state.atomic_request = true;
    let mut responses = Vec::with_capacity(n);
    let mut consumption: BTreeMap<String, Consumption> = BTreeMap::new();
    let mut reasons = Vec::with_capacity(n);
    let mut failed = false;
    for (name, key, projection) in reads {
        table(state, &name)?;
        // Strongly consistent: served by the replica the piece names for such a read (the
        // leader), which must be there to serve it.
        let now = state.now_ms;
        let State { tables, rng, .. } = &mut *state;
        let store = &mut tables.get_mut(&name).expect("checked above").store;
        let p = store.locate(key.hash);
        let r = store.read_replica(p, true, now, rng)?;
        let found = store.partitions[p]
            .replica_data(r, now)
            .get(&key)
            .map(|s| s.item().clone());
        let units = read_units(found.as_ref().map_or(0, item_size), ReadKind::Transactional);
        if let Err(e) = state.admit_read(&name, key.hash, units) {
            failed = true;
            reasons.push(CancellationReason {
                code: Some(
                    if matches!(e, Exception::Throttling { .. }) {
                        "ThrottlingError"
                    } else {
                        "ProvisionedThroughputExceeded"
                    }
                    .into(),
                ),
                message: Some(e.message().to_string()),
                item: None,
            });
            continue;
        }
        reasons.push(CancellationReason {
            code: Some("None".into()),
            message: None,
            item: None,
        });
        consumption
            .entry(name)
            .or_default()
            .add(&Consumption::read(units));
        responses.push(ItemResponse {
            item: found.map(|item| match &projection {
                Some(p) => p.apply(&item),
                None => item,
            }),
        });
    }
    if failed {
        return Err(cancelled(reasons));
    }
    Ok(TransactGetItemsOutput {
        responses,
        consumed_capacity: report(&consumption, return_consumed_capacity),
    })
}

/// The cancellation of a read transaction, its message listing the reasons' codes in order.
fn cancelled(reasons: Vec<CancellationReason>) -> Exception {
    let codes: Vec<&str> = reasons.iter().map(|r| r.code().unwrap_or("None")).collect();
    Exception::TransactionCanceled {
        message: format!(
            "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
            codes.join(", ")
        ),
        cancellation_reasons: reasons,
    }
}
