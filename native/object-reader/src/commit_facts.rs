//! What the commit walk (commit_walk.rs) learns of each commit and the listing (listing.rs) needs
//! of it: its tree and its parents. The walk reads every commit once; a listing given its facts
//! does not read a commit of one parent or none again (a merge it still reads, for its parents).
//!
//! A fact is FACT_SIZE bytes: the tree's id, the first parent's id (zeros for none), and the number
//! of parents (u32 LE), one a commit in the walk's order, written to a file of their own.

use crate::buffer_call::optional_bytes_of;
use crate::napi::*;
use crate::tree::Commit;

pub const FACT_SIZE: usize = 44;

/** Appends commit `tree`/`parents`'s fact to `out`. */
pub fn push_fact(out: &mut Vec<u8>, tree: &[u8; 20], parents: &[[u8; 20]]) {
    out.extend_from_slice(tree);
    out.extend_from_slice(parents.first().unwrap_or(&[0; 20]));
    out.extend_from_slice(&(parents.len() as u32).to_le_bytes());
}

/**
 * The commit a fact says, when it says all of it (one parent or none); None for a merge, whose other
 * parents the fact leaves out.
 */
pub fn commit_of(fact: &[u8]) -> Option<Commit> {
    let fact: &[u8; FACT_SIZE] = fact.try_into().ok()?;
    let count = u32::from_le_bytes(fact[40..44].try_into().unwrap());
    let tree: [u8; 20] = fact[..20].try_into().unwrap();
    match count {
        0 => Some(Commit { tree, parents: Vec::new() }),
        1 => Some(Commit { tree, parents: vec![fact[20..40].try_into().unwrap()] }),
        _ => None,
    }
}

/** `value`: Some(None) for null or undefined, Some(facts) for a Buffer of whole facts, else None. */
pub fn facts_of(env: napi_env, value: napi_value) -> Option<Option<Vec<u8>>> {
    optional_bytes_of(env, value).filter(|facts| facts.as_ref().is_none_or(|f| f.len() % FACT_SIZE == 0))
}
