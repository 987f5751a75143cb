//! From a parsed statement to the operation that runs it, against the table's key schema.
//!
//! The one question every statement answers here is *which key does the `WHERE` fix?* A
//! `WHERE` is split at its top-level `AND`s into conjuncts, and the conjuncts that name a
//! key attribute with a usable comparison become the key; the rest stay a condition:
//!
//! ```text
//!  SELECT * FROM "orders" WHERE PK = 'C#1' AND SK > 'O#2024' AND total > 100
//!                               └── partition ─┘   └─ sort ──┘     └─ filter ─┘
//!                                  Query: KeyCondition PK = 'C#1' AND SK > 'O#2024',
//!                                         filter total > 100
//!  SELECT * FROM "orders" WHERE total > 100          no partition key: Scan, same filter
//!  UPDATE "orders" SET n = 1 WHERE PK = 'C#1' AND SK = 'O#7' AND n < 1
//!                                  UpdateItem: Key {PK, SK}, condition
//!                                  attribute_exists(PK) AND n < 1
//! ```
//!
//! A `SELECT` becomes a Query when a conjunct fixes the partition key with `=`, with `IN`,
//! or (the whole `WHERE`) with `=`s joined by `OR`; one Query per value. Otherwise it is a
//! Scan of the table or index, the whole `WHERE` its filter. The writes need the full
//! primary key, each key attribute fixed by `=`.

use crate::error::{Exception, Result};
use crate::expr::{
    key_condition_from_tree, Comparator, CondNode, Condition, Operand, ParsedExpressions, Path,
    PathElem, Projection, UpdateExpr,
};
use crate::table::key::KeySchema;
use crate::table::IndexKind;
use crate::types::ReturnValuesOnConditionCheckFailure;
use crate::value::{AttributeValue, Item};
use crate::world::State;

use super::parser::{Delete, Insert, Select, Statement, Update};
use super::INCOMPLETE_KEY;

/// How a `SELECT` reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SelectPlan {
    pub table: String,
    pub index: Option<String>,
    pub projection: Option<Projection>,
    /// What is left of the `WHERE` once the key is taken out.
    pub filter: Option<Condition>,
    pub reads: Reads,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Reads {
    /// No conjunct fixes the partition key: every item of the table or index is read.
    Scan,
    /// One Query per partition-key value, in this order.
    Query {
        pk: String,
        values: Vec<AttributeValue>,
        /// The sort-key conjunct, if one has a key condition's shape.
        sort: Option<Box<CondNode>>,
        forward: bool,
    },
}

impl SelectPlan {
    /// The parsed expressions of the Query for the `i`-th partition value (or of the Scan).
    pub fn expressions(&self, i: usize) -> Result<ParsedExpressions> {
        let key_condition = match &self.reads {
            Reads::Scan => None,
            Reads::Query {
                pk, values, sort, ..
            } => {
                let eq = CondNode::Compare(
                    Comparator::Eq,
                    Operand::Path(attribute(pk)),
                    Operand::Value(values[i].clone()),
                );
                let root = match sort {
                    Some(sort) => CondNode::And(Box::new(eq), sort.clone()),
                    None => eq,
                };
                Some(key_condition_from_tree(root)?)
            }
        };
        Ok(ParsedExpressions {
            key_condition,
            filter: self.filter.clone(),
            projection: self.projection.clone(),
            ..ParsedExpressions::default()
        })
    }
}

/// The table (or index) a statement reads, its key schema, and whether it is a global index.
fn schema_of(state: &State, table: &str, index: Option<&str>) -> Result<(KeySchema, bool)> {
    let t = super::super::table(state, table)?;
    match index {
        None => Ok((t.schema().clone(), false)),
        Some(name) => {
            let i = t.index(name).ok_or_else(|| {
                Exception::validation(format!(
                    "The table does not have the specified index: {name}"
                ))
            })?;
            Ok((i.store.schema.clone(), i.kind == IndexKind::Global))
        }
    }
}

/// A `SELECT` as a Query or a Scan.
pub(crate) fn select(state: &State, s: &Select, consistent: bool) -> Result<SelectPlan> {
    let (schema, global) = schema_of(state, &s.table, s.index.as_deref())?;
    if global && consistent {
        return Err(Exception::validation(
            "Strongly consistent read is not supported on Global Secondary Indexes",
        ));
    }
    let projection = s
        .projection
        .as_ref()
        .map(|paths| projection(paths))
        .transpose()?;
    let mut conjuncts = s.condition.clone().map(conjuncts).unwrap_or_default();
    let partition = take_partition(&mut conjuncts, &schema)?;
    let mut reads = match partition {
        None => Reads::Scan,
        Some(values) => {
            let sort = schema
                .sk_name()
                .and_then(|sk| take_sort(&mut conjuncts, sk))
                .map(Box::new);
            Reads::Query {
                pk: schema.pk.clone(),
                values,
                sort,
                forward: true,
            }
        }
    };
    order(s, &schema, &mut reads)?;
    Ok(SelectPlan {
        table: s.table.clone(),
        index: s.index.clone(),
        projection,
        filter: and_all(conjuncts).map(|root| Condition { root }),
        reads,
    })
}

/// `ORDER BY`: on key attributes only, and only when the `WHERE` fixes the partition key.
fn order(s: &Select, schema: &KeySchema, reads: &mut Reads) -> Result<()> {
    if s.order_by.is_empty() {
        return Ok(());
    }
    if s.condition.is_none() {
        return Err(Exception::validation(
            "Must have WHERE clause in the statement when using ORDER BY clause.",
        ));
    }
    for (name, _) in &s.order_by {
        if !schema.is_key_attribute(name) {
            return Err(Exception::validation(format!(
                "Variable reference {name} in ORDER BY clause must be part of the primary key"
            )));
        }
    }
    let Reads::Query {
        pk,
        values,
        forward,
        ..
    } = reads
    else {
        return Err(Exception::validation(
            "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.",
        ));
    };
    let by_pk = s.order_by.iter().find(|(n, _)| n == pk);
    if values.len() > 1 && by_pk.is_none() {
        return Err(Exception::validation(
            "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause.",
        ));
    }
    if let Some((_, descending)) = by_pk {
        values.sort_by(|a, b| a.dynamo_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        if *descending {
            values.reverse();
        }
    }
    if let Some((_, descending)) = s
        .order_by
        .iter()
        .find(|(n, _)| Some(n.as_str()) == schema.sk_name())
    {
        *forward = !descending;
    }
    Ok(())
}

/// The projection of a `SELECT` list; two paths ending in one name would give one
/// attribute twice.
pub(crate) fn projection(paths: &[Path]) -> Result<Projection> {
    let last = |p: &Path| {
        p.0.iter()
            .rev()
            .find_map(|e| match e {
                PathElem::Name(n) => Some(n.clone()),
                PathElem::Index(_) => None,
            })
            .unwrap_or_default()
    };
    for (i, path) in paths.iter().enumerate() {
        if paths[..i].contains(path) {
            return Err(Exception::validation(format!(
                "Duplicate identifiers in select clause: {}",
                last(path)
            )));
        }
    }
    Ok(Projection::from_paths(paths.to_vec()))
}

/// Takes the conjunct that fixes the partition key out of `conjuncts`: its values.
fn take_partition(
    conjuncts: &mut Vec<CondNode>,
    schema: &KeySchema,
) -> Result<Option<Vec<AttributeValue>>> {
    let pk = schema.pk.as_str();
    let found = conjuncts.iter().enumerate().find_map(|(i, c)| {
        let values = match c {
            CondNode::In(Operand::Path(p), list) if is_attribute(p, pk) => list
                .iter()
                .map(|o| match o {
                    Operand::Value(v) => Some(v.clone()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>(),
            CondNode::Or(..) => disjunction(c, pk),
            other => equality(other, pk).map(|v| vec![v.clone()]),
        }?;
        Some((i, values))
    });
    let Some((i, mut values)) = found else {
        return Ok(None);
    };
    conjuncts.remove(i);
    for v in &values {
        check_key_type(pk, v, schema.pk_type.clone())?;
    }
    let mut unique: Vec<AttributeValue> = Vec::with_capacity(values.len());
    for v in values.drain(..) {
        if !unique.contains(&v) {
            unique.push(v);
        }
    }
    if unique.len() > MAX_PARTITION_VALUES {
        return Err(Exception::validation(
            "Too many decomposed read operations for a given query.",
        ));
    }
    Ok(Some(unique))
}

/// `pk = a OR pk = b OR …`, every disjunct an equality on the partition key.
fn disjunction(node: &CondNode, pk: &str) -> Option<Vec<AttributeValue>> {
    match node {
        CondNode::Or(a, b) => {
            let mut values = disjunction(a, pk)?;
            values.extend(disjunction(b, pk)?);
            Some(values)
        }
        other => equality(other, pk).map(|v| vec![v.clone()]),
    }
}

/// Takes the first conjunct with a key condition's shape on the sort key (`=`, `<`, `<=`,
/// `>`, `>=`, `BETWEEN`, `begins_with`), path first. Other conditions on the sort key stay
/// in the filter.
fn take_sort(conjuncts: &mut Vec<CondNode>, sk: &str) -> Option<CondNode> {
    let i = conjuncts.iter().position(|c| sort_shape(c, sk).is_some())?;
    sort_shape(&conjuncts.remove(i), sk)
}

fn sort_shape(c: &CondNode, sk: &str) -> Option<CondNode> {
    let is_sk = |o: &Operand| matches!(o, Operand::Path(p) if is_attribute(p, sk));
    let is_value = |o: &Operand| matches!(o, Operand::Value(_));
    match c {
        CondNode::Compare(Comparator::Ne, ..) => None,
        CondNode::Compare(op, a, b) if is_sk(a) && is_value(b) => {
            Some(CondNode::Compare(*op, a.clone(), b.clone()))
        }
        CondNode::Compare(op, a, b) if is_value(a) && is_sk(b) => {
            Some(CondNode::Compare(op.flipped(), b.clone(), a.clone()))
        }
        CondNode::Between(a, lo, hi) if is_sk(a) && is_value(lo) && is_value(hi) => Some(c.clone()),
        CondNode::BeginsWith(a, prefix) if is_sk(a) && is_value(prefix) => Some(c.clone()),
        _ => None,
    }
}

/// The full primary key a write (or a `SELECT` by key) names, and what is left of its
/// `WHERE`: every key attribute must be fixed by `=`.
pub(crate) fn full_key(
    state: &State,
    table: &str,
    condition: Option<&CondNode>,
) -> Result<(KeySchema, Item, Option<CondNode>)> {
    let (schema, _) = schema_of(state, table, None)?;
    let mut conjuncts = condition.cloned().map(conjuncts).unwrap_or_default();
    let mut key = Item::new();
    let sk = schema.sk.as_ref().map(|(n, t)| (n.as_str(), t.clone()));
    for (name, ty) in std::iter::once((schema.pk.as_str(), schema.pk_type.clone())).chain(sk) {
        let i = conjuncts
            .iter()
            .position(|c| equality(c, name).is_some())
            .ok_or_else(|| Exception::validation(INCOMPLETE_KEY))?;
        let c = conjuncts.remove(i);
        let value = equality(&c, name).expect("found above").clone();
        if conjuncts.iter().any(|c| equality(c, name).is_some()) {
            return Err(Exception::validation(format!(
                "Multiple conditions on same key {name}. Only single item Update/Insert/Delete are supported"
            )));
        }
        check_key_type(name, &value, ty)?;
        key.insert(name.to_string(), value);
    }
    Ok((schema, key, and_all(conjuncts)))
}

/// A write statement, as the single-item write that runs it.
#[derive(Clone, Debug)]
pub(crate) enum WritePlan {
    /// `INSERT`: a put on the condition that no item has the key.
    Put {
        table: String,
        item: Item,
        parsed: ParsedExpressions,
    },
    /// `UPDATE`: an update on the condition that the item exists (and the rest of the
    /// `WHERE`).
    Update {
        table: String,
        key: Item,
        parsed: ParsedExpressions,
        returning: Option<crate::types::ReturnValue>,
    },
    /// `DELETE`: a delete on the condition that the item is missing or the rest of the
    /// `WHERE` holds (a missing item is a success that deletes nothing).
    Delete {
        table: String,
        key: Item,
        parsed: ParsedExpressions,
        returning: bool,
    },
    /// `EXISTS(SELECT …)`: a condition check on one item.
    Check {
        table: String,
        key: Item,
        parsed: ParsedExpressions,
    },
}

impl WritePlan {
    pub fn table(&self) -> &str {
        match self {
            WritePlan::Put { table, .. }
            | WritePlan::Update { table, .. }
            | WritePlan::Delete { table, .. }
            | WritePlan::Check { table, .. } => table,
        }
    }
}

/// A write statement (or `EXISTS`) as the operation that runs it.
pub(crate) fn write(state: &State, statement: &Statement) -> Result<WritePlan> {
    match statement {
        Statement::Insert(Insert { table, item }) => {
            let (schema, _) = schema_of(state, table, None)?;
            let sk = schema.sk.as_ref().map(|(n, t)| (n.as_str(), t.clone()));
            for (name, ty) in
                std::iter::once((schema.pk.as_str(), schema.pk_type.clone())).chain(sk)
            {
                let value = item.get(name).ok_or_else(|| {
                    Exception::validation(format!(
                        "Key attribute should be present in the item: Key {name}"
                    ))
                })?;
                check_key_type(name, value, ty)?;
            }
            Ok(WritePlan::Put {
                table: table.clone(),
                item: item.clone(),
                parsed: ParsedExpressions {
                    condition: Some(Condition {
                        root: CondNode::NotExists(attribute(&schema.pk)),
                    }),
                    ..ParsedExpressions::default()
                },
            })
        }
        Statement::Update(Update {
            table,
            actions,
            condition,
            returning,
        }) => {
            let (schema, key, rest) = full_key(state, table, Some(condition))?;
            let exists = CondNode::Exists(attribute(&schema.pk));
            let root = match rest {
                Some(rest) => CondNode::And(Box::new(exists), Box::new(rest)),
                None => exists,
            };
            Ok(WritePlan::Update {
                table: table.clone(),
                key,
                parsed: ParsedExpressions {
                    condition: Some(Condition { root }),
                    update: Some(UpdateExpr::from_actions(actions.clone())),
                    ..ParsedExpressions::default()
                },
                returning: returning.clone(),
            })
        }
        Statement::Delete(Delete {
            table,
            condition,
            returning,
        }) => {
            let (schema, key, rest) = full_key(state, table, Some(condition))?;
            let condition = rest.map(|rest| Condition {
                root: CondNode::Or(
                    Box::new(CondNode::NotExists(attribute(&schema.pk))),
                    Box::new(rest),
                ),
            });
            Ok(WritePlan::Delete {
                table: table.clone(),
                key,
                parsed: ParsedExpressions {
                    condition,
                    ..ParsedExpressions::default()
                },
                returning: *returning,
            })
        }
        Statement::Exists(select) => {
            let invalid = || {
                Exception::validation(
                    "EXISTS() must contain a single item read with additional condition",
                )
            };
            if select.index.is_some() {
                return Err(Exception::validation(
                    "Operations on indices are not supported in transactions",
                ));
            }
            let (_, key, rest) =
                full_key(state, &select.table, select.condition.as_ref()).map_err(|_| invalid())?;
            let root = rest.ok_or_else(invalid)?;
            Ok(WritePlan::Check {
                table: select.table.clone(),
                key,
                parsed: ParsedExpressions {
                    condition: Some(Condition { root }),
                    ..ParsedExpressions::default()
                },
            })
        }
        Statement::Select(_) => unreachable!("callers plan reads with `select`"),
    }
}

/// The transaction action a write plan is, for TransactWriteItems.
pub(crate) fn transaction_action(
    plan: WritePlan,
    rv: Option<ReturnValuesOnConditionCheckFailure>,
) -> crate::ops::transact_write_items::Prepared {
    use crate::ops::transact_write_items::{Prepared, Target, CONDITION_FAILED};
    let (table_name, target, parsed, failed) = match plan {
        WritePlan::Put {
            table,
            item,
            parsed,
        } => (table, Target::Put(item), parsed, DUPLICATE),
        WritePlan::Update {
            table, key, parsed, ..
        } => (table, Target::Update(key), parsed, CONDITION_FAILED),
        WritePlan::Delete {
            table, key, parsed, ..
        } => (table, Target::Delete(key), parsed, CONDITION_FAILED),
        WritePlan::Check { table, key, parsed } => {
            (table, Target::Check(key), parsed, CONDITION_FAILED)
        }
    };
    Prepared {
        table_name,
        target,
        parsed,
        rv,
        failed,
    }
}

/// The cancellation reason of an `INSERT` whose key exists (code unverified; the batch
/// operation documents `DuplicateItem` among its error codes).
pub(crate) const DUPLICATE: (&str, &str) = ("DuplicateItem", super::DUPLICATE_MESSAGE);

// ---- the pieces of a `WHERE`

/// The top-level conjuncts of a condition (`a AND (b AND c)` → a, b, c).
fn conjuncts(node: CondNode) -> Vec<CondNode> {
    match node {
        CondNode::And(a, b) => {
            let mut out = conjuncts(*a);
            out.extend(conjuncts(*b));
            out
        }
        other => vec![other],
    }
}

/// The conjuncts joined by `AND` again, or `None` if there are none.
fn and_all(conjuncts: Vec<CondNode>) -> Option<CondNode> {
    conjuncts
        .into_iter()
        .reduce(|a, b| CondNode::And(Box::new(a), Box::new(b)))
}

/// The value a conjunct fixes `name` to: `name = v` or `v = name`.
fn equality<'c>(c: &'c CondNode, name: &str) -> Option<&'c AttributeValue> {
    match c {
        CondNode::Compare(Comparator::Eq, Operand::Path(p), Operand::Value(v))
        | CondNode::Compare(Comparator::Eq, Operand::Value(v), Operand::Path(p))
            if is_attribute(p, name) =>
        {
            Some(v)
        }
        _ => None,
    }
}

fn is_attribute(p: &Path, name: &str) -> bool {
    p.0.len() == 1 && p.head() == name
}

fn attribute(name: &str) -> Path {
    Path(vec![PathElem::Name(name.to_string())])
}

fn check_key_type(
    name: &str,
    value: &AttributeValue,
    ty: crate::types::ScalarAttributeType,
) -> Result<()> {
    if value.type_name() == ty.as_str() {
        Ok(())
    } else {
        Err(Exception::validation(format!(
            "Key attribute's data type should match its data type in table's schema: Key {name}"
        )))
    }
}

/// Most partition-key values one `SELECT` may fix (one Query each). Not a documented
/// number: the model's bound, at the `IN` operand limit of the expression language.
pub const MAX_PARTITION_VALUES: usize = crate::expr::MAX_IN_OPERANDS;
