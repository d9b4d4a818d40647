//! Templates over the mailbox's whole history, drawn with a background of their own: the
//! answer sits at the far end of a listing, past its first page.

use super::{Kit, params};
use crate::background::Background;
use crate::{Email, Folder, sample_seed};
use mcpbench_sim::dates::{format_date, parse_date, spoken_date};
use mcpbench_sim::{AnswerCheck, Draft, Pred, Rng, Step, call, token_for};
use serde_json::json;

/// Ways to ask for the first message of a folder since a day, with `{folder}` and `{day}`.
const EARLIEST_ASKS: &[&str] = &[
    "Of the messages in my {folder} that arrived on {day} or later, which came first? Give me its sender's email address.",
    "Who sent the earliest message in my {folder} from {day} on? I need their email address.",
    "Looking at my {folder} since {day}: whose message was the first to arrive? Reply with the sender's address.",
    "I'm going through my {folder} starting {day}. Which address sent the oldest message in that stretch?",
    "Find the first message that landed in my {folder} on or after {day} and tell me the sender's email address.",
];

/// The first message of a folder since a day: the listing is newest first and runs to
/// several pages, so the answer is on its last page (or behind a search the agent narrows).
pub(crate) fn earliest_since(rng: &mut Rng) -> Draft<Email> {
    let mut seed = sample_seed();
    seed.background = Some(Background::draw(rng));
    let mailbox = Email::from_seed(&seed).expect("a sampled mailbox with its background is valid");
    let today = parse_date(&seed.now[..10]).expect("the seed's now is a date");
    let (folder, word) = *rng.pick(&[(Folder::Inbox, "inbox"), (Folder::Archive, "archive")]);
    // A day whose messages give one first one (no two share its minute), redrawn otherwise.
    let (day, hits) = loop {
        let day = today - rng.range(30, 100);
        let from = format_date(day);
        let mut hits: Vec<_> = (mailbox.messages.values())
            .filter(|m| m.folder == folder && m.date[..10] >= *from)
            .collect();
        hits.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.id.cmp(&b.id)));
        let n = hits.len();
        if n >= 2 && hits[n - 1].date != hits[n - 2].date {
            break (day, hits);
        }
    };
    let first = hits[hits.len() - 1];
    let query = format!("in:{word} after:{}", format_date(day).replace('-', "/"));
    let listing = format!("search {query}");
    let mut reference: Vec<Step> = (0..hits.len().div_ceil(100))
        .map(|page| {
            let mut args = json!({ "query": query, "maxResults": 100 });
            if page > 0 {
                args["pageToken"] = json!(token_for(100 * page, &listing));
            }
            call::<Email>("search_emails", args)
        })
        .collect();
    let pages = reference.len();
    reference.push(Step::Answer {
        answer: format!("It was {}.", first.from),
    });
    let others: Vec<&str> = hits.iter().map(|m| m.from.as_str()).collect();
    Draft {
        goal: rng
            .pick(EARLIEST_ASKS)
            .replace("{folder}", word)
            .replace("{day}", &spoken_date(day)),
        max_steps: pages as u32 + 5,
        seed,
        tools: Email::tools(&["search_emails", "list_emails", "read_email"]),
        predicate: Pred::Answer(AnswerCheck::names(&first.from, others)),
        references: vec![reference],
        faults: vec![],
        params: params(&[
            ("folder", json!(word)),
            ("day", json!(format_date(day))),
            ("messages", json!(hits.len())),
        ]),
    }
}
