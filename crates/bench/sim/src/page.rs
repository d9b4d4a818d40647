//! Page tokens for list and search tools, as real servers hand them out: a listing returns one
//! page and, while more follow, an opaque token for the next one. A token is bound to the query
//! that made it (its filters, not the state), so a token passed to another query is refused
//! rather than silently applied to it.

use crate::error::ToolError;

/// One page of a listing.
#[derive(Clone, Debug, PartialEq)]
pub struct Page<'a, T> {
    pub items: &'a [T],
    /// The token of the next page, `None` on the last one.
    pub next: Option<String>,
}

/// The `size` items of `items` that `token` points at (the first ones without a token), and
/// the token of the page after them. `query` names the listing's filters: a token made for
/// another query is an `invalid_arguments` error that says so, as is a token this server did
/// not make. A token past the end gives an empty last page.
pub fn page<'a, T>(
    items: &'a [T],
    token: Option<&str>,
    size: usize,
    query: &str,
) -> Result<Page<'a, T>, ToolError> {
    let from = match token {
        None | Some("") => 0,
        Some(t) => offset(t, query)?,
    }
    .min(items.len());
    let to = from.saturating_add(size.max(1)).min(items.len());
    let next = (to < items.len()).then(|| token_for(to, query));
    Ok(Page {
        items: &items[from..to],
        next,
    })
}

/// The token that starts a listing of `query` at `offset`.
pub fn token_for(offset: usize, query: &str) -> String {
    format!("{offset:x}{:08x}", fingerprint(query))
}

fn offset(token: &str, query: &str) -> Result<usize, ToolError> {
    let bad = || {
        ToolError::invalid(format!(
            "page token {token:?} was not returned by this listing; list again without a page token"
        ))
    };
    if token.len() <= 8 || token.len() > 24 || !token.is_ascii() {
        return Err(bad());
    }
    let (offset, print) = token.split_at(token.len() - 8);
    let offset = usize::from_str_radix(offset, 16).map_err(|_| bad())?;
    let print = u32::from_str_radix(print, 16).map_err(|_| bad())?;
    if print != fingerprint(query) {
        return Err(ToolError::invalid(format!(
            "page token {token:?} belongs to a listing with other filters; repeat that listing's filters or list again without a page token"
        )));
    }
    Ok(offset)
}

/// FNV-1a of the query, folded to 32 bits.
fn fingerprint(query: &str) -> u32 {
    let h = query.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    (h ^ (h >> 32)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_walk_the_whole_listing_once() {
        let items: Vec<u32> = (0..45).collect();
        let mut seen = Vec::new();
        let mut token = None;
        loop {
            let p = page(&items, token.as_deref(), 20, "in:inbox").unwrap();
            seen.extend_from_slice(p.items);
            match p.next {
                Some(t) => token = Some(t),
                None => break,
            }
        }
        assert_eq!(seen, items);
    }

    #[test]
    fn a_token_of_another_query_or_made_up_is_refused() {
        let items: Vec<u32> = (0..45).collect();
        let next = page(&items, None, 20, "in:inbox").unwrap().next.unwrap();
        let err = page(&items, Some(&next), 20, "in:archive").unwrap_err();
        assert!(err.to_string().contains("other filters"), "{err}");
        for made_up in ["2", "next:20", "zzzzzzzzzzzz", "√√√√√√√√√√"] {
            let err = page(&items, Some(made_up), 20, "in:inbox").unwrap_err();
            assert!(err.to_string().contains("not returned"), "{made_up}: {err}");
        }
    }

    #[test]
    fn the_last_page_has_no_token_and_past_the_end_is_empty() {
        let items: Vec<u32> = (0..40).collect();
        let second = page(&items, None, 20, "q").unwrap().next.unwrap();
        let last = page(&items, Some(&second), 20, "q").unwrap();
        assert_eq!((last.items.len(), last.next), (20, None));
        let far = token_for(400, "q");
        assert!(page(&items, Some(&far), 20, "q").unwrap().items.is_empty());
    }
}
