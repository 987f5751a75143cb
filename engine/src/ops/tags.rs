//! TagResource, UntagResource, ListTagsOfResource: labels on a table, addressed by its ARN.
//!
//! A tag is a key and a value the owner chooses (`team = checkout`, `env = prod`); DynamoDB
//! keeps them for cost reports and access policies and never reads them itself. Tags can be
//! given at CreateTable (`Tags`), added or overwritten with TagResource (a key already
//! there takes the new value), removed with UntagResource (keys not there are ignored) and
//! listed with ListTagsOfResource — all three name the table by its ARN
//! (`arn:aws:dynamodb:<region>:<account>:table/<name>`, DescribeTable's `TableArn`).
//!
//! The rules (Developer Guide, "Tagging restrictions"): a key is 1–128 characters, a value
//! 0–256; both are case-sensitive and made of letters, white space, numbers and
//! `+ - = . _ : /`; keys starting with `aws:` are AWS's own and cannot be set or removed; a
//! table has at most 50 tags. The messages for breaking them are not documented; the ones
//! here are this model's (unverified), except the length constraints, which follow the API
//! model's wording.
//!
//! Decision: the three operations share this file (and their validation) instead of one
//! file each: they are one concept with one rule set, and each is a few lines.
//!
//! ListTagsOfResource answers in pages of [`TAGS_PER_PAGE`] tags, in key order; a page
//! followed by more carries a `NextToken` (here: the last key listed) to send back. Decision:
//! DynamoDB documents the token but not the page size; a small page makes code that ignores
//! the token fail on a table of a dozen tags, as it would one day fail against the service.
//!
//! Left out: tags on indexes' and streams' ARNs (DynamoDB tags tables only).

use std::collections::BTreeMap;

use super::builder::{list_setters, string_setter};
use crate::client::Client;
use crate::error::Exception;
use crate::table::Table;
use crate::types::builders::shape_builder;
use crate::world::State;

/// One tag: a key and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    pub key: String,
    pub value: String,
}

impl Tag {
    pub fn key(&self) -> &str {
        &self.key
    }
    pub fn value(&self) -> &str {
        &self.value
    }
}

shape_builder! {
    /// Builds a [`Tag`]; both fields are required (the value may be empty).
    Tag => TagBuilder, fallible {
        req key / set_key / get_key: String,
        req value / set_value / get_value: String,
    }
}

/// Checks the tags of a request against the rules of the module essay.
fn check_tags(tags: &[Tag]) -> crate::error::Result<()> {
    for (i, tag) in tags.iter().enumerate() {
        let at = |field: &str| format!("tags.{}.member.{field}", i + 1);
        let key_len = tag.key.chars().count();
        if key_len < 1 {
            return Err(constraint(
                &tag.key,
                &at("key"),
                "greater than or equal to 1",
            ));
        }
        if key_len > MAX_KEY_CHARS {
            return Err(constraint(
                &tag.key,
                &at("key"),
                "less than or equal to 128",
            ));
        }
        if tag.value.chars().count() > MAX_VALUE_CHARS {
            return Err(constraint(
                &tag.value,
                &at("value"),
                "less than or equal to 256",
            ));
        }
        check_not_reserved(&tag.key)?;
        for text in [&tag.key, &tag.value] {
            if !text.chars().all(allowed) {
                return Err(Exception::validation(format!(
                    "One or more parameter values were invalid: Tag {} contains characters \
                     other than letters, white space, numbers and + - = . _ : /: {text}",
                    if text == &tag.key { "key" } else { "value" }
                )));
            }
        }
    }
    Ok(())
}

fn allowed(c: char) -> bool {
    c.is_alphanumeric() || c.is_whitespace() || "+-=._:/".contains(c)
}

fn check_not_reserved(key: &str) -> crate::error::Result<()> {
    if key.len() >= 4 && key[..4].eq_ignore_ascii_case("aws:") {
        return Err(Exception::validation(format!(
            "One or more parameter values were invalid: The aws: prefix is reserved for AWS use: {key}"
        )));
    }
    Ok(())
}

fn constraint(value: &str, at: &str, bound: &str) -> Exception {
    Exception::validation(format!(
        "1 validation error detected: Value '{value}' at '{at}' failed to satisfy constraint: \
         Member must have length {bound}"
    ))
}

/// Merges `tags` into `onto`, checking the 50-tag limit on the result.
fn merge(onto: &mut BTreeMap<String, String>, tags: &[Tag]) -> crate::error::Result<()> {
    let mut merged = onto.clone();
    for tag in tags {
        merged.insert(tag.key.clone(), tag.value.clone());
    }
    if merged.len() > MAX_TAGS {
        return Err(Exception::LimitExceeded {
            message: format!(
                "The number of tags on the resource would exceed the limit of {MAX_TAGS}"
            ),
        });
    }
    *onto = merged;
    Ok(())
}

/// CreateTable's `Tags`, checked, as a table's tag map.
pub(crate) fn initial_tags(tags: Option<&[Tag]>) -> crate::error::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    if let Some(tags) = tags {
        check_tags(tags)?;
        merge(&mut out, tags)?;
    }
    Ok(out)
}

/// The table a resource ARN names, in this Region.
fn table_of_arn<'a>(
    state: &'a mut State,
    arn: &Option<String>,
) -> crate::error::Result<&'a mut Table> {
    let arn = arn.as_deref().ok_or_else(|| {
        Exception::validation(
            "1 validation error detected: Value null at 'resourceArn' failed to satisfy constraint: Member must not be null",
        )
    })?;
    let invalid = || {
        Exception::validation(format!(
            "Invalid TableArn: Invalid ResourceArn provided as input {arn}"
        ))
    };
    let rest = arn.strip_prefix("arn:aws:dynamodb:").ok_or_else(invalid)?;
    let mut parts = rest.splitn(3, ':');
    let (region, account, resource) = match (parts.next(), parts.next(), parts.next()) {
        (Some(r), Some(a), Some(res)) => (r, a, res),
        _ => return Err(invalid()),
    };
    let name = resource.strip_prefix("table/").ok_or_else(invalid)?;
    if name.is_empty() || name.contains('/') {
        return Err(invalid());
    }
    let not_found = || {
        Exception::resource_not_found(format!(
            "Requested resource not found: ResourcArn: {arn} not found"
        ))
    };
    if region != state.regions.here.as_str() || account != crate::table::ACCOUNT {
        return Err(not_found());
    }
    state.tables.get_mut(name).ok_or_else(not_found)
}

/// The parameters of a TagResource request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TagResourceInput {
    pub resource_arn: Option<String>,
    pub tags: Option<Vec<Tag>>,
}

/// What TagResource returns: nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TagResourceOutput {}

/// Builds and sends a TagResource request.
#[derive(Clone, Debug)]
pub struct TagResourceFluentBuilder {
    client: Client,
    input: TagResourceInput,
}

impl TagResourceFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        TagResourceFluentBuilder {
            client,
            input: TagResourceInput::default(),
        }
    }
    string_setter!(resource_arn, set_resource_arn, get_resource_arn);
    list_setters!(
        /// Appends one tag.
        tags, set_tags, get_tags: Tag
    );

    pub fn send(
        self,
    ) -> std::result::Result<
        TagResourceOutput,
        crate::error::SdkError<crate::error::operations::TagResourceError>,
    > {
        self.client.world().send("TagResource", |state| {
            let tags = self.input.tags.as_deref().ok_or_else(|| {
                Exception::validation(
                    "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null",
                )
            })?;
            check_tags(tags)?;
            let table = table_of_arn(state, &self.input.resource_arn)?;
            merge(&mut table.settings.tags, tags)?;
            Ok(TagResourceOutput {})
        })
    }
}

/// The parameters of an UntagResource request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UntagResourceInput {
    pub resource_arn: Option<String>,
    pub tag_keys: Option<Vec<String>>,
}

/// What UntagResource returns: nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UntagResourceOutput {}

/// Builds and sends an UntagResource request.
#[derive(Clone, Debug)]
pub struct UntagResourceFluentBuilder {
    client: Client,
    input: UntagResourceInput,
}

impl UntagResourceFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        UntagResourceFluentBuilder {
            client,
            input: UntagResourceInput::default(),
        }
    }
    string_setter!(resource_arn, set_resource_arn, get_resource_arn);
    list_setters!(
        /// Appends one key to remove.
        tag_keys, set_tag_keys, get_tag_keys: String
    );

    pub fn send(
        self,
    ) -> std::result::Result<
        UntagResourceOutput,
        crate::error::SdkError<crate::error::operations::UntagResourceError>,
    > {
        self.client.world().send("UntagResource", |state| {
            let keys = self.input.tag_keys.as_deref().ok_or_else(|| {
                Exception::validation(
                    "1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null",
                )
            })?;
            for key in keys {
                check_not_reserved(key)?;
            }
            let table = table_of_arn(state, &self.input.resource_arn)?;
            for key in keys {
                table.settings.tags.remove(key);
            }
            Ok(UntagResourceOutput {})
        })
    }
}

/// The parameters of a ListTagsOfResource request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListTagsOfResourceInput {
    pub resource_arn: Option<String>,
    pub next_token: Option<String>,
}

/// What ListTagsOfResource returns: a page of the tags, in key order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListTagsOfResourceOutput {
    pub tags: Option<Vec<Tag>>,
    /// Present when more tags follow: pass it back as the next request's `NextToken`.
    pub next_token: Option<String>,
}

impl ListTagsOfResourceOutput {
    pub fn tags(&self) -> &[Tag] {
        self.tags.as_deref().unwrap_or_default()
    }
    pub fn next_token(&self) -> Option<&str> {
        self.next_token.as_deref()
    }
}

/// Builds and sends a ListTagsOfResource request.
#[derive(Clone, Debug)]
pub struct ListTagsOfResourceFluentBuilder {
    client: Client,
    input: ListTagsOfResourceInput,
}

impl ListTagsOfResourceFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        ListTagsOfResourceFluentBuilder {
            client,
            input: ListTagsOfResourceInput::default(),
        }
    }
    string_setter!(resource_arn, set_resource_arn, get_resource_arn);
    string_setter!(next_token, set_next_token, get_next_token);

    pub fn send(
        self,
    ) -> std::result::Result<
        ListTagsOfResourceOutput,
        crate::error::SdkError<crate::error::operations::ListTagsOfResourceError>,
    > {
        self.client.world().send("ListTagsOfResource", |state| {
            let table = table_of_arn(state, &self.input.resource_arn)?;
            // The tags after the token's key (a token whose tag was removed since still
            // continues where it left off).
            let after = self.input.next_token.as_deref();
            let mut rest = table
                .settings
                .tags
                .iter()
                .filter(|(key, _)| after.is_none_or(|a| key.as_str() > a));
            let tags: Vec<Tag> = rest
                .by_ref()
                .take(TAGS_PER_PAGE)
                .map(|(key, value)| Tag {
                    key: key.clone(),
                    value: value.clone(),
                })
                .collect();
            let next_token = match rest.next() {
                Some(_) => tags.last().map(|t| t.key.clone()),
                None => None,
            };
            Ok(ListTagsOfResourceOutput {
                tags: Some(tags),
                next_token,
            })
        })
    }
}

/// Most tags on one table (DynamoDB: 50, not counting AWS's own).
pub const MAX_TAGS: usize = 50;
/// Longest tag key, in characters (DynamoDB: 128).
pub const MAX_KEY_CHARS: usize = 128;
/// Longest tag value, in characters (DynamoDB: 256).
pub const MAX_VALUE_CHARS: usize = 256;
/// Tags on one page of ListTagsOfResource. DynamoDB: not documented; 10 here, so that
/// paging shows on a table with a dozen tags (see the module essay).
pub const TAGS_PER_PAGE: usize = 10;
