//! `compose.tracking_number_to_file` (email, filesystem): a list of parcels in a file says
//! "pending" for orders still waiting for a tracking number. Two named stores have shipped one
//! listed order each; their numbers are in the shipping notices, past the first lines a listing
//! shows. Decoys: the first store also shipped an order that is not on the list (its number
//! must not be written) and has a listed order only confirmed, not shipped (it stays pending);
//! half the time the second store replaced its label and sent a correction, whose new number
//! is the right one. Other stores' listed orders stay as they are.

use super::tools;
use mcpbench_server_email::{Email, SeedMessage};
use mcpbench_server_filesystem::Filesystem;
use mcpbench_sim::{Pred, Rng, call, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;
use std::collections::BTreeMap;

/// (store, the address its notices come from).
const STORES: &[(&str, &str)] = &[
    ("Lumen Lamps", "shipping@lumenlamps.com"),
    ("Greenleaf Books", "orders@greenleafbooks.com"),
    ("Peak Outdoor", "dispatch@peakoutdoor.eu"),
    ("Brew Supply Co", "noreply@brewsupply.co"),
    ("Pixel Parts", "ship@pixelparts.io"),
    ("Tidewater Tea", "hello@tidewatertea.com"),
    ("Northfield Knits", "orders@northfieldknits.co.uk"),
    ("Copper Kettle", "shop@copperkettle.de"),
    ("Atlas Maps", "dispatch@atlasmaps.com"),
    ("Little Sprout Toys", "orders@littlesprout.com"),
    ("Vinyl Vault", "shipping@vinylvault.fm"),
    ("Harbor Cycles", "service@harborcycles.nl"),
    ("Sunday Ceramics", "studio@sundayceramics.com"),
    ("Quill & Ink", "orders@quillandink.co"),
    ("Orbit Games", "noreply@orbitgames.gg"),
    ("Maple Home", "delivery@maplehome.ca"),
    ("Fern & Fig", "hello@fernandfig.com"),
    ("Bolt Electronics", "shipping@boltelectronics.com"),
    ("Cedar Candles", "orders@cedarcandles.co"),
    ("Driftwood Surf", "ship@driftwoodsurf.pt"),
    ("Emberline Kitchen", "noreply@emberline.kitchen"),
    ("Gallery Frames", "orders@galleryframes.ie"),
    ("Juniper Garden", "dispatch@junipergarden.com"),
    ("Kite & Kayak", "shop@kiteandkayak.no"),
];
/// (carrier, tracking number prefix, digits).
const CARRIERS: &[(&str, &str, u32)] = &[
    ("ParcelPost", "PP", 10),
    ("SwiftShip", "SW", 9),
    ("BoxLine", "BX", 11),
    ("EuroParcel", "EP", 12),
];
const LISTS: &[&str] = &[
    "/home/alex/deliveries.txt",
    "/home/alex/notes/parcels.txt",
    "/home/alex/Documents/deliveries.md",
    "/home/alex/notes/orders-to-track.txt",
    "/home/alex/parcels.md",
    "/home/alex/Documents/shopping/tracking.txt",
];
/// Goals, with `{a}` and `{b}` for the stores and `{path}` for the list.
const GOALS: &[&str] = &[
    "{a} and {b} have shipped some of my orders. In my parcel list {path}, put the tracking \
     number in place of \"pending\" for each order from those two stores that has actually \
     shipped; anything not shipped yet stays pending.",
    "Please update {path}: my orders from {a} and {b} that have shipped should show their \
     tracking numbers instead of \"pending\". Leave orders that haven't shipped as they are.",
    "Fill in the tracking numbers from the shipping emails of {a} and {b} in {path}, replacing \
     \"pending\" on the orders that have shipped. Don't touch the other lines.",
];
const ME: &str = "alex@northwind.io";

fn tracking_number(rng: &mut Rng, carrier: (&str, &str, u32)) -> String {
    let digits: String = (0..carrier.2)
        .map(|_| char::from(b'0' + rng.below(10) as u8))
        .collect();
    format!("{}{digits}", carrier.1)
}

/// A shipping notice; its number comes past the first 80 characters a listing shows.
fn notice(
    id: &str,
    store: (&str, &str),
    order: i64,
    carrier: &str,
    number: &str,
    date: &str,
) -> SeedMessage {
    let body = format!(
        "Hi Alex,\n\nGood news from {}: your order {order} has left our warehouse and is on its \
         way to you with {carrier}.\n\nTracking number: {number}\n\nThanks for shopping with us!",
        store.0
    );
    let subject = format!("Your {} order {order} has shipped", store.0);
    SeedMessage::received(id, store.1, ME, &subject, &body, date)
}

fn confirmation(id: &str, store: (&str, &str), order: i64, date: &str) -> SeedMessage {
    let body = format!(
        "Hi Alex,\n\nThanks for your order {order}. We are packing it now and will email you the \
         tracking number as soon as it ships.\n\n{}",
        store.0
    );
    let subject = format!("We received your {} order {order}", store.0);
    SeedMessage::received(id, store.1, ME, &subject, &body, date)
}

fn correction(
    id: &str,
    store: (&str, &str),
    order: i64,
    old: &str,
    new: &str,
    date: &str,
) -> SeedMessage {
    let body = format!(
        "Hi Alex,\n\nWe're sorry: the parcel label for your order {order} was damaged, so we \
         shipped it again under a new label. Please use the new tracking number {new}; the old \
         one ({old}) no longer works.\n\n{}",
        store.0
    );
    let subject = format!("Order {order}: new tracking number");
    SeedMessage::received(id, store.1, ME, &subject, &body, date)
}

fn contains(path: &str, text: String) -> Pred<Atom> {
    Pred::Atom(Atom::filesystem(
        mcpbench_server_filesystem::Atom::FileContains {
            path: path.to_string(),
            text,
        },
    ))
}

pub(super) fn tracking_number_to_file(rng: &mut Rng) -> Composed {
    let stores = rng.sample(STORES, 4);
    let (a, b) = (stores[0], stores[1]);
    let carriers = rng.sample(CARRIERS, 3);
    let path = *rng.pick(LISTS);
    // Order numbers: a's shipped and listed, a's only confirmed, a's shipped but not listed,
    // b's shipped, and the two other stores' listed ones.
    let mut next = rng.range(40000, 48000);
    let mut orders: Vec<i64> = Vec::with_capacity(6);
    for _ in 0..6 {
        next += rng.range(37, 311);
        orders.push(next);
    }
    rng.shuffle(&mut orders);
    let (a_shipped, a_waiting, a_unlisted, b_shipped) =
        (orders[0], orders[1], orders[2], orders[3]);
    let a_number = tracking_number(rng, carriers[0]);
    let unlisted_number = tracking_number(rng, carriers[0]);
    let b_first = tracking_number(rng, carriers[1]);
    let corrected = rng.chance(1, 2);
    let b_number = if corrected {
        tracking_number(rng, carriers[1])
    } else {
        b_first.clone()
    };
    let delivered = tracking_number(rng, carriers[2]);

    let mut lines = vec![
        format!("- {}, order {a_shipped}: pending", a.0),
        format!("- {}, order {a_waiting}: pending", a.0),
        format!("- {}, order {b_shipped}: pending", b.0),
        format!("- {}, order {}: pending", stores[2].0, orders[4]),
        format!(
            "- {}, order {}: {delivered} (delivered)",
            stores[3].0, orders[5]
        ),
    ];
    rng.shuffle(&mut lines);
    let list = format!("Parcels I'm waiting for\n\n{}\n", lines.join("\n"));

    let mut messages = vec![
        notice(
            "msg-2001",
            a,
            a_unlisted,
            carriers[0].0,
            &unlisted_number,
            "2026-02-12T08:10:00Z",
        ),
        confirmation("msg-2002", a, a_waiting, "2026-02-24T19:42:00Z"),
        confirmation("msg-2003", stores[2], orders[4], "2026-02-25T10:12:00Z"),
        notice(
            "msg-2004",
            b,
            b_shipped,
            carriers[1].0,
            &b_first,
            "2026-02-26T15:40:00Z",
        ),
        SeedMessage::received(
            "msg-2005",
            "news@techdigest.com",
            ME,
            "This week in tech",
            "Top stories: chips, clouds and coffee.",
            "2026-02-27T07:00:00Z",
        ),
        notice(
            "msg-2006",
            a,
            a_shipped,
            carriers[0].0,
            &a_number,
            "2026-02-28T08:30:00Z",
        ),
        SeedMessage::received(
            "msg-2008",
            "maria.lopez@northwind.io",
            ME,
            "Package for the office",
            "Alex, a package for you arrived at reception. The tracking number is on the label.",
            "2026-03-01T13:00:00Z",
        ),
    ];
    if corrected {
        messages.push(correction(
            "msg-2007",
            b,
            b_shipped,
            &b_first,
            &b_number,
            "2026-03-01T09:05:00Z",
        ));
    }
    let mail = mcpbench_server_email::Seed {
        messages,
        ..Default::default()
    };
    let fs = mcpbench_server_filesystem::Seed {
        files: BTreeMap::from([(path.to_string(), list)]),
        ..Default::default()
    };

    let mut checks = vec![
        contains(path, format!("order {a_shipped}: {a_number}")),
        contains(path, format!("order {b_shipped}: {b_number}")),
        contains(path, format!("order {a_waiting}: pending")),
        contains(path, format!("order {}: pending", orders[4])),
        contains(path, format!("order {}: {delivered}", orders[5])),
        Pred::Not(Box::new(contains(path, unlisted_number.clone()))),
    ];
    if corrected {
        checks.push(Pred::Not(Box::new(contains(path, b_first.clone()))));
    }
    let edit = |order: i64, number: &str| json!({ "oldText": format!("order {order}: pending"), "newText": format!("order {order}: {number}") });
    let mut steps = vec![
        call::<Filesystem>("read_text_file", json!({ "path": path })),
        call::<Email>("search_emails", json!({ "query": "tracking number" })),
        call::<Email>("read_email", json!({ "messageId": "msg-2006" })),
        call::<Email>("read_email", json!({ "messageId": "msg-2004" })),
    ];
    if corrected {
        steps.push(call::<Email>(
            "read_email",
            json!({ "messageId": "msg-2007" }),
        ));
    }
    steps.push(call::<Filesystem>(
        "edit_file",
        json!({ "path": path, "edits": [edit(a_shipped, &a_number), edit(b_shipped, &b_number)] }),
    ));
    let goal = rng
        .pick(GOALS)
        .replace("{a}", a.0)
        .replace("{b}", b.0)
        .replace("{path}", path);
    Composed {
        max_steps: 14,
        goal,
        initial_state: InitialState {
            email: Some(mail),
            filesystem: Some(fs),
            ..Default::default()
        },
        available_tools: tools(
            "email.search_emails email.list_emails email.read_email email.mark_as_read \
             filesystem.read_text_file filesystem.write_file filesystem.edit_file \
             filesystem.list_directory filesystem.create_directory",
        ),
        success_predicate: Pred::All(checks),
        faults: vec![],
        reference_solutions: vec![steps],
        params: params(&[
            ("stores", json!([a.0, b.0])),
            ("path", json!(path)),
            ("orders", json!([a_shipped, b_shipped])),
            ("numbers", json!([a_number, b_number])),
            ("corrected", json!(corrected)),
        ]),
    }
}
