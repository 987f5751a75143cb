//! # Kata: single-table design — KNOWN WRONG: Scan and filter
//!
//! The reference layout, except that the two lookups the primary key cannot answer — orders
//! by status, customer by email — Scan the whole table with a FilterExpression instead of
//! querying an index. The answers are right; the cost is not: every call reads every customer,
//! order and line of the shop to return a handful, and gets slower as the shop grows.
//! Must fail `orders_by_status_newest_first` and `customer_by_email`.
//!
//! What follows is the reference solution's description.
//!
//! The layout of the lesson, one table `shop`, generic keys and a `type` on every item:
//!
//! ```text
//! PK             SK                          type      GSI1PK / GSI1SK             GSI2PK
//! CUSTOMER#c-1   PROFILE                     customer                              EMAIL#ana@x.io
//! CUSTOMER#c-1   ORDER#<placed_at>#o-9       orderref  (status, total copied here)
//! ORDER#o-9      META                        order     STATUS#PLACED / <placed_at>#o-9
//! ORDER#o-9      ITEM#0001 … ITEM#0012       item
//! ```
//!
//! | access pattern        | request                                                     |
//! |-----------------------|-------------------------------------------------------------|
//! | profile               | GetItem CUSTOMER#id / PROFILE                               |
//! | orders, newest first  | Query CUSTOMER#id, SK begins_with ORDER#, descending, Limit |
//! | order with its lines  | Query ORDER#id (META and ITEM#…)                            |
//! | order by id           | GetItem ORDER#id / META                                     |
//! | orders by status      | Query GSI1 STATUS#s, descending, Limit                      |
//! | customer by email     | Query GSI2 EMAIL#e                                          |
//!
//! Both indexes are sparse: only order headers carry GSI1PK, only profiles GSI2PK. The order
//! reference duplicates status and total so the customer's order list needs no second read;
//! a status change therefore updates header and reference together, in one transaction.

use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, Put, ScalarAttributeType, TransactWriteItem, Update,
};
use engine::{AttributeValue, Client, Error, Item};
use given::{Customer, Order, OrderItem, OrderStatus, OrderWithItems, Page, TABLE};

const STATUS_INDEX: &str = "GSI1";
const EMAIL_INDEX: &str = "GSI2";

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn customer_pk(id: &str) -> String {
    format!("CUSTOMER#{id}")
}

fn order_pk(id: &str) -> String {
    format!("ORDER#{id}")
}

/// The order reference's sort key: ISO dates sort as text in time order, so a descending
/// Query returns the newest order first; the id keeps two orders of one second apart.
fn order_ref_sk(order: &Order) -> String {
    format!("ORDER#{}#{}", order.placed_at, order.id)
}

/// Line numbers are zero-padded: as text, `ITEM#10` would sort before `ITEM#2`.
fn line_sk(line: usize) -> String {
    format!("ITEM#{line:04}")
}

fn text(item: &Item, name: &str) -> Result<String, Error> {
    match item.get(name) {
        Some(AttributeValue::S(v)) => Ok(v.clone()),
        _ => Err(given::bad_item(format!("item has no string `{name}`"))),
    }
}

fn number(item: &Item, name: &str) -> Result<u64, Error> {
    item.get(name)
        .and_then(AttributeValue::as_number)
        .and_then(|v| v.to_u64())
        .ok_or_else(|| given::bad_item(format!("item has no number `{name}`")))
}

fn customer_from(item: &Item) -> Result<Customer, Error> {
    Ok(Customer {
        id: text(item, "id")?,
        name: text(item, "name")?,
        email: text(item, "email")?,
    })
}

/// The attributes an order header and an order reference share.
fn order_attributes(order: &Order, item: &mut Item) {
    item.insert("id".into(), s(&order.id));
    item.insert("customer_id".into(), s(&order.customer_id));
    item.insert("placed_at".into(), s(&order.placed_at));
    item.insert("status".into(), s(order.status.as_str()));
    item.insert("total_cents".into(), n(order.total_cents));
}

fn order_from(item: &Item) -> Result<Order, Error> {
    let status = text(item, "status")?;
    Ok(Order {
        id: text(item, "id")?,
        customer_id: text(item, "customer_id")?,
        placed_at: text(item, "placed_at")?,
        status: OrderStatus::parse(&status)
            .ok_or_else(|| given::bad_item(format!("unknown status {status}")))?,
        total_cents: number(item, "total_cents")?,
    })
}

fn line_from(item: &Item) -> Result<OrderItem, Error> {
    Ok(OrderItem {
        sku: text(item, "sku")?,
        quantity: number(item, "quantity")? as u32,
        unit_price_cents: number(item, "unit_price_cents")?,
    })
}

/// The status index key of an order: newest first within a status.
fn status_sk(order: &Order) -> String {
    format!("{}#{}", order.placed_at, order.id)
}

pub fn create_table(client: &Client) -> Result<(), Error> {
    let string = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .expect("name and type are set")
    };
    let key = |name: &str, key_type: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(key_type)
            .build()
            .expect("name and key type are set")
    };
    let all = || {
        Projection::builder()
            .projection_type(ProjectionType::All)
            .build()
    };
    client
        .create_table()
        .table_name(TABLE)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(string("PK"))
        .attribute_definitions(string("SK"))
        .attribute_definitions(string("GSI1PK"))
        .attribute_definitions(string("GSI1SK"))
        .attribute_definitions(string("GSI2PK"))
        .key_schema(key("PK", KeyType::Hash))
        .key_schema(key("SK", KeyType::Range))
        // The warehouse list shows whole order headers: project them, or every listed order
        // would cost a GetItem on the table.
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(STATUS_INDEX)
                .key_schema(key("GSI1PK", KeyType::Hash))
                .key_schema(key("GSI1SK", KeyType::Range))
                .projection(all())
                .build()
                .expect("name and key schema are set"),
        )
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(EMAIL_INDEX)
                .key_schema(key("GSI2PK", KeyType::Hash))
                .projection(all())
                .build()
                .expect("name and key schema are set"),
        )
        .send()?;
    Ok(())
}

pub fn create_customer(client: &Client, customer: &Customer) -> Result<(), Error> {
    client
        .put_item()
        .table_name(TABLE)
        .item("PK", s(customer_pk(&customer.id)))
        .item("SK", s("PROFILE"))
        .item("type", s("customer"))
        .item("id", s(&customer.id))
        .item("name", s(&customer.name))
        .item("email", s(&customer.email))
        .item("GSI2PK", s(format!("EMAIL#{}", customer.email)))
        .send()?;
    Ok(())
}

pub fn place_order(client: &Client, order: &Order, items: &[OrderItem]) -> Result<(), Error> {
    let mut reference = Item::new();
    reference.insert("PK".into(), s(customer_pk(&order.customer_id)));
    reference.insert("SK".into(), s(order_ref_sk(order)));
    reference.insert("type".into(), s("orderref"));
    order_attributes(order, &mut reference);

    let mut header = Item::new();
    header.insert("PK".into(), s(order_pk(&order.id)));
    header.insert("SK".into(), s("META"));
    header.insert("type".into(), s("order"));
    header.insert(
        "GSI1PK".into(),
        s(format!("STATUS#{}", order.status.as_str())),
    );
    header.insert("GSI1SK".into(), s(status_sk(order)));
    order_attributes(order, &mut header);

    let put = |item: Item| {
        TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(TABLE)
                    .set_item(Some(item))
                    .build()
                    .expect("table and item or key are set"),
            )
            .build()
    };
    let mut tx = client
        .transact_write_items()
        // The header's condition makes an existing order id cancel the whole transaction.
        .transact_items(
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(TABLE)
                        .set_item(Some(header))
                        .condition_expression("attribute_not_exists(PK)")
                        .build()
                        .expect("table and item or key are set"),
                )
                .build(),
        )
        .transact_items(put(reference));
    for (i, line) in items.iter().enumerate() {
        let mut item = Item::new();
        item.insert("PK".into(), s(order_pk(&order.id)));
        item.insert("SK".into(), s(line_sk(i + 1)));
        item.insert("type".into(), s("item"));
        item.insert("sku".into(), s(&line.sku));
        item.insert("quantity".into(), n(line.quantity));
        item.insert("unit_price_cents".into(), n(line.unit_price_cents));
        tx = tx.transact_items(put(item));
    }
    tx.send()?;
    Ok(())
}

pub fn change_order_status(
    client: &Client,
    order_id: &str,
    status: OrderStatus,
) -> Result<(), Error> {
    // The reference's key holds the customer and the date: read the header to find it.
    let header = client
        .get_item()
        .table_name(TABLE)
        .key("PK", s(order_pk(order_id)))
        .key("SK", s("META"))
        .consistent_read(true)
        .send()?;
    let Some(header) = header.item() else {
        return Err(given::unknown_order(order_id));
    };
    let order = order_from(header)?;
    let update = |pk: String, sk: String, index_key: bool| {
        let mut u = Update::builder()
            .table_name(TABLE)
            .key("PK", s(pk))
            .key("SK", s(sk))
            .condition_expression("attribute_exists(PK)")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":status", s(status.as_str()));
        u = if index_key {
            u.update_expression("SET #status = :status, GSI1PK = :gsi1pk")
                .expression_attribute_values(":gsi1pk", s(format!("STATUS#{}", status.as_str())))
        } else {
            u.update_expression("SET #status = :status")
        };
        TransactWriteItem::builder()
            .update(u.build().expect("table, key and update expression are set"))
            .build()
    };
    client
        .transact_write_items()
        .transact_items(update(order_pk(order_id), "META".into(), true))
        .transact_items(update(
            customer_pk(&order.customer_id),
            order_ref_sk(&order),
            false,
        ))
        .send()?;
    Ok(())
}

pub fn customer(client: &Client, customer_id: &str) -> Result<Option<Customer>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", s(customer_pk(customer_id)))
        .key("SK", s("PROFILE"))
        .send()?;
    out.item().map(customer_from).transpose()
}

pub fn customer_orders(
    client: &Client,
    customer_id: &str,
    page_size: usize,
    cursor: Option<&str>,
) -> Result<Page<Order>, Error> {
    let mut query = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :orders)")
        .expression_attribute_values(":pk", s(customer_pk(customer_id)))
        .expression_attribute_values(":orders", s("ORDER#"))
        .scan_index_forward(false)
        .limit(page_size.clamp(1, i32::MAX as usize) as i32);
    if let Some(after) = cursor {
        // The cursor is the sort key of the last order shown; the partition key is known.
        query = query
            .exclusive_start_key("PK", s(customer_pk(customer_id)))
            .exclusive_start_key("SK", s(after));
    }
    let out = query.send()?;
    let items = out
        .items()
        .iter()
        .map(order_from)
        .collect::<Result<_, _>>()?;
    let next_cursor = out
        .last_evaluated_key()
        .map(|key| text(key, "SK"))
        .transpose()?;
    Ok(Page { items, next_cursor })
}

pub fn order_with_items(client: &Client, order_id: &str) -> Result<Option<OrderWithItems>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s(order_pk(order_id)))
        .send()?;
    let mut order = None;
    let mut items = Vec::new();
    for item in out.items() {
        match item.get("type") {
            Some(AttributeValue::S(t)) if t == "order" => order = Some(order_from(item)?),
            Some(AttributeValue::S(t)) if t == "item" => items.push(line_from(item)?),
            _ => {}
        }
    }
    Ok(order.map(|order| OrderWithItems { order, items }))
}

pub fn order(client: &Client, order_id: &str) -> Result<Option<Order>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", s(order_pk(order_id)))
        .key("SK", s("META"))
        .send()?;
    out.item().map(order_from).transpose()
}

/// Reads every page of a Scan with a filter: correct, and reads the whole table every time.
fn scan_filtered(
    client: &Client,
    filter: &str,
    values: &[(&str, AttributeValue)],
) -> Result<Vec<Item>, Error> {
    let mut found = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let mut scan = client
            .scan()
            .table_name(TABLE)
            .filter_expression(filter)
            .expression_attribute_names("#type", "type")
            .set_exclusive_start_key(start.take());
        for (name, value) in values {
            scan = scan.expression_attribute_values(*name, value.clone());
        }
        let page = scan.send()?;
        found.extend(page.items().iter().cloned());
        match page.last_evaluated_key() {
            Some(key) => start = Some(key.clone()),
            None => return Ok(found),
        }
    }
}

pub fn orders_by_status(
    client: &Client,
    status: OrderStatus,
    limit: usize,
) -> Result<Vec<Order>, Error> {
    let items = scan_filtered(
        client,
        "#type = :order AND begins_with(GSI1PK, :status)",
        &[
            (":order", s("order")),
            (":status", s(format!("STATUS#{}", status.as_str()))),
        ],
    )?;
    let mut orders = items
        .iter()
        .map(order_from)
        .collect::<Result<Vec<_>, _>>()?;
    orders.sort_by(|a, b| b.placed_at.cmp(&a.placed_at));
    orders.truncate(limit);
    Ok(orders)
}

pub fn customer_by_email(client: &Client, email: &str) -> Result<Option<Customer>, Error> {
    let items = scan_filtered(
        client,
        "#type = :customer AND email = :email",
        &[(":customer", s("customer")), (":email", s(email))],
    )?;
    items.first().map(customer_from).transpose()
}
