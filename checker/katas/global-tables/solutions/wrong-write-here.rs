//! Known wrong: profile writes and reads go to the Region that served the request. Two
//! changes to one profile made in two Regions within the replication delay conflict, and
//! last writer wins drops one; a read in another Region does not see a change just made.
use engine::types::{AttributeValue, ReturnValue};
use engine::{Error, Item};
use given::{Profile, Replicas, User, TABLE};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

/// Counts one visit to `page`, made by the application servers in Region `here`.
pub fn count_visit(replicas: &Replicas, here: &str, page: &str) -> Result<(), Error> {
    replicas
        .client(here)
        .update_item()
        .table_name(TABLE)
        .key("PK", s(&format!("PAGE#{page}")))
        .key("SK", s(&format!("VISITS#{here}")))
        .update_expression("ADD visits :one")
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .return_values(ReturnValue::None)
        .send()?;
    Ok(())
}

/// The visits to `page` from every Region, as the replica in `here` has them.
pub fn visits(replicas: &Replicas, here: &str, page: &str) -> Result<u64, Error> {
    let mut total = 0;
    let mut start: Option<Item> = None;
    loop {
        let out = replicas
            .client(here)
            .query()
            .table_name(TABLE)
            .key_condition_expression("PK = :pk AND begins_with(SK, :visits)")
            .expression_attribute_values(":pk", s(&format!("PAGE#{page}")))
            .expression_attribute_values(":visits", s("VISITS#"))
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()?;
        for item in out.items() {
            if let Some(AttributeValue::N(n)) = item.get("visits") {
                total += n
                    .parse::<u64>()
                    .map_err(|e| given::bad_item(e.to_string()))?;
            }
        }
        match out.last_evaluated_key() {
            Some(key) => start = Some(key.clone()),
            None => return Ok(total),
        }
    }
}

/// Applies `change` to `user`'s profile, for a request served in Region `here`.
pub fn update_profile(
    replicas: &Replicas,
    here: &str,
    user: &User,
    change: &Profile,
) -> Result<(), Error> {
    let mut sets = Vec::new();
    let mut update = replicas
        .client(here)
        .update_item()
        .table_name(TABLE)
        .key("PK", s(&format!("USER#{}", user.id)))
        .key("SK", s("PROFILE"));
    if let Some(name) = &change.display_name {
        sets.push("display_name = :name");
        update = update.expression_attribute_values(":name", s(name));
    }
    if let Some(email) = &change.email {
        sets.push("email = :email");
        update = update.expression_attribute_values(":email", s(email));
    }
    if sets.is_empty() {
        return Ok(());
    }
    update
        .update_expression(format!("SET {}", sets.join(", ")))
        .send()?;
    Ok(())
}

/// `user`'s own profile, for a request served in Region `here`: what they last saved.
pub fn load_profile(
    replicas: &Replicas,
    here: &str,
    user: &User,
) -> Result<Option<Profile>, Error> {
    let out = replicas
        .client(here)
        .get_item()
        .table_name(TABLE)
        .key("PK", s(&format!("USER#{}", user.id)))
        .key("SK", s("PROFILE"))
        .consistent_read(true)
        .send()?;
    Ok(out.item().map(profile_of))
}

fn profile_of(item: &Item) -> Profile {
    let text = |name: &str| match item.get(name) {
        Some(AttributeValue::S(v)) => Some(v.clone()),
        _ => None,
    };
    Profile {
        display_name: text("display_name"),
        email: text("email"),
    }
}
