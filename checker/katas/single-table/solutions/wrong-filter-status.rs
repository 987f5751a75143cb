//! # Kata: single-table design — known-wrong: orders by status through a FilterExpression
//!
//! The reference's design, except that every order header carries the same index key
//! (GSI1PK = ORDERS, sorted by date), and `orders_by_status` is one Query on that key with a
//! FilterExpression on `status`. One Query, on an index, newest first, the right answer —
//! but it reads (and pays for) every order in the shop to return a few: a filter runs after
//! the read. The status belongs in the index key.

use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, Put, ScalarAttributeType, TransactWriteItem, Update,
};
use engine::{AttributeValue, Client, Error, Item};
use given::{Customer, Order, OrderItem, OrderStatus, OrderWithItems, Page, TABLE};

const STATUS_INDEX: &str = "GSI1";
const EMAIL_INDEX: &str = "GSI2";
/// The one index partition key every order header carries.
const ALL_ORDERS: &str = "ORDERS";
/// What an `Order` is read from: the status index projects these.
const ORDER_ATTRIBUTES: [&str; 5] = ["id", "customer_id", "placed_at", "status", "total_cents"];
/// What a `Customer` is read from: the email index projects these.
const CUSTOMER_ATTRIBUTES: [&str; 3] = ["id", "name", "email"];

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
    let include = |attributes: &[&str]| {
        Projection::builder()
            .projection_type(ProjectionType::Include)
            .set_non_key_attributes(Some(attributes.iter().map(|a| a.to_string()).collect()))
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
        // Each index projects what its access pattern returns, not ALL: every projected byte is
        // written again on each change and stored again. Too little would be worse — an
        // attribute the index lacks costs a GetItem on the table per listed order.
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(STATUS_INDEX)
                .key_schema(key("GSI1PK", KeyType::Hash))
                .key_schema(key("GSI1SK", KeyType::Range))
                .projection(include(&ORDER_ATTRIBUTES))
                .build()
                .expect("name and key schema are set"),
        )
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(EMAIL_INDEX)
                .key_schema(key("GSI2PK", KeyType::Hash))
                .projection(include(&CUSTOMER_ATTRIBUTES))
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
    // Every order under one index key, newest first: the warehouse filters by status.
    header.insert("GSI1PK".into(), s(ALL_ORDERS));
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
        let _ = index_key;
        u = u.update_expression("SET #status = :status");
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

pub fn orders_by_status(
    client: &Client,
    status: OrderStatus,
    limit: usize,
) -> Result<Vec<Order>, Error> {
    // No Limit: it would count the orders before the filter, and a page could come back
    // short. Filter on the server, keep the newest `limit`.
    let out = client
        .query()
        .table_name(TABLE)
        .index_name(STATUS_INDEX)
        .key_condition_expression("GSI1PK = :orders")
        .filter_expression("#status = :status")
        .expression_attribute_names("#status", "status")
        .expression_attribute_values(":orders", s(ALL_ORDERS))
        .expression_attribute_values(":status", s(status.as_str()))
        .scan_index_forward(false)
        .send()?;
    out.items().iter().take(limit).map(order_from).collect()
}

pub fn customer_by_email(client: &Client, email: &str) -> Result<Option<Customer>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .index_name(EMAIL_INDEX)
        .key_condition_expression("GSI2PK = :email")
        .expression_attribute_values(":email", s(format!("EMAIL#{email}")))
        .limit(1)
        .send()?;
    out.items().first().map(customer_from).transpose()
}
