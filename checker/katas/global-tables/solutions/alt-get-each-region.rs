//! Alternative solution of the global-tables kata: another route to the same rules.
//!
//! Visits: each Region's item is written with `SET visits = if_not_exists(visits, :zero) +
//! :one` (still only by its own Region, so a non-idempotent update is safe: no other Region
//! writes that item), and the total is one strongly consistent GetItem per Region's item,
//! summed. Profiles: writes to the home Region; the user's own profile is a strongly
//! consistent Query of their item collection in the home Region.

use engine::types::AttributeValue;
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
        .update_expression("SET visits = if_not_exists(visits, :zero) + :one")
        .expression_attribute_values(":zero", AttributeValue::N("0".into()))
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .send()?;
    Ok(())
}

/// The visits to `page` from every Region, as the replica in `here` has them.
pub fn visits(replicas: &Replicas, here: &str, page: &str) -> Result<u64, Error> {
    let mut total = 0;
    for region in replicas.regions() {
        let out = replicas
            .client(here)
            .get_item()
            .table_name(TABLE)
            .key("PK", s(&format!("PAGE#{page}")))
            .key("SK", s(&format!("VISITS#{region}")))
            .consistent_read(true)
            .send()?;
        if let Some(n) = out
            .item()
            .and_then(|i| i.get("visits"))
            .and_then(|v| v.as_n().ok())
        {
            total += n
                .parse::<u64>()
                .map_err(|e| given::bad_item(e.to_string()))?;
        }
    }
    Ok(total)
}

/// Applies `change` to `user`'s profile, for a request served in Region `here`.
pub fn update_profile(
    replicas: &Replicas,
    _here: &str,
    user: &User,
    change: &Profile,
) -> Result<(), Error> {
    let fields = [
        ("display_name", &change.display_name),
        ("email", &change.email),
    ];
    let mut update = replicas
        .client(&user.home_region)
        .update_item()
        .table_name(TABLE)
        .key("PK", s(&format!("USER#{}", user.id)))
        .key("SK", s("PROFILE"));
    let mut sets = Vec::new();
    for (i, (name, value)) in fields.iter().enumerate() {
        if let Some(value) = value {
            sets.push(format!("#f{i} = :v{i}"));
            update = update
                .expression_attribute_names(format!("#f{i}"), *name)
                .expression_attribute_values(format!(":v{i}"), s(value));
        }
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
    _here: &str,
    user: &User,
) -> Result<Option<Profile>, Error> {
    let out = replicas
        .client(&user.home_region)
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND SK = :profile")
        .expression_attribute_values(":pk", s(&format!("USER#{}", user.id)))
        .expression_attribute_values(":profile", s("PROFILE"))
        .consistent_read(true)
        .send()?;
    Ok(out.items().first().map(profile_of))
}

fn profile_of(item: &Item) -> Profile {
    let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
    Profile {
        display_name: text("display_name"),
        email: text("email"),
    }
}
