//! Pipeline positions and transitions (`docs/furiosa-engines.md` §1): every edge of the table
//! is accepted and a method at a position without that edge is refused with the allowed list.

use npusim_furiosa::{Position, TransitionError};

/// The table of §1, written out from the document.
const EDGES: [(Position, &[&str]); 11] = [
    (Position::Begin, &["fetch"]),
    (
        Position::Fetch,
        &[
            "fetch_mask",
            "fetch_table_lookup",
            "fetch_cast",
            "switch",
            "collect",
        ],
    ),
    (
        Position::FetchMask,
        &["fetch_table_lookup", "fetch_cast", "switch", "collect"],
    ),
    (
        Position::FetchTableLookup,
        &["fetch_cast", "switch", "collect"],
    ),
    (Position::FetchCast, &["switch", "collect"]),
    (Position::Switch, &["collect"]),
    (Position::Collect, &["vector_init", "cast", "commit_trim"]),
    (Position::VectorFinal, &["cast", "commit_trim"]),
    (Position::Cast, &["commit_trim"]),
    (
        Position::CommitTrim,
        &["commit_cast", "commit_cast_relu", "commit", "commit_view"],
    ),
    (Position::CommitCast, &["commit", "commit_view"]),
];

#[test]
fn every_edge_of_the_table_is_accepted() {
    for (position, methods) in EDGES {
        for m in methods {
            assert_eq!(position.check_transition(m), Ok(()), "{position:?} -> {m}");
        }
    }
}

#[test]
fn commit_on_a_collect_tensor_is_refused_with_the_allowed_list() {
    let e = Position::Collect.check_transition("commit").unwrap_err();
    assert_eq!(
        e,
        TransitionError {
            method: "commit".into(),
            position: Position::Collect,
            type_name: "CollectTensor",
            allowed: vec!["vector_init", "cast", "commit_trim"],
        }
    );
    assert_eq!(
        e.to_string(),
        "`commit` cannot be called on a CollectTensor (rule: a CollectTensor goes on with vector_init, cast, commit_trim)"
    );
}

#[test]
fn forbidden_edges_are_refused() {
    for (position, method) in [
        (Position::Collect, "switch"),
        (Position::Begin, "collect"),
        (Position::Fetch, "commit"),
        (Position::Switch, "fetch_cast"),
        (Position::FetchCast, "fetch_mask"),
        (Position::Cast, "commit"),
        (Position::CommitCast, "commit_cast"),
        (Position::CommitTrim, "commit_trim"),
    ] {
        let e = position.check_transition(method).unwrap_err();
        assert_eq!((e.method.as_str(), e.position), (method, position));
        assert!(!e.allowed.contains(&method));
    }
}
