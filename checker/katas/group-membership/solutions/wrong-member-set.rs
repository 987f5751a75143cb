//! # Known-wrong: the member list in one attribute
//!
//! No edges: the group's own item holds its members in a string set (`members`, and `admins` for
//! the admins), and member_count beside it; a join is one UpdateItem (ADD), a leave one (DELETE).
//! It reads well for a small group — but an item is at most 400 KB, so a big group's set stops
//! growing there (ValidationException), and a user's groups can only be found by a Scan of every
//! group.

use engine::error::{ProvideErrorMetadata, SdkError};
use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType,
};
use engine::{AttributeValue, Client, Error, Item};
use given::{
    bad_item, no_such_group, Member, Membership, Page, Role, User, EMAIL, GROUP, INDEX, TABLE, USER,
};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn text<'a>(item: &'a Item, name: &str) -> Option<&'a str> {
    item.get(name)?.as_s().ok().map(String::as_str)
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
    // The index swaps the table's keys (for the email lookup: a profile's SK is EMAIL#<email>);
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

/// The group's key (its own item, which holds the member list).
fn group_key(group_id: &str) -> (AttributeValue, AttributeValue) {
    let pk = s(&format!("{GROUP}{group_id}"));
    (pk.clone(), pk)
}

fn refused_by_condition<E: ProvideErrorMetadata>(e: &SdkError<E>) -> bool {
    e.code() == Some("ConditionalCheckFailedException")
}

/// Adds `user_id` to the group's member set, and 1 to its count: one UpdateItem.
pub fn join(client: &Client, group_id: &str, user_id: &str, role: Role) -> Result<bool, Error> {
    let (pk, sk) = group_key(group_id);
    let attribute = match role {
        Role::Member => "members",
        Role::Admin => "admins",
    };
    let sent = client
        .update_item()
        .table_name(TABLE)
        .key("PK", pk)
        .key("SK", sk)
        .update_expression(format!("ADD {attribute} :user, member_count :one"))
        .condition_expression(
            "attribute_exists(PK) AND NOT contains(members, :id) AND NOT contains(admins, :id)",
        )
        .expression_attribute_values(":user", AttributeValue::Ss(vec![user_id.to_string()]))
        .expression_attribute_values(":id", s(user_id))
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .send();
    match sent {
        Ok(_) => Ok(true),
        Err(e) if refused_by_condition(&e) => {
            let (pk, sk) = group_key(group_id);
            let group = client
                .get_item()
                .table_name(TABLE)
                .key("PK", pk)
                .key("SK", sk)
                .consistent_read(true)
                .send()?;
            match group.item() {
                Some(_) => Ok(false),
                None => Err(no_such_group(group_id)),
            }
        }
        Err(e) => Err(e.into()),
    }
}

/// Takes `user_id` out of the group's member set, and 1 off its count: one UpdateItem.
pub fn leave(client: &Client, group_id: &str, user_id: &str) -> Result<bool, Error> {
    for attribute in ["members", "admins"] {
        let (pk, sk) = group_key(group_id);
        let sent = client
            .update_item()
            .table_name(TABLE)
            .key("PK", pk)
            .key("SK", sk)
            .update_expression(format!("DELETE {attribute} :user ADD member_count :minus"))
            .condition_expression(format!("contains({attribute}, :id)"))
            .expression_attribute_values(":user", AttributeValue::Ss(vec![user_id.to_string()]))
            .expression_attribute_values(":id", s(user_id))
            .expression_attribute_values(":minus", AttributeValue::N("-1".into()))
            .send();
        match sent {
            Ok(_) => return Ok(true),
            Err(e) if refused_by_condition(&e) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(false)
}

/// Adds the users to the group's member set, and their number to its count: one UpdateItem.
pub fn add_members(client: &Client, group_id: &str, user_ids: &[String]) -> Result<(), Error> {
    if user_ids.is_empty() {
        return Ok(());
    }
    let (pk, sk) = group_key(group_id);
    client
        .update_item()
        .table_name(TABLE)
        .key("PK", pk)
        .key("SK", sk)
        .update_expression("ADD members :users, member_count :n")
        .condition_expression("attribute_exists(PK)")
        .expression_attribute_values(":users", AttributeValue::Ss(user_ids.to_vec()))
        .expression_attribute_values(":n", AttributeValue::N(user_ids.len().to_string()))
        .send()?;
    Ok(())
}

fn set_of(item: &Item, name: &str) -> Vec<String> {
    item.get(name)
        .and_then(|v| v.as_ss().ok())
        .cloned()
        .unwrap_or_default()
}

/// One page of the group's members, sorted by user id: the group's item, paged in code.
pub fn members(
    client: &Client,
    group_id: &str,
    limit: i32,
    cursor: Option<&str>,
) -> Result<Page, Error> {
    let (pk, sk) = group_key(group_id);
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", pk)
        .key("SK", sk)
        .send()?;
    let mut all: Vec<Member> = Vec::new();
    if let Some(item) = out.item() {
        for (name, role) in [("members", Role::Member), ("admins", Role::Admin)] {
            all.extend(
                set_of(item, name)
                    .into_iter()
                    .map(|user_id| Member { user_id, role }),
            );
        }
    }
    all.sort_by(|a, b| a.user_id.cmp(&b.user_id));
    let from = match cursor {
        Some(after) => all
            .iter()
            .position(|m| m.user_id.as_str() > after)
            .unwrap_or(all.len()),
        None => 0,
    };
    let members: Vec<Member> = all
        .iter()
        .skip(from)
        .take(limit as usize)
        .cloned()
        .collect();
    let next_cursor = (from + members.len() < all.len())
        .then(|| members.last().map(|m| m.user_id.clone()))
        .flatten();
    Ok(Page {
        members,
        next_cursor,
    })
}

/// The groups whose member sets hold `user_id`: a Scan of the group items.
pub fn groups_of(client: &Client, user_id: &str) -> Result<Vec<Membership>, Error> {
    let mut found: Vec<Membership> = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let out = client
            .scan()
            .table_name(TABLE)
            .filter_expression("contains(members, :id) OR contains(admins, :id)")
            .expression_attribute_values(":id", s(user_id))
            .set_exclusive_start_key(start.take())
            .send()?;
        for item in out.items() {
            let group_id = text(item, "PK")
                .and_then(|pk| pk.strip_prefix(GROUP))
                .ok_or_else(|| bad_item("a group's PK is not GROUP#<group_id>"))?;
            let role = if set_of(item, "admins").iter().any(|u| u == user_id) {
                Role::Admin
            } else {
                Role::Member
            };
            found.push(Membership {
                group_id: group_id.to_string(),
                role,
            });
        }
        match out.last_evaluated_key() {
            Some(key) => start = Some(key.clone()),
            None => break,
        }
    }
    found.sort_by(|a, b| a.group_id.cmp(&b.group_id));
    Ok(found)
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
