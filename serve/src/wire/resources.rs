//! Operations on a table as a resource, beyond its definition: tags (TagResource,
//! UntagResource, ListTagsOfResource, addressed by ARN) — and the shapes they read.

use engine::types::Tag;
use serde_json::Value;

use super::read::Fields;
use super::write::Out;
use super::{Api, WireError};

type Result<T> = std::result::Result<T, WireError>;

/// A `Tags` list (CreateTable, TagResource). A tag missing its key or value has been
/// recorded as a constraint breach and is left out.
pub fn tags(req: &Fields<'_>) -> Result<Option<Vec<Tag>>> {
    let Some(list) = req.objects("Tags")? else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(list.len());
    for t in list {
        let key = t.require("Key", t.string("Key")?);
        let value = t.require("Value", t.string("Value")?);
        if let (Some(key), Some(value)) = (key, value) {
            out.push(Tag { key, value });
        }
    }
    Ok(Some(out))
}

pub fn tag_resource(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .tag_resource()
        .set_resource_arn(req.string("ResourceArn")?)
        .set_tags(tags(req)?);
    req.finish()?;
    call.send()?;
    Ok(Out::new().done())
}

pub fn untag_resource(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .untag_resource()
        .set_resource_arn(req.string("ResourceArn")?)
        .set_tag_keys(req.strings("TagKeys")?);
    req.finish()?;
    call.send()?;
    Ok(Out::new().done())
}

pub fn list_tags_of_resource(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .list_tags_of_resource()
        .set_resource_arn(req.string("ResourceArn")?)
        .set_next_token(req.string("NextToken")?);
    req.finish()?;
    let out = call.send()?;
    let tags = out
        .tags()
        .iter()
        .map(|t| {
            Out::new()
                .str("Key", Some(t.key()))
                .str("Value", Some(t.value()))
                .done()
        })
        .collect();
    Ok(Out::new()
        .put("Tags", Some(Value::Array(tags)))
        .str("NextToken", out.next_token())
        .done())
}
