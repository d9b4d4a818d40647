//! The tools, modelled on the Shopify MCP servers (products, inventory, orders, discounts).
//! Near-duplicates an agent must choose between: `adjust_inventory` adds a delta while
//! `set_inventory` writes an absolute count, `list_products` pages through everything while
//! `search_products` matches text, and `list_orders` summarises what `get_order` details.

mod args;

use crate::state::{
    DiscountCode, Order, OrderStatus, Product, ProductStatus, Refund, Shop, valid_code,
};
use args::*;
use mcpbench_sim::{Tool, ToolBox, ToolError};
use serde_json::{Value, json};
use std::sync::LazyLock;

type Out = Result<Value, ToolError>;

fn summary(s: &Shop, p: &Product) -> Value {
    json!({
        "id": p.id,
        "sku": p.sku,
        "title": p.title,
        "price": p.price,
        "priceFormatted": s.money(p.price),
        "status": p.status,
        "tags": p.tags,
        "totalInventory": p.inventory.values().map(|n| u64::from(*n)).sum::<u64>(),
    })
}

fn detail(s: &Shop, p: &Product) -> Value {
    let mut out = summary(s, p);
    let stock: Vec<Value> = s
        .locations
        .values()
        .map(|l| json!({ "location": l.id, "name": l.name, "available": p.inventory.get(&l.id).copied().unwrap_or(0) }))
        .collect();
    out["inventory"] = Value::Array(stock);
    out
}

fn order_summary(s: &Shop, o: &Order) -> Value {
    json!({
        "id": o.id,
        "name": format!("#{}", o.id),
        "email": o.email,
        "status": o.status,
        "total": o.total(),
        "totalFormatted": s.money(o.total()),
        "items": o.lines.iter().map(|l| u64::from(l.quantity)).sum::<u64>(),
    })
}

fn order_detail(s: &Shop, o: &Order) -> Value {
    let lines: Vec<Value> = o
        .lines
        .iter()
        .map(|l| {
            let line_total = l.price * u64::from(l.quantity);
            json!({ "sku": l.sku, "title": l.title, "quantity": l.quantity, "price": l.price, "lineTotal": line_total })
        })
        .collect();
    let refunded = o.refunded();
    json!({
        "id": o.id,
        "name": format!("#{}", o.id),
        "email": o.email,
        "status": o.status,
        "currency": s.currency,
        "lines": lines,
        "subtotal": o.subtotal(),
        "shipping": o.shipping,
        "discount": o.discount,
        "total": o.total(),
        "totalFormatted": s.money(o.total()),
        "refunded": refunded,
        "refundable": o.total() - refunded,
        "refunds": o.refunds,
    })
}

/// Trimmed, without blanks or repeats (case-insensitive), sorted.
fn clean_tags(tags: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tags {
        let t = t.trim().to_string();
        if !t.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(&t)) {
            out.push(t);
        }
    }
    out.sort();
    out
}

fn list_locations(s: &Shop, _: NoArgs) -> Out {
    let out: Vec<Value> = s
        .locations
        .values()
        .map(|l| json!({ "id": l.id, "name": l.name, "managedBy": l.managed_by, "inventoryEditable": l.managed_by.is_none() }))
        .collect();
    Ok(json!({ "locations": out }))
}

fn list_products(s: &Shop, a: ListProducts) -> Out {
    let all: Vec<&Product> = s
        .products
        .values()
        .filter(|p| a.status.is_none_or(|st| p.status == st))
        .collect();
    let limit = a.limit.unwrap_or(50) as usize;
    let page = a.page.unwrap_or(1) as usize;
    let pages = all.len().div_ceil(limit).max(1);
    let shown: Vec<Value> = all
        .iter()
        .skip((page - 1) * limit)
        .take(limit)
        .map(|p| summary(s, p))
        .collect();
    Ok(json!({ "products": shown, "page": page, "pages": pages, "total": all.len() }))
}

fn search_products(s: &Shop, a: SearchProducts) -> Out {
    let q = a.query.trim().to_lowercase();
    let hits: Vec<&Product> = s
        .products
        .values()
        .filter(|p| {
            p.title.to_lowercase().contains(&q)
                || p.sku.to_lowercase().contains(&q)
                || p.tags.iter().any(|t| t.to_lowercase().contains(&q))
        })
        .collect();
    let page = mcpbench_sim::page(
        &hits,
        a.after.as_deref(),
        a.limit.unwrap_or(20) as usize,
        &format!("search {q}"),
    )?;
    let shown: Vec<Value> = page.items.iter().map(|p| summary(s, p)).collect();
    Ok(json!({ "products": shown, "total": hits.len(), "pageInfo": page_info(page.next) }))
}

fn get_product(s: &Shop, a: ProductIdArg) -> Out {
    let p = s.product(a.product_id)?;
    Ok(detail(s, p))
}

fn create_product(s: &mut Shop, a: CreateProduct) -> Out {
    let sku = a.sku.trim().to_string();
    let title = a.title.trim().to_string();
    if sku.is_empty() || title.is_empty() {
        return Err(ToolError::invalid("sku and title cannot be blank"));
    }
    if let Some(p) = s
        .products
        .values()
        .find(|p| p.sku.eq_ignore_ascii_case(&sku))
    {
        return Err(ToolError::conflict(format!(
            "SKU {} is already used by product {} ({})",
            p.sku, p.id, p.title
        )));
    }
    let mut inventory = std::collections::BTreeMap::new();
    for e in a.inventory.unwrap_or_default() {
        let loc = s.editable_location(&e.location)?;
        if inventory.insert(loc.clone(), e.quantity).is_some() {
            return Err(ToolError::invalid(format!(
                "location {loc} is listed twice in inventory"
            )));
        }
    }
    inventory.retain(|_, n| *n > 0);
    let id = s.products.keys().next_back().map_or(1, |id| id + 1);
    let product = Product {
        id,
        sku,
        title,
        price: a.price,
        status: a.status.unwrap_or_default(),
        tags: clean_tags(a.tags.unwrap_or_default()),
        inventory,
    };
    let out = detail(s, &product);
    s.put_product(product)?;
    Ok(out)
}

fn update_product(s: &mut Shop, a: UpdateProduct) -> Out {
    s.product(a.product_id)?;
    if a.title.is_none() && a.price.is_none() && a.tags.is_none() {
        return Err(ToolError::invalid(
            "give at least one of title, price, tags; stock is changed with adjust_inventory or set_inventory, status with archive_product",
        ));
    }
    if a.title.as_ref().is_some_and(|t| t.trim().is_empty()) {
        return Err(ToolError::invalid("the title cannot be blank"));
    }
    let mut p = s.products[&a.product_id].clone();
    if let Some(t) = a.title {
        p.title = t.trim().to_string();
    }
    if let Some(price) = a.price {
        p.price = price;
    }
    if let Some(tags) = a.tags {
        p.tags = clean_tags(tags);
    }
    s.put_product(p.clone())?;
    Ok(detail(s, &p))
}

fn archive_product(s: &mut Shop, a: ProductIdArg) -> Out {
    let p = s.product(a.product_id)?;
    if p.status == ProductStatus::Archived {
        return Err(ToolError::precondition(format!(
            "product {} ({}) is already archived",
            p.id, p.title
        )));
    }
    // An archived status is stored (an active one is not), so archiving lengthens the product.
    let mut p = p.clone();
    p.status = ProductStatus::Archived;
    let out = json!({ "id": p.id, "sku": p.sku, "status": p.status });
    s.put_product(p)?;
    Ok(out)
}

/// Writes a new stock level, admitted for what it adds (a location first stocked, a count
/// with more digits); returns what a tool answers.
fn put_stock(s: &mut Shop, id: u64, loc: String, new: u32, before: u32) -> Out {
    let mut p = s.products[&id].clone();
    if new == 0 {
        p.inventory.remove(&loc);
    } else {
        p.inventory.insert(loc.clone(), new);
    }
    let out = json!({ "sku": p.sku, "location": loc, "previous": before, "available": new });
    s.put_product(p)?;
    Ok(out)
}

fn adjust_inventory(s: &mut Shop, a: AdjustInventory) -> Out {
    let id = s.product_id_by_sku(&a.sku)?;
    let loc = s.editable_location(&a.location)?;
    if a.delta == 0 {
        return Err(ToolError::invalid("delta must not be 0"));
    }
    let before = s.products[&id].inventory.get(&loc).copied().unwrap_or(0);
    let after = i64::from(before) + a.delta;
    if after < 0 {
        return Err(ToolError::precondition(format!(
            "{} has only {before} units at {loc}; removing {} would go below zero",
            s.products[&id].sku, -a.delta
        )));
    }
    let after =
        u32::try_from(after).map_err(|_| ToolError::invalid("the resulting stock is too large"))?;
    put_stock(s, id, loc, after, before)
}

fn set_inventory(s: &mut Shop, a: SetInventory) -> Out {
    let id = s.product_id_by_sku(&a.sku)?;
    let loc = s.editable_location(&a.location)?;
    let before = s.products[&id].inventory.get(&loc).copied().unwrap_or(0);
    put_stock(s, id, loc, a.quantity, before)
}

fn list_orders(s: &Shop, a: ListOrders) -> Out {
    let email = a.email.map(|e| e.trim().to_lowercase());
    let hits: Vec<&Order> = s
        .orders
        .values()
        .rev()
        .filter(|o| a.status.is_none_or(|st| o.status == st))
        .filter(|o| email.as_ref().is_none_or(|e| o.email.to_lowercase() == *e))
        .collect();
    let page = mcpbench_sim::page(
        &hits,
        a.after.as_deref(),
        a.limit.unwrap_or(20) as usize,
        &orders_query(a.status, email.as_deref()),
    )?;
    let shown: Vec<Value> = page.items.iter().map(|o| order_summary(s, o)).collect();
    Ok(json!({ "orders": shown, "total": hits.len(), "pageInfo": page_info(page.next) }))
}

/// The filters of a `list_orders` call, as its page cursors are bound to them.
pub(crate) fn orders_query(status: Option<OrderStatus>, email: Option<&str>) -> String {
    format!("orders {status:?} {email:?}")
}

/// Where a listing stands, as Shopify's GraphQL API says it: whether a page follows and the
/// cursor that `after` takes to get it.
fn page_info(next: Option<String>) -> Value {
    json!({ "hasNextPage": next.is_some(), "endCursor": next })
}

fn get_order(s: &Shop, a: OrderIdArg) -> Out {
    let o = s.order(a.order_id)?;
    Ok(order_detail(s, o))
}

fn refund_order(s: &mut Shop, a: RefundOrder) -> Out {
    let o = s.order(a.order_id)?;
    match o.status {
        OrderStatus::Refunded => {
            return Err(ToolError::precondition(format!(
                "order #{} is already fully refunded",
                o.id
            )));
        }
        OrderStatus::Cancelled => {
            return Err(ToolError::precondition(format!(
                "order #{} was cancelled; there is nothing to refund",
                o.id
            )));
        }
        OrderStatus::Paid | OrderStatus::Fulfilled => {}
    }
    let left = o.total() - o.refunded();
    let amount = a.amount.unwrap_or(left);
    if amount > left {
        return Err(ToolError::precondition(format!(
            "only {} of order #{} is left to refund; {} was asked",
            s.money(left),
            o.id,
            s.money(amount)
        )));
    }
    // The order holds its refunds: admitted for what the order grows by, the refund, the
    // list's separators (the whole list, when it is the first) and a refunded status.
    let mut o = o.clone();
    o.refunds.push(Refund {
        amount,
        reason: a.reason.unwrap_or_default(),
    });
    if o.refunded() == o.total() {
        o.status = OrderStatus::Refunded;
    }
    let out = json!({
        "id": o.id,
        "refunded": amount,
        "refundedFormatted": s.money(amount),
        "totalRefunded": o.refunded(),
        "refundable": o.total() - o.refunded(),
        "status": o.status,
    });
    s.put_order(o)?;
    Ok(out)
}

fn create_discount_code(s: &mut Shop, a: CreateDiscount) -> Out {
    let code = a.code.to_uppercase();
    if !valid_code(&code) {
        return Err(ToolError::invalid(format!(
            "{code:?} is not a valid code: 3-32 letters, digits, - or _"
        )));
    }
    if a.percent_off.is_some() == a.amount_off.is_some() {
        return Err(ToolError::invalid(
            "give exactly one of percentOff and amountOff",
        ));
    }
    if s.discounts.contains_key(&code) {
        return Err(ToolError::conflict(format!(
            "discount code {code} already exists"
        )));
    }
    let d = DiscountCode {
        code,
        percent_off: a.percent_off,
        amount_off: a.amount_off,
        usage_limit: a.usage_limit,
        used: 0,
    };
    let out = json!({ "code": d.code, "percentOff": d.percent_off, "amountOff": d.amount_off, "usageLimit": d.usage_limit });
    s.add_code(d)?;
    Ok(out)
}

fn list_discount_codes(s: &Shop, _: NoArgs) -> Out {
    let out: Vec<Value> = s
        .discounts
        .values()
        .map(|d| json!({ "code": d.code, "percentOff": d.percent_off, "amountOff": d.amount_off, "usageLimit": d.usage_limit, "used": d.used }))
        .collect();
    Ok(json!({ "discountCodes": out }))
}

pub(crate) static TOOLS: LazyLock<ToolBox<Shop>> = LazyLock::new(|| {
    ToolBox::new(vec![
        Tool::read(
            "list_locations",
            "List the stock locations (warehouses, stores) with their ids, and whether their inventory can be edited here or is managed by a fulfillment service.",
            list_locations,
        ),
        Tool::read(
            "list_products",
            "List products page by page, sorted by id, optionally only active or archived ones. Each with id, SKU, title, price in cents, status, tags and total stock.",
            list_products,
        ),
        Tool::read(
            "search_products",
            "Find products whose title, SKU or tags contain the query text. Returns summaries with id, SKU, price in cents and total stock, a page at a time (limit, default 20); while pageInfo.hasNextPage, pass pageInfo.endCursor as after for the next page.",
            search_products,
        ),
        Tool::read(
            "get_product",
            "Get one product by numeric id, including the units available at every location.",
            get_product,
        ),
        Tool::write(
            "create_product",
            "Create a product with title, unique SKU, price in cents (2450 = 24.50), optional tags, status and starting stock per location. A run's shop holds at most 2,000 products, orders, refunds and discount codes and 2 MiB in all.",
            create_product,
        ),
        Tool::write(
            "update_product",
            "Change a product's title, price in cents, or tags (the list replaces all tags). Does not change stock or status. A run's shop holds at most 2,000 products, orders, refunds and discount codes and 2 MiB in all.",
            update_product,
        ),
        Tool::write(
            "archive_product",
            "Archive a product so it is no longer sold. Its stock and orders are kept.",
            archive_product,
        ),
        Tool::write(
            "adjust_inventory",
            "Change the stock of a SKU at one location by a relative amount: delta 5 adds five units, -2 removes two.",
            adjust_inventory,
        ),
        Tool::write(
            "set_inventory",
            "Overwrite the stock of a SKU at one location with an absolute count, for example after a stock take.",
            set_inventory,
        ),
        Tool::read(
            "list_orders",
            "List orders newest first, optionally by status (paid, fulfilled, refunded, cancelled) or customer email, with totals in cents, a page at a time (limit, default 20); while pageInfo.hasNextPage, pass pageInfo.endCursor as after for the next page.",
            list_orders,
        ),
        Tool::read(
            "get_order",
            "Get one order by number (1043 for #1043): lines with quantities and unit prices, subtotal, shipping, discount, total, and what was refunded, all in cents.",
            get_order,
        ),
        Tool::write(
            "refund_order",
            "Refund an order in full, or partly with amount in cents. Fails if the order is cancelled, already fully refunded, or the amount exceeds what is left. A run's shop holds at most 2,000 products, orders, refunds and discount codes and 2 MiB in all.",
            refund_order,
        ),
        Tool::write(
            "create_discount_code",
            "Create a discount code giving percentOff percent or amountOff cents off, optionally limited to usageLimit uses. A run's shop holds at most 2,000 products, orders, refunds and discount codes and 2 MiB in all.",
            create_discount_code,
        ),
        Tool::read(
            "list_discount_codes",
            "List the existing discount codes with their value and usage.",
            list_discount_codes,
        ),
    ])
});
