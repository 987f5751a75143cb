//! # Known-wrong: the edge's Put has no condition
//!
//! Join is one TransactWriteItems, but its Put of the edge is not create-only: a user who joins a
//! group they are in already rewrites their edge, and the count's Update adds 1 all the same. The
//! count now says one member more than there are edges.

use engine::error::SdkError;
use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{
    AttributeDefinition, BillingMode, Delete, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    Projection, ProjectionType, Put, ScalarAttributeType, TransactWriteItem, Update,
};
use engine::{AttributeValue, Client, Error, Item};
use given::{
    bad_item, Member, Membership, Page, Role, User, EMAIL, GROUP, INDEX, MEMBER, TABLE, USER,
};

/// Edges per bulk transaction: 100 actions at most, one of them the count's update.
const EDGES_PER_TRANSACTION: usize = 99;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn text<'a>(item: &'a Item, name: &str) -> Option<&'a str> {
    item.get(name)?.as_s().ok().map(String::as_str)
}

fn role_of(item: &Item) -> Result<Role, Error> {
    text(item, "role")
        .and_then(Role::parse)
        .ok_or_else(|| bad_item("an edge has no role member or admin"))
}

/// Creates `TABLE` with its keys and the inverted index.
pub fn create_table(client: &Client) -> Result<(), Error> {
    let string = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
    };
    let key = |name: &str, key_type: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(key_type)
            .build()
    };
    // The index swaps the table's keys: the edges' SK (MEMBER#<u>) becomes a partition key, so
    // a user's edges are one item collection of the index, sorted by group. It holds what its
    // two Queries return: the role of an edge, the name of a profile.
    let inverted = GlobalSecondaryIndex::builder()
        .index_name(INDEX)
        .key_schema(key("SK", KeyType::Hash)?)
        .key_schema(key("PK", KeyType::Range)?)
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::Include)
                .non_key_attributes("role")
                .non_key_attributes("name")
                .build(),
        )
        .build()?;
    client
        .create_table()
        .table_name(TABLE)
        .attribute_definitions(string("PK")?)
        .attribute_definitions(string("SK")?)
        .key_schema(key("PK", KeyType::Hash)?)
        .key_schema(key("SK", KeyType::Range)?)
        .global_secondary_indexes(inverted)
        .billing_mode(BillingMode::PayPerRequest)
        .send()?;
    Ok(())
}

/// The Put of a new edge: refused if the user is a member already.
fn new_edge(group_id: &str, user_id: &str, role: Role) -> Result<TransactWriteItem, Error> {
    let put = Put::builder()
        .table_name(TABLE)
        .item("PK", s(&format!("{GROUP}{group_id}")))
        .item("SK", s(&format!("{MEMBER}{user_id}")))
        .item("role", s(role.as_str()))
        .build()?;
    Ok(TransactWriteItem::builder().put(put).build())
}

/// The group's `member_count` moved by `by`, by DynamoDB's arithmetic on the item as it is:
/// refused if the group does not exist.
fn count_by(group_id: &str, by: i64) -> Result<TransactWriteItem, Error> {
    let pk = format!("{GROUP}{group_id}");
    let update = Update::builder()
        .table_name(TABLE)
        .key("PK", s(&pk))
        .key("SK", s(&pk))
        .update_expression("ADD member_count :by")
        .condition_expression("attribute_exists(PK)")
        .expression_attribute_values(":by", AttributeValue::N(by.to_string()))
        .build()?;
    Ok(TransactWriteItem::builder().update(update).build())
}

/// Whether a cancelled transaction was refused by its first action's condition (the edge's).
fn edge_refused(e: &TransactWriteItemsError) -> bool {
    match e {
        TransactWriteItemsError::TransactionCanceledException(c) => c
            .cancellation_reasons()
            .first()
            .is_some_and(|r| r.code() == Some("ConditionalCheckFailed")),
        _ => false,
    }
}

/// Adds `user_id` to the group with `role`: true if they joined now, false if they were a
/// member already (nothing changed). A group that does not exist is an error.
pub fn join(client: &Client, group_id: &str, user_id: &str, role: Role) -> Result<bool, Error> {
    let sent = client
        .transact_write_items()
        .transact_items(new_edge(group_id, user_id, role)?)
        .transact_items(count_by(group_id, 1)?)
        .send();
    match sent.map_err(SdkError::into_service_error) {
        Ok(_) => Ok(true),
        Err(e) if edge_refused(&e) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Removes `user_id` from the group: true if they left now, false if they were not a member.
pub fn leave(client: &Client, group_id: &str, user_id: &str) -> Result<bool, Error> {
    let pk = format!("{GROUP}{group_id}");
    let edge = Delete::builder()
        .table_name(TABLE)
        .key("PK", s(&pk))
        .key("SK", s(&format!("{MEMBER}{user_id}")))
        .condition_expression("attribute_exists(SK)")
        .build()?;
    let sent = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().delete(edge).build())
        .transact_items(count_by(group_id, -1)?)
        .send();
    match sent.map_err(SdkError::into_service_error) {
        Ok(_) => Ok(true),
        Err(e) if edge_refused(&e) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Adds users who are not members yet, all as `Role::Member`: transactions of 99 edges and
/// the count's update, so the count equals the edges after each, and after a failure too.
pub fn add_members(client: &Client, group_id: &str, user_ids: &[String]) -> Result<(), Error> {
    for chunk in user_ids.chunks(EDGES_PER_TRANSACTION) {
        let mut request = client.transact_write_items();
        for user_id in chunk {
            request = request.transact_items(new_edge(group_id, user_id, Role::Member)?);
        }
        request
            .transact_items(count_by(group_id, chunk.len() as i64)?)
            .send()?;
    }
    Ok(())
}

/// One page of the group's members, sorted by user id: one Query of the group's edges.
pub fn members(
    client: &Client,
    group_id: &str,
    limit: i32,
    cursor: Option<&str>,
) -> Result<Page, Error> {
    let pk = s(&format!("{GROUP}{group_id}"));
    let mut query = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :member)")
        .expression_attribute_values(":pk", pk.clone())
        .expression_attribute_values(":member", s(MEMBER))
        .limit(limit);
    if let Some(after) = cursor {
        query = query
            .exclusive_start_key("PK", pk)
            .exclusive_start_key("SK", s(&format!("{MEMBER}{after}")));
    }
    let out = query.send()?;
    let members = out
        .items()
        .iter()
        .map(|item| {
            let user_id = text(item, "SK")
                .and_then(|sk| sk.strip_prefix(MEMBER))
                .ok_or_else(|| bad_item("an edge's SK is not MEMBER#<user_id>"))?;
            Ok(Member {
                user_id: user_id.to_string(),
                role: role_of(item)?,
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let next_cursor = out
        .last_evaluated_key()
        .and_then(|key| text(key, "SK"))
        .and_then(|sk| sk.strip_prefix(MEMBER))
        .map(str::to_string);
    Ok(Page {
        members,
        next_cursor,
    })
}

/// The groups `user_id` is a member of, sorted by group id: one Query of the inverted index.
pub fn groups_of(client: &Client, user_id: &str) -> Result<Vec<Membership>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .index_name(INDEX)
        .key_condition_expression("SK = :member")
        .expression_attribute_values(":member", s(&format!("{MEMBER}{user_id}")))
        .send()?;
    out.items()
        .iter()
        .map(|item| {
            let group_id = text(item, "PK")
                .and_then(|pk| pk.strip_prefix(GROUP))
                .ok_or_else(|| bad_item("an edge's PK is not GROUP#<group_id>"))?;
            Ok(Membership {
                group_id: group_id.to_string(),
                role: role_of(item)?,
            })
        })
        .collect()
}

/// The user whose email is `email`, if any: one Query of the same inverted index.
pub fn user_by_email(client: &Client, email: &str) -> Result<Option<User>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .index_name(INDEX)
        .key_condition_expression("SK = :email")
        .expression_attribute_values(":email", s(&format!("{EMAIL}{email}")))
        .send()?;
    let Some(item) = out.items().first() else {
        return Ok(None);
    };
    let id = text(item, "PK")
        .and_then(|pk| pk.strip_prefix(USER))
        .ok_or_else(|| bad_item("a profile's PK is not USER#<user_id>"))?;
    let name = text(item, "name").ok_or_else(|| bad_item("a profile has no name"))?;
    Ok(Some(User {
        id: id.to_string(),
        name: name.to_string(),
        email: email.to_string(),
    }))
}
